// The Playwright helper (js/playwright.mjs) driving a page of the browser
// under test, as a user's test would: configure (wins over the page's own
// config), waitForWasmtrace, startSession, status, collectTraces to disk,
// then the assertions. In Firefox the page is lib/browser.mjs's puppeteer
// page behind Playwright's method names (what the helper needs from a page:
// docs/GUIDE.md, "Playwright helper"). In Chromium report.test.mjs runs the
// same flow before it opens the HTML report, so this file runs in the other
// browsers only.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serve } from '../../lib/serve.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { launchTestBrowser, testBrowser } from '../lib/test-browser.mjs';
import {
  assertRan, assertTimeBelow, collectTraces, configure, startSession, status, waitForWasmtrace,
} from '../../js/playwright.mjs';

describe(`the Playwright helper in ${testBrowser}`, { skip: testBrowser === 'chromium' && 'report.test.mjs runs the helper in Chromium' }, () => {
  let browser;
  let server;
  let traces;
  let ready;
  const outDir = mkdtempSync(join(tmpdir(), 'wasmtrace-helper-'));

  before(async () => {
    server = await serve(join(wasmBuildDir, 'samples/startup'));
    browser = await launchTestBrowser();
    const page = await browser.newPage();
    await configure(page, { sessions: [{ name: 'helper', sampling: { intervalUs: 1000 } }] });
    await page.goto(server.url + 'index.html');
    ready = await waitForWasmtrace(page, { timeoutMs: 120000 });
    await page.waitForFunction(() => window.sampleStartupComplete === true, null, { timeout: 120000 });
    const later = await startSession(page, { name: 'later', format: 'folded', output: '/traces/later.folded' });
    assert.equal(later.error, null);
    assert.deepEqual((await status(page)).sessions.map((s) => s.name), ['helper', 'later']);
    traces = await collectTraces(page, { outDir });
    await page.close();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  test("configure's config wins over the page's own, and the page is isolated", () => {
    assert.deepEqual(ready.sessions.map((s) => s.name), ['helper']);
    assert.equal(ready.isolated, true);
  });

  test('collectTraces brings back the startup and the runtime session, written and parsed', () => {
    assert.deepEqual(traces.map((t) => [t.name, t.state, t.error]), [['helper', 'stopped', null], ['later', 'stopped', null]]);
    assert.equal(traces[0].profile.format, 'chrome');
    assert.equal(traces[1].profile.format, 'folded');
    assert.match(traces[0].file, /helper\.json\.gz$/);
  });

  test('the assertions hold on the trace', () => {
    const p = traces[0].profile;
    assertRan(p, 'inflate_block', { thread: 'asset-decoder-0', minSamples: 20 });
    assertRan(p, 'sort_keys', { thread: 'main' });
    assert.equal(assertTimeBelow(p, 'parse_config', 60000, { thread: 'main' }).source, 'scopes');
    assert.throws(() => assertTimeBelow(p, 'parse_config', 1, { thread: 'main' }), /below 1 ms, measured/);
  });
});
