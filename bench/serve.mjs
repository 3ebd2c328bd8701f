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
// durations). Section 11 of `npm run bench`; alone it prints the figures
// and writes them to docs/benchmarks.json (serve.*).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gunzipSync } from 'node:zlib';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { startRouter } from '../lib/router.mjs';
import { connectTool, streamToFile } from '../lib/tool.mjs';
import { figure, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
const LATENCY_S = Number(process.env.WT_SERVE_LATENCY_S || 8);
const THROUGHPUT_S = Number(process.env.WT_SERVE_THROUGHPUT_S || 6);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};

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

/**
 * Both measurements; returns { load: [before, after], latency: { ms: [per
 * frame], complete, bytes }, throughput: { bytes, frames, secs, complete,
 * same, stats } }.
 */
export async function serveBench({ latencyS = LATENCY_S, throughputS = THROUGHPUT_S } = {}) {
  const out = { load: [loadavg()[0]] };
  const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-bench-serve-'));
  const http = await serve(join(buildDir, 'tests'));
  const router = await startRouter();
  const browser = await launch();
  try {
    // 1. latency at 1 kHz
    {
      const { page, href } = await openEngine(browser, http, router);
      const tool = await connectTool(router.url);
      const id = await pageId(tool, href);
      await page.evaluate((ms) => Module._engine_start_workers(ms), (latencyS + 3) * 1000);
      const started = await tool.request({ type: 'start', page: id, config: { name: 'lat', sampling: { intervalUs: 1000 } } });
      const origin = await page.evaluate(() => performance.timeOrigin);
      const lat = [];
      const file = join(tmp, 'lat.json.gz');
      const done = streamToFile(tool, started, file);
      // Each frame's bytes are read back afterwards from the file (r.sizes
      // says where each frame ends; r.times when the tool wrote it).
      await sleep(latencyS * 1000);
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
      out.latency = { ms: lat, complete: r.complete, error: r.error, bytes: r.bytes, seconds: latencyS };
      tool.close();
      await page.close();
    }
    // 2. throughput at 10 kHz, 4 busy threads
    {
      const { page, href } = await openEngine(browser, http, router);
      const tool = await connectTool(router.url);
      const id = await pageId(tool, href);
      await page.evaluate((ms) => { Module._engine_start_workers(ms); Module._engine_start_workers(ms); }, (throughputS + 3) * 1000);
      await sleep(300);
      const started = await tool.request({ type: 'start', page: id, config: { name: 'tput', sampling: { intervalUs: 100 } } });
      const file = join(tmp, 'tput.json.gz');
      const t0 = performance.now();
      const done = streamToFile(tool, started, file);
      await sleep(throughputS * 1000);
      await tool.request({ type: 'stop', page: id, session: started.session.id });
      const r = await done;
      const secs = (performance.now() - t0) / 1000;
      const { vfs, stats } = await page.evaluate(async (sid) => {
        const s = Module.wasmtrace.getSession(sid);
        await s.stop();
        return { vfs: Array.from(s.getTraceBytes()), stats: s.stats() };
      }, started.session.id);
      const same = Buffer.from(vfs).equals(readFileSync(file));
      out.throughput = { bytes: r.bytes, frames: r.frames, secs, complete: r.complete, error: r.error, same, stats };
      tool.close();
      await page.close();
    }
  } finally {
    await browser.close();
    await http.close();
    await router.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  out.load.push(loadavg()[0]);
  return out;
}

/** The figures for docs/benchmarks.json (issue 14's targets where it has one). */
export function serveFigures(res) {
  const lat = res.latency.ms;
  const t = res.throughput;
  return [
    figure('serve.latency_1khz.median_ms', 'ms', lat, { target: '<= 250' }),
    { ...figure('serve.latency_1khz.p99_ms', 'ms', [quantile(lat, 0.99)]), n: lat.length },
    { ...figure('serve.throughput_10khz_4threads.mb_per_s', 'MB/s', [t.bytes / t.secs / 1e6]), n: 1 },
    { ...figure('serve.throughput_10khz_4threads.samples_dropped', 'samples', [t.stats.samplesDropped], { target: '<= 0' }), n: 1 },
  ];
}

const ms = (x) => x.toFixed(0);

export function serveLines(res) {
  const lat = res.latency.ms;
  const t = res.throughput;
  const f = serveFigures(res)[0];
  return [
    `serve.latency_1khz: ${lat.length} frames in ${res.latency.seconds} s (stream ${res.latency.complete ? 'complete' : `BROKEN: ${res.latency.error}`}): ` +
      `median ${ms(f.value)} ms${f.ci95 ? ` (95% CI ${ms(f.ci95[0])}..${ms(f.ci95[1])})` : ''}, p99 ${ms(quantile(lat, 0.99))} ms, ` +
      `max ${ms(quantile(lat, 1))} ms; ${res.latency.bytes} bytes`,
    `serve.throughput_10khz_4threads: ${t.bytes} bytes in ${t.frames} frames over ${t.secs.toFixed(1)} s ` +
      `(${(t.bytes / t.secs / 1e6).toFixed(3)} MB/s gzip), stream ${t.complete ? 'complete' : `BROKEN: ${t.error}`}, ` +
      `identical to the VFS copy: ${t.same}; ${t.stats.threads} threads, ${t.stats.samplesWritten} samples written, ` +
      `${t.stats.samplesDropped} dropped, ticks missed ${t.stats.ticksMissed}`,
  ];
}

export function serveSection(res, command) {
  const [lat, tput] = serveLines(res);
  return `## 11. Live streaming: \`wasmtrace serve\` (bench/serve.mjs)

The engine test app in headless Chromium connects to a router in the bench's
process; a tool on loopback starts a session and streams it into a file.
Latency: for every data frame the tool writes, the newest event timestamp
its bytes contain against the moment the tool wrote it (the whole path:
sampled, encoded, flushed every 100 ms, copied to the stream ring, read by
the page's Worker every 10 ms, sent, relayed, written), at 1 kHz with 2 busy
pthreads. Throughput: 10 kHz on 4 busy pthreads. Load average
${res.load.map((x) => x.toFixed(2)).join(' → ')}. Command: \`${command}\`.

- ${lat}
- ${tput}
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`# wasmtrace serve: streaming latency and throughput (${cpus().length} cores, load ${loadavg()[0].toFixed(1)})`);
  const res = await serveBench();
  for (const line of serveLines(res)) console.log(line);
  writeFigures(serveFigures(res));
}
