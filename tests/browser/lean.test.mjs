// An app linked the default way (issue 28): without the opt-in parts, the
// firefox and folded encoders (wasmtrace_formats) and the diagnostic
// server's page code (wasmtrace_server; its own test is in serve.test.mjs).
// samples/startup_lean is the sample app linked so. A session asking for a
// format the app lacks fails at its start, saying how to link it, printed
// once; the app and its other sessions run on, and the chrome trace is
// whole. The sample linked with the formats records all three (the
// formats.test.mjs readers check their files).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { serve } from '../../lib/serve.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { launchTestBrowser, testBrowser } from '../lib/test-browser.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-lean-'));
const READY = 'window.sampleStartupComplete === true';
const SESSIONS = [
  { name: 'lean-chrome', output: '/traces/lean-chrome.json.gz', format: 'chrome', sampling: { intervalUs: 1000 } },
  { name: 'lean-firefox', output: '/traces/lean-firefox.json.gz', format: 'firefox', sampling: { intervalUs: 1000 } },
  { name: 'lean-folded', output: '/traces/lean-folded.folded.gz', format: 'folded', sampling: { intervalUs: 1000 } },
];
const NOT_LINKED = (format) => `format "${format}" is not linked into this app (opt-in: CMake wasmtrace_formats(app); ` +
  'plain emcc `wasmtrace flags --ldflags --formats`; port formats=1; docs/GUIDE.md); "chrome" opens in the Firefox Profiler too';

let http, browser;
before(async () => {
  for (const app of ['startup_lean', 'startup']) {
    mkdirSync(join(tmp, app), { recursive: true });
    for (const f of readdirSync(join(wasmBuildDir, 'samples', app))) copyFileSync(join(wasmBuildDir, 'samples', app, f), join(tmp, app, f));
  }
  http = await serve(tmp);
  browser = await launchTestBrowser();
});
after(async () => {
  await browser?.close();
  await http?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Loads `app` with the three sessions; stops them; their states, errors, trace sizes and the console. */
async function run(app) {
  const page = await browser.newPage();
  const lines = [];
  page.on('console', (m) => lines.push(`[${m.type()}] ${m.text()}`));
  await page.goto(`${http.url}${app}/index.html?wasmtrace=${encodeURIComponent(JSON.stringify({ sessions: SESSIONS }))}`);
  await page.waitForFunction(READY, null, { timeout: 60000 });
  const r = await page.evaluate(async () => {
    const out = [];
    for (const s of Module.wasmtrace.getStartupSessions()) {
      const started = s.state;
      if (started !== 'failed') await s.stop();
      out.push({ name: s.name, started, state: s.state, error: s.error, bytes: s.state === 'stopped' ? Array.from(s.getTraceBytes()) : null });
    }
    return out;
  });
  await page.close();
  return { sessions: r, lines };
}

describe(`an app linked without the opt-in formats, in headless ${testBrowser}`, () => {
  test('firefox and folded sessions fail at their start saying how to link them, once each; the chrome session records', async () => {
    const { sessions, lines } = await run('startup_lean');
    const by = Object.fromEntries(sessions.map((s) => [s.name, s]));
    for (const format of ['firefox', 'folded']) {
      const s = by[`lean-${format}`];
      assert.equal(s.started, 'failed', `${format}: ${JSON.stringify(s)}`);
      assert.equal(s.error, NOT_LINKED(format));
      const said = lines.filter((l) => l.includes(NOT_LINKED(format)));
      assert.equal(said.length, 1, lines.join('\n'));
      assert.match(said[0], new RegExp(`^\\[error\\] wasmtrace: session 'lean-${format}' failed: `));
    }
    const chrome = by['lean-chrome'];
    assert.equal(chrome.state, 'stopped', chrome.error ?? '');
    const trace = JSON.parse(gunzipSync(Buffer.from(chrome.bytes)).toString());
    const events = Array.isArray(trace) ? trace : trace.traceEvents;
    assert.ok(events.some((e) => e.ph === 'P' && e.name === 'ProfileChunk'), 'the chrome trace holds CPU samples');
  });

  test('the same config on the sample linked with wasmtrace_formats: the three sessions record', async () => {
    const { sessions } = await run('startup');
    for (const s of sessions) {
      assert.equal(s.state, 'stopped', `${s.name}: ${s.error}`);
      assert.ok(gunzipSync(Buffer.from(s.bytes)).length > 1000, `${s.name}: a trace`);
    }
  });
});
