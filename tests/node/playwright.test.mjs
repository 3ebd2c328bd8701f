// The Playwright helper's diagnosis of a page that is not ready, with a
// stand-in page whose answers are slow (a loaded machine) or never come (a
// blocked main thread): a slow page is not "busy".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitForWasmtrace } from '../../js/playwright.mjs';

/** A page whose status probe answers `status` after delayMs (never with Infinity). */
function fakePage(status, delayMs) {
  return {
    url: () => 'http://127.0.0.1/fake',
    evaluate(what) {
      if (typeof what === 'function') return Promise.resolve(true); // crossOriginIsolated
      if (delayMs === Infinity) return new Promise(() => {});
      return new Promise((ok) => setTimeout(() => ok({ status, configError: null, sessions: [] }), delayMs));
    },
  };
}

describe('waitForWasmtrace diagnoses what the page last said', () => {
  test('a page that answers slowly (400 ms a probe) without Module.wasmtrace: no-api, not busy', async () => {
    await assert.rejects(waitForWasmtrace(fakePage('no-api', 400), { timeoutMs: 3000 }),
      (e) => e.code === 'no-api' && /never appeared in 3 s/.test(e.message));
  });

  test('a page that stops answering: busy', async () => {
    await assert.rejects(waitForWasmtrace(fakePage('no-api', Infinity), { timeoutMs: 3000 }),
      (e) => e.code === 'busy' && /did not come back to its event loop/.test(e.message));
  });

  test('a ready page resolves with its status', async () => {
    const s = await waitForWasmtrace(fakePage('ready', 400), { timeoutMs: 3000 });
    assert.equal(s.status, 'ready');
  });
});
