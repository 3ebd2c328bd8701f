// The diagnostic server's streaming, measured (docs/PROTOCOL.md,
// docs/GUIDE.md "Live"): the engine test app (tests/engine) in headless
// Chromium, a router and a tool in this process, on loopback.
//
//  1. Latency at 1 kHz (2 busy pthreads, 8 s): for every data frame the
//     tool writes, the newest event timestamp the frame's bytes contain
//     (the stream decompressed up to there) against the moment the tool
//     wrote it, on the page's clock (timeOrigin-based, shared by both
//     processes on one machine). This is the whole path — sampled, encoded,
//     flushed (every 100 ms for a streamed session), copied to the ring,
//     read by the page's Worker (every 10 ms), sent, relayed, written — so
//     an upper bound of "a block leaves the encoder -> the tool writes it".
//     Printed: median and p99 with a bootstrap 95 % CI of the median.
//  2. Throughput at 10 kHz on 4 busy pthreads (6 s): bytes and frames
//     streamed, MB/s, whether the stream completed (no BROKEN frame: the
//     2 MiB ring never filled), samples dropped, and that the streamed file
//     equals the page's VFS copy.
//
//   bash scripts/build.sh wasm && node bench/serve.mjs
// (about 30 s; WT_SERVE_LATENCY_S / WT_SERVE_THROUGHPUT_S change the
// durations). It writes nothing: the lead folds the numbers into
// docs/BENCHMARKS.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gunzipSync } from 'node:zlib';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { startRouter } from '../lib/router.mjs';
import { connectTool, streamToFile } from '../lib/tool.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
const LATENCY_S = Number(process.env.WT_SERVE_LATENCY_S || 8);
const THROUGHPUT_S = Number(process.env.WT_SERVE_THROUGHPUT_S || 6);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
function medianCI(xs, n = 2000) {
  const meds = [];
  for (let i = 0; i < n; i++) meds.push(quantile(Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)]), 0.5));
  return [quantile(meds, 0.025), quantile(meds, 0.975)];
}

async function openEngine(browser, http, router) {
  const page = await browser.newPage();
  const config = JSON.stringify({ server: { url: router.url } });
  await page.goto(`${http.url}engine/index.html?config=${encodeURIComponent(config)}`);
  await page.waitForFunction(() => typeof Module !== 'undefined' && Module.wasmtrace && Module.wasmtrace.server &&
    Module.wasmtrace.server.state === 'connected', null, { timeout: 60000 });
  const href = await page.evaluate(() => location.href);
  return { page, href };
}

async function pageId(tool, href) {
  for (let i = 0; i < 200; i++) {
    const p = (await tool.request({ type: 'list' })).pages.find((x) => x.url === href);
    if (p) return p.id;
    await sleep(50);
  }
  throw new Error('the page never connected');
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-bench-serve-'));
  const http = await serve(join(buildDir, 'tests'));
  const router = await startRouter();
  const browser = await launch();
  try {
    console.log(`# wasmtrace serve: streaming latency and throughput (${cpus().length} cores, load ${loadavg()[0].toFixed(1)})`);
    // 1. latency at 1 kHz
    {
      const { page, href } = await openEngine(browser, http, router);
      const tool = await connectTool(router.url);
      const id = await pageId(tool, href);
      await page.evaluate((ms) => Module._engine_start_workers(ms), (LATENCY_S + 3) * 1000);
      const started = await tool.request({ type: 'start', page: id, config: { name: 'lat', sampling: { intervalUs: 1000 } } });
      const origin = await page.evaluate(() => performance.timeOrigin);
      const lat = [];
      const file = join(tmp, 'lat.json.gz');
      const done = streamToFile(tool, started, file);
      // Each frame's bytes are read back afterwards from the file (r.sizes
      // says where each frame ends; r.times when the tool wrote it).
      await sleep(LATENCY_S * 1000);
      await tool.request({ type: 'stop', page: id, session: started.session.id });
      const r = await done;
      const bytes = readFileSync(file);
      let offset = 0, seen = 0;
      for (let i = 0; i < r.sizes.length; i++) {
        offset += r.sizes[i];
        if (!r.sizes[i]) continue;
        const text = gunzipSync(bytes.subarray(0, offset), { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
        let newest = -1;
        for (const m of text.slice(seen).matchAll(/"ts":(\d+(?:\.\d+)?)/g)) newest = Math.max(newest, Number(m[1]));
        seen = Math.max(0, text.length - 32);
        if (newest < 0) continue;
        lat.push(r.times[i] - (origin + newest / 1000));
      }
      const [lo, hi] = medianCI(lat);
      console.log(`serve.latency_1khz: ${lat.length} frames in ${LATENCY_S} s (stream ${r.complete ? 'complete' : `BROKEN: ${r.error}`}): ` +
        `median ${quantile(lat, 0.5).toFixed(0)} ms (95% CI ${lo.toFixed(0)}..${hi.toFixed(0)}), p99 ${quantile(lat, 0.99).toFixed(0)} ms, ` +
        `max ${Math.max(...lat).toFixed(0)} ms; ${r.bytes} bytes`);
      tool.close();
      await page.close();
    }
    // 2. throughput at 10 kHz, 4 busy threads
    {
      const { page, href } = await openEngine(browser, http, router);
      const tool = await connectTool(router.url);
      const id = await pageId(tool, href);
      await page.evaluate((ms) => { Module._engine_start_workers(ms); Module._engine_start_workers(ms); }, (THROUGHPUT_S + 3) * 1000);
      await sleep(300);
      const started = await tool.request({ type: 'start', page: id, config: { name: 'tput', sampling: { intervalUs: 100 } } });
      const file = join(tmp, 'tput.json.gz');
      const t0 = performance.now();
      const done = streamToFile(tool, started, file);
      await sleep(THROUGHPUT_S * 1000);
      await tool.request({ type: 'stop', page: id, session: started.session.id });
      const r = await done;
      const secs = (performance.now() - t0) / 1000;
      const { vfs, stats } = await page.evaluate(async (sid) => {
        const s = Module.wasmtrace.getSession(sid);
        await s.stop();
        return { vfs: Array.from(s.getTraceBytes()), stats: s.stats() };
      }, started.session.id);
      const same = Buffer.from(vfs).equals(readFileSync(file));
      console.log(`serve.throughput_10khz_4threads: ${r.bytes} bytes in ${r.frames} frames over ${secs.toFixed(1)} s ` +
        `(${(r.bytes / secs / 1e6).toFixed(3)} MB/s gzip), stream ${r.complete ? 'complete' : `BROKEN: ${r.error}`}, ` +
        `identical to the VFS copy: ${same}; ${stats.threads} threads, ${stats.samplesWritten} samples written, ` +
        `${stats.samplesDropped} dropped, ticks missed ${stats.ticksMissed}`);
      tool.close();
      await page.close();
    }
  } finally {
    await browser.close();
    await http.close();
    await router.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
