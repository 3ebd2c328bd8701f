// The Playwright helper's diagnosis of a page that is not ready, with a
// stand-in page whose answers are slow (a loaded machine) or never come (a
// blocked main thread): a slow page is not "busy". And the faults that end
// a recording (an aborted runtime, a navigation, a closed or crashed page),
// played as the page's events: each ends the wait at once with its name.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { collectTraces, waitForSessions, waitForWasmtrace } from '../../js/playwright.mjs';

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

describe('a probe that answers late is not a busy main thread', () => {
  test('progress keeps the last status the page gave while probes answer within the busy threshold', async () => {
    const seen = [];
    await assert.rejects(waitForWasmtrace(fakePage('no-api', 400), { timeoutMs: 3000, onProgress: (p) => seen.push(p.status) }),
      (e) => e.code === 'no-api');
    assert.ok(seen.length > 0);
    assert.ok(!seen.includes('busy'), `progress said: ${[...new Set(seen)].join(', ')}`);
  });

  test('progress says busy once probes stop being answered', async () => {
    const seen = [];
    await assert.rejects(waitForWasmtrace(fakePage('no-api', Infinity), { timeoutMs: 3000, onProgress: (p) => seen.push(p.status) }),
      (e) => e.code === 'busy');
    assert.ok(seen.includes('busy'));
  });
});

/**
 * A stand-in page with events: its status probe answers `state` (a ready
 * page with one running session); emit(event, ...) plays the page's events.
 */
function livePage(state = {}) {
  const page = new EventEmitter();
  const main = { url: () => 'http://127.0.0.1/app' };
  let token = null;
  Object.assign(page, {
    url: () => 'http://127.0.0.1/app',
    mainFrame: () => main,
    addInitScript: async () => {},
    async evaluate(what) {
      if (typeof what === 'function') return true;
      const set = /^globalThis\.wasmtraceWatchToken = (".*")$/.exec(what);
      if (set) return (token = JSON.parse(set[1]));
      const check = /^globalThis\.wasmtraceWatchToken === (".*")$/.exec(what);
      if (check) return state.navigated ? false : token === JSON.parse(check[1]);
      await new Promise((ok) => setTimeout(ok, 20));
      if (state.navigated) return { status: 'no-module', configError: null, sessions: [], aborted: null, isolated: true };
      return {
        status: 'ready', configError: null, aborted: state.aborted ?? null, isolated: true,
        sessions: [{ id: 0, name: 'startup', output: '/traces/startup.json.gz', state: 'running', error: null, stats: {} }],
      };
    },
  });
  return { page, main, state };
}

describe('faults of the page end the waits at once with a message that names them', () => {
  // Hang guards only: without the fix these waits run to their 60 s timeout.
  const slow = { timeoutMs: 60000 };

  test("an 'Aborted(' line on the console: aborted, with the reason", async () => {
    const { page } = livePage();
    await waitForWasmtrace(page, { timeoutMs: 10000 });
    setTimeout(() => page.emit('console', { text: () => 'Aborted(OOM)', type: () => 'error' }), 100);
    await assert.rejects(waitForSessions(page, slow), (e) => e.code === 'aborted' && /^wasmtrace: the app aborted: OOM \(/.test(e.message));
  });

  test('an uncaught Aborted( error (pageerror): aborted', async () => {
    const { page } = livePage();
    await waitForWasmtrace(page, { timeoutMs: 10000 });
    setTimeout(() => page.emit('pageerror', Object.assign(new Error('Aborted(native code called abort())'), { name: 'RuntimeError' })), 100);
    await assert.rejects(waitForSessions(page, slow), (e) => e.code === 'aborted' && /the app aborted: native code called abort\(\)/.test(e.message));
  });

  test('Module.wasmtrace.aborted: aborted, in waitForWasmtrace too', async () => {
    const { page } = livePage({ aborted: 'the wasm runtime aborted: OOM' });
    await assert.rejects(waitForWasmtrace(page, { timeoutMs: 10000 }), (e) => e.code === 'aborted' && /the app aborted: OOM/.test(e.message));
  });

  test('a navigation of the main frame to another document: navigated, with the URL', async () => {
    const { page, main, state } = livePage();
    await waitForWasmtrace(page, { timeoutMs: 10000 });
    setTimeout(() => {
      state.navigated = true;
      main.url = () => 'http://127.0.0.1/away.html';
      page.emit('framenavigated', main);
    }, 100);
    await assert.rejects(waitForSessions(page, slow),
      (e) => e.code === 'navigated' && /the page navigated away to http:\/\/127\.0\.0\.1\/away\.html before its sessions stopped/.test(e.message));
    await assert.rejects(collectTraces(page), (e) => e.code === 'navigated');
  });

  test('a same-document navigation (pushState, #hash) is no fault', async () => {
    const { page, main } = livePage();
    await waitForWasmtrace(page, { timeoutMs: 10000 });
    setTimeout(() => page.emit('framenavigated', main), 50);
    const r = await waitForSessions(page, { durationMs: 1000, timeoutMs: 60000 });
    assert.equal(r.reason, 'duration');
  });

  test('the page closes or crashes: closed, crashed', async () => {
    for (const [event, code] of [['close', 'closed'], ['crash', 'crashed']]) {
      const { page } = livePage();
      await waitForWasmtrace(page, { timeoutMs: 10000 });
      setTimeout(() => page.emit(event), 100);
      await assert.rejects(waitForSessions(page, slow), (e) => e.code === code && /before its sessions stopped/.test(e.message));
    }
  });
});
