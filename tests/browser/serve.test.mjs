// The diagnostic server end to end (docs/PROTOCOL.md): the sample app in
// headless Chromium with a `server` config, a real router on 127.0.0.1
// (lib/router.mjs) and real tools (lib/tool.mjs). What is checked: suspend
// holds main() until a tool resumes it, a tool's session streams the very
// bytes of the VFS file (read back by the real readers), the stream keeps
// flowing while the page's main thread is blocked, and every fault (tool
// killed, page closed, router late or absent, bad config) leaves the page
// and its sessions alone.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { constants, gunzipSync, inflateRawSync } from 'node:zlib';
import { launch } from '../../lib/browser.mjs';
import { serve } from '../../lib/serve.mjs';
import { startRouter } from '../../lib/router.mjs';
import { connectTool, streamToFile } from '../../lib/tool.mjs';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';

const root = new URL('../..', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-serve-e2e-'));
const site = join(tmp, 'site');
const READY = 'window.sampleStartupComplete === true';

// A cut gzip stream decompressed as far as it goes (its last flush point).
function gunzipPrefix(bytes) {
  return gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(fn, what, ms = 30000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('wasmtrace serve with pages in headless Chromium', () => {
  let http, browser, router;
  before(async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(site, { recursive: true });
    for (const f of ['startup.js', 'startup.wasm', 'startup.worker.js']) {
      try {
        copyFileSync(join(wasmBuildDir, 'samples/startup', f), join(site, f));
      } catch (e) {
        if (f !== 'startup.worker.js') throw e; // (3.1.58+ has no worker.js)
      }
    }
    copyFileSync(join(root, 'tests/serve/index.html'), join(site, 'index.html'));
    http = await serve(site);
    browser = await launch();
    router = await startRouter();
  });
  after(async () => {
    await browser?.close();
    await http?.close();
    await router?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function openPage(config, { wait = true } = {}) {
    const page = await browser.newPage();
    const lines = [];
    page.on('console', (m) => lines.push(`[${m.type()}] ${m.text()}`));
    const go = page.goto(`${http.url}index.html?cfg=${encodeURIComponent(JSON.stringify(config))}`);
    if (wait) await go;
    return { page, lines, go };
  }

  // The VFS copy of session `id`, once stopped.
  async function vfsBytes(page, id) {
    return Buffer.from(await page.evaluate(async (sid) => {
      const s = Module.wasmtrace.getSession(sid);
      await s.stop();
      return Array.from(s.getTraceBytes());
    }, id));
  }

  test('suspend holds main() until a tool resumes it; the streamed session starts before main() and its file equals the VFS copy', async () => {
    const tool = await connectTool(router.url);
    const startP = tool.request({ type: 'start', page: 'first', config: { name: 'remote', sampling: { intervalUs: 1000 } } });
    const { page } = await openPage({ server: { url: router.url, suspend: true, suspendTimeoutMs: 60000 } });
    const started = await startP;
    assert.equal(started.session.name, 'remote');
    const { pages } = await tool.request({ type: 'list' });
    assert.equal(pages.find((p) => p.id === started.page).suspended, true);
    // Held: main() has not run, yet the page's main thread answers.
    await sleep(300);
    assert.equal(await page.evaluate(() => ({ main: Module.mainStartMs === undefined, ticks: window.pageTicks > 5 })).then(JSON.stringify),
      JSON.stringify({ main: true, ticks: true }));
    const file = join(tmp, 'suspended.json.gz');
    const done = streamToFile(tool, started, file);
    const resumed = await tool.request({ type: 'resume', page: started.page });
    assert.ok(resumed.waited >= 300);
    await page.waitForFunction(READY, null, { timeout: 60000 });
    await tool.request({ type: 'stop', page: started.page, session: started.session.id });
    const r = await done;
    assert.equal(r.complete, true, r.error);
    const streamed = readFileSync(file);
    const vfs = await vfsBytes(page, started.session.id);
    assert.ok(streamed.equals(vfs), `streamed ${streamed.length} bytes, VFS ${vfs.length}`);
    const events = parseTrace(streamed);
    const a = analyzeTrace(events);
    const main = a.threads.find((t) => t.name === 'main');
    assert.ok(main, `threads: ${a.threads.map((t) => t.name)}`);
    const mainStartMs = await page.evaluate(() => Module.mainStartMs);
    const first = Math.min(...a.threads.filter((t) => t.samples.length).map((t) => t.samples[0].ts)) / 1000;
    assert.ok(first <= mainStartMs, `first sample ${first} ms, main() at ${mainStartMs} ms`);
    const dt = await importWithDevTools(events);
    assert.ok(dt.threads.some((t) => t.name === 'main'), `DevTools threads: ${dt.threads.map((t) => t.name)}`);
    tool.close();
    await page.close();
  });

  test('a tool streams from an already running page while its main thread spins for 3 s', async (t) => {
    const { page } = await openPage({ server: { url: router.url } });
    await page.waitForFunction(READY, null, { timeout: 60000 });
    const tool = await connectTool(router.url);
    const url = await page.evaluate(() => location.href);
    const pageId = await until(async () => (await tool.request({ type: 'list' })).pages.find((p) => p.url === url)?.id, 'the page');
    const started = await tool.request({ type: 'start', page: pageId, config: { name: 'busy', sampling: { intervalUs: 1000 } } });
    const file = join(tmp, 'busy.json.gz');
    const done = streamToFile(tool, started, file);
    await sleep(500);
    const spin = await page.evaluate(() => {
      const t0 = performance.timeOrigin + performance.now();
      let x = 0;
      while (performance.timeOrigin + performance.now() - t0 < 3000) x++;
      return { t0, t1: performance.timeOrigin + performance.now(), x };
    });
    await tool.request({ type: 'stop', page: pageId, session: started.session.id });
    const r = await done;
    assert.equal(r.complete, true, r.error);
    // times[i] is when frame i (sequence number i) was written to the file.
    const inside = r.times.map((at, seq) => ({ at, seq })).filter((f) => f.at > spin.t0 + 200 && f.at < spin.t1 - 50);
    t.diagnostic(`during the 3 s spin the tool wrote ${inside.length} of ${r.frames} frames ` +
      `(${inside.reduce((n, f) => n + (f.bytes ?? 0), 0) || 'n/a'} bytes), sequence ${inside[0]?.seq}..${inside.at(-1)?.seq}`);
    assert.ok(inside.length >= 2, `frames written during the 3 s spin: ${inside.length} of ${r.frames} ` +
      `(spin ${spin.t0.toFixed(0)}..${spin.t1.toFixed(0)}, frames at ${r.times.map((t) => (t - spin.t0).toFixed(0)).join(' ')})`);
    const vfs = await vfsBytes(page, started.session.id);
    assert.ok(readFileSync(file).equals(vfs), 'the streamed file equals the VFS copy');
    // The frames are the trace: it reads back, with samples taken during the spin.
    const origin = await page.evaluate(() => performance.timeOrigin);
    const a = analyzeTrace(parseTrace(vfs));
    const during = a.threads.flatMap((t) => t.samples).filter((x) => x.ts / 1000 + origin > spin.t0 && x.ts / 1000 + origin < spin.t1);
    assert.ok(during.length > 0, 'samples taken during the spin');
    tool.close();
    await page.close();
  });
});
