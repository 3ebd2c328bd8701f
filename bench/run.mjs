// npm run bench: what wasmtrace costs, always as a ratio to a baseline
// measured in the same run, median and spread over repeated runs. Writes
// docs/BENCHMARKS.md. Sections:
//   1. hot path: ns per instrumented call (plain vs -finstrument-functions),
//      per scope, disabled category, instant, counter (Node, Chromium, native)
//   2. sampler: achieved rate, lateness, worker time at 1/5/10 kHz with
//      1/4/8 busy threads (Chromium)
//   3. output: encode + gzip throughput on the worker, bytes per sample by
//      format, memory per thread and per session
//   4. startup: runtime start to first sample; page load to main() with a
//      startup session vs without
//   5. end to end: the sample app's startup time, compiled out vs scopes vs
//      instrumented, and vs Chrome's own V8 CPU profiler at 1 ms
//   6. while the main thread is busy: achieved rate of main and of a pthread
//      vs requested, lateness, and how long stop() takes (the figures the
//      tests leave to this benchmark: a loaded machine changes them)
//   7. call-heavy code (bench/callheavy.mjs): ticks dropped and kept
//      partial while the stack never stops moving, the phase-share error,
//      and per-function self-time shares against a calibrated ground truth
//      and against V8's CPU profiler, per recording; also written to
//      docs/benchmarks.json
//   8. end to end on real code (bench/e2e.mjs): zlib and cJSON built plain,
//      -finstrument-functions and -finstrument-functions-after-inlining,
//      paired runs in one process / page: e2e.instrumented.ratio and
//      e2e.instrumented_after_inlining.ratio with bootstrap 95 % intervals;
//      the plain build with a 1 kHz session, and with Chrome's V8 CPU
//      profiler, vs nothing (e2e.session_1khz.overhead_pct,
//      e2e.v8_cpu_profiler.overhead_pct), 1 thread and 2 pthreads
//   9. late ticks (bench/weights.mjs): the fidelity workload with 4 busy
//      threads, its self-time error counting samples vs weighing them
//      (fidelity.4busy.*)
//  10. Firefox beside Chromium (bench/browsers.mjs): hot path, sampler at
//      1 and 10 kHz, startup, rounds alternating the browsers
//  11. live streaming (bench/serve.mjs): `wasmtrace serve` latency at 1 kHz
//      and throughput at 10 kHz x 4 threads (serve.*)
//  12. heap profiling (bench/heap.mjs): the allocator shim's cost on a
//      malloc+free pair and on 4 malloc-heavy pthreads, shim + heap session
//      vs no shim in paired rounds (heap.fastpath.ns_added,
//      heap.microbench.overhead_pct), and per-site estimates at the default
//      512 KiB against known live bytes over 10 recordings (heap.accuracy.*)
//  13. wasmtrace diff (bench/diff.mjs): A/A false alarms over 20 splits of
//      10 recordings, power at +10 % (5 runs a side) and +20 % (3) in one
//      function of the sample, diff of 10 + 10 traces of ~50k samples
//      (diff.aa.*, diff.power.*, diff.speed.*); not here, each its own
//      command (bench/diff.mjs's header): 13c, an A/A of 20 comparisons
//      that share no recording (WT_DIFF_PART=aa-fresh, ~200 recordings),
//      13d, exact counts of a change on a pthread (WT_DIFF_PART=calls-pthread)
//  14. download size (bench/size.mjs): a two-thread app built with the
//      plain-emcc flags, with and without wasmtrace, gzip'd, and the parts
//      of the difference (size.added.gzip_kb, size.component.*)
//  15. the sampler against its floor (bench/floor.mjs): ours vs a thread
//      that only sleeps to the same deadlines, alternating rounds at 1 and
//      10 kHz, 1 busy thread (sampler.floor.*)
//  16. hooks on a call-dense interpreter (bench/interp.mjs): Lua 5.4
//      instrumented, plain vs today's library vs the library of 551744b,
//      rotating rounds under Node (interp.lua.*)
//  17. deflate throughput (bench/deflate.mjs): the library's zlib at -O2
//      and -Os on chrome-format text, alternating rounds under Node
//      (deflate.*)
//  18. what wasmtrace adds to startup (bench/startup.mjs): navigation ->
//      main() of a two-pthread app not linked, linked and with a startup
//      session, rotating rounds in Chromium and Firefox (startup.added_ms.*,
//      startup.linked_no_session_ms)
// Every figure also goes to docs/benchmarks.json by a stable name
// (bench/figures.mjs: hook.*, sampler.*, fidelity.*, e2e.*, heap.*, diff.*, size.*, interp.*, deflate.*), with its 95 %
// interval where the runs allow one.
// The report starts with the machine: cores, CPU, load average before and
// after the run, Node and Chromium versions.
// Environment: WT_BENCH_RUNS (default 5), WT_BENCH_QUICK=1 (fewer runs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath, launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { analyzeTrace, parseTrace } from '../lib/trace.mjs';
import { collectTraces } from '../js/playwright.mjs';
import { callHeavyFigures, callHeavyJson, callHeavySection, groundTruthFigures, loadText } from './callheavy.mjs';
import { figures as e2eFigures, jsonFigures as e2eJson, runChromium as e2eChromium, runNode as e2eNode, section as e2eSection } from './e2e.mjs';
import { hotAndSamplerFigures, stampSections, writeFigures, writeKeyFigures } from './figures.mjs';
import { weightsFigures, weightsRun, weightsSection } from './weights.mjs';
import { samplerRun } from './sampler-run.mjs';
import { browsersBench, browsersJson, browsersSection } from './browsers.mjs';
import { serveBench, serveFigures, serveSection } from './serve.mjs';
import { heapBench, heapFigures, heapSection } from './heap.mjs';
import { diffBench, diffFigures, diffSection } from './diff.mjs';
import { sizeBench, sizeFigures, sizeSection } from './size.mjs';
import { floorBench, floorFigures, floorSection } from './floor.mjs';
import { interpBench, interpFigures, interpSection } from './interp.mjs';
import { deflateBench, deflateFigures, deflateSection } from './deflate.mjs';
import { startupBench, startupFigures, startupSection } from './startup.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = join(root, 'build/wasm');
const QUICK = process.env.WT_BENCH_QUICK === '1';
const RUNS = Number(process.env.WT_BENCH_RUNS || (QUICK ? 3 : 5));
const ITERS = '0'; // each program calibrates: ~30 ms per repetition
const MS = QUICK ? 1000 : 2000; // busy time of the sampler benchmark
const t0 = Date.now();
const log = (m) => console.log(`wasmtrace bench [${((Date.now() - t0) / 1000).toFixed(0)} s]: ${m}`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, d = 2) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));
const spread = (xs, d = 2) => `${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)}`;
const cell = (xs, d = 2) => `${fmt(median(xs), d)} (${spread(xs, d)})`;
const repeat = async (n, fn) => { const out = []; for (let i = 0; i < n; i++) out.push(await fn(i)); return out; };
const cfg = (session) => JSON.stringify({ sessions: [session] });

// ---- helpers -----------------------------------------------------------

// Node and native runs start the same session as the page's config.
const SESSION = JSON.stringify({ name: 'bench', output: '/tmp/wasmtrace-bench.json.gz', overwrite: true, sampling: { intervalUs: 1000 }, categories: ['app'] });

function nodeRun(variant, mode) {
  const out = execFileSync('node', ['--no-experimental-fetch', join(wasm, `bench/calls_${variant}/calls.js`), mode, ITERS, '7', SESSION],
    { encoding: 'utf8', timeout: 300000 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{'))).nsPerOp;
}

function nativeRun(variant, mode) {
  const out = execFileSync(join(root, `build/bench-host/bench/bench_calls_native_${variant}`), [mode, ITERS, '7', SESSION], { encoding: 'utf8' });
  return JSON.parse(out.trim()).nsPerOp;
}

let browser, server;
async function page(path, waitFor, { timeout = 120000, before } = {}) {
  const p = await browser.newPage();
  if (before) await before(p);
  await p.goto(server.url + path);
  await p.waitForFunction(waitFor, null, { timeout, polling: 20 });
  return p;
}

async function stopAndStats(p) {
  const [s] = await collectTraces(p, { parse: false, timeoutMs: 300000 });
  const events = parseTrace(s.bytes);
  return { events, stats: events.find((e) => e.name === 'wasmtrace_stats')?.args, bytes: s.bytes.length };
}

// ---- machine ---------------------------------------------------------------

const loadBefore = loadavg();
function machineHeader() {
  let chromium = "Debian's Chromium";
  try {
    chromium = execFileSync(chromiumPath(), ['--version'], { encoding: 'utf8', timeout: 30000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch { /* keep the generic name */ }
  const load = (l) => l.map((x) => x.toFixed(2)).join(' / ');
  return `Machine: ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'}; load average (1/5/15 min) ` +
    `${load(loadBefore)} before the run, ${load(loadavg())} after; Node ${process.version}; ${chromium}, headless.`;
}

// ---- 6. while the main thread is busy ---------------------------------------

// The engine test page keeps main busy for MS without yielding while one
// pthread spins; a 1 kHz session samples both. Then stop() while three
// workers spin, and stop() called just before main blocks for 1 s.
async function mainBusyBench() {
  const runs = await repeat(QUICK ? 1 : 3, async () => {
    const config = cfg({ name: 'busy', sampling: { intervalUs: 1000 } });
    const p = await page(`tests/engine/index.html?args=${encodeURIComponent(`busy ${MS} 1`)}&config=${encodeURIComponent(config)}`, 'self.engineReady === true');
    const [s] = await collectTraces(p, { parse: false, timeoutMs: 300000 });
    const a = analyzeTrace(parseTrace(s.bytes));
    const rate = (scopeName) => {
      const t = a.threads.find((x) => x.scopes.some((y) => y.name === scopeName));
      const w = t.scopes.find((y) => y.name === scopeName);
      const n = t.samples.filter((x) => x.ts >= w.ts && x.ts <= w.ts + w.dur && x.stack.includes(scopeName)).length;
      return (100 * n) / (w.dur / 1000);
    };
    const stops = await p.evaluate(async () => {
      Module._engine_start_workers(3000);
      const s1 = Module.wasmtrace.startSession({ name: 'busyworkers' });
      await new Promise((ok) => setTimeout(ok, 200));
      let t0 = performance.now();
      await s1.stop();
      const busyWorkersMs = performance.now() - t0;
      const s2 = Module.wasmtrace.startSession({ name: 'beforeblock' });
      await new Promise((ok) => setTimeout(ok, 50));
      const pending = s2.stop();
      Module._engine_busy_main(1000);
      t0 = performance.now();
      await pending;
      return { busyWorkersMs, afterBlockMs: performance.now() - t0 };
    });
    await p.close();
    return { mainPct: rate('main_busy'), workerPct: rate('worker_spin'), ...stops,
      p50: a.stats.samplerLatenessUs.p50Below, p99: a.stats.samplerLatenessUs.p99Below, max: a.stats.samplerLatenessUs.max,
      ticksMissed: a.stats.ticksMissed };
  });
  return runs;
}

function mainBusySection(runs) {
  const col = (k, d = 1) => cell(runs.map((r) => r[k]), d);
  return `## 6. While the main thread is busy

\`tests/engine\` with \`busy ${MS} 1\`: main computes for ${MS} ms without
returning to its event loop while one pthread spins; a session samples at
1 kHz. Achieved: samples inside each thread's busy scope per ms of that
scope, vs requested (the tests assert only what load cannot change: both
threads sampled at the same ticks, no stall). stop(): with three spinning
workers, and from just before main blocks for 1 s until it resolves after
main is free. ${runs.length} runs.

| main achieved | pthread achieved | lateness p50 ≤ | p99 ≤ | max µs | ticks missed | stop() with busy workers, ms | stop() after main was blocked, ms |
|---|---|---|---|---|---|---|---|
| ${col('mainPct')} % | ${col('workerPct')} % | ${col('p50', 0)} | ${col('p99', 0)} | ${col('max', 0)} | ${col('ticksMissed', 0)} | ${col('busyWorkersMs')} | ${col('afterBlockMs')} |
`;
}

// ---- 1. hot path -------------------------------------------------------

log('building the native benchmark (release)');
execFileSync('cmake', ['-S', root, '-B', join(root, 'build/bench-host'), '-DCMAKE_BUILD_TYPE=Release', '-DWASMTRACE_BUILD_TESTS=OFF'], { stdio: 'ignore' });
execFileSync('cmake', ['--build', join(root, 'build/bench-host'), '-j2'], { stdio: 'ignore' });

const hot = { node: {}, native: {}, chromium: {} };
const MODES = ['empty', 'scope', 'scope_off', 'instant', 'counter'];
log('hot path: Node and native');
// The wasm variants interleaved, one run each per round: plain and
// instrumented, and instrumented with the shadow stack published by atomic
// stores (`atomic`: frame and top; `release_top`: top only), for the ARM
// question (native/src/registry.h; bench/publish.mjs runs only this part).
const CALL_VARIANTS = ['plain', 'instrumented', 'atomic', 'release_top'];
for (const v of CALL_VARIANTS) hot.node[`calls_${v}`] = [];
for (let r = 0; r < RUNS; r++) for (const v of CALL_VARIANTS) hot.node[`calls_${v}`].push(nodeRun(v, 'calls'));
for (const v of ['plain', 'instrumented']) hot.native[`calls_${v}`] = await repeat(RUNS, () => nativeRun(v, 'calls'));
for (const m of MODES) {
  hot.node[m] = await repeat(RUNS, () => nodeRun('plain', m));
  hot.native[m] = await repeat(RUNS, () => nativeRun('plain', m));
}

server = await serve(wasm);
browser = await launch();
const results = {};
try {
  log('hot path: headless Chromium (a session samples at 1 kHz, records category "app")');
  const session = cfg({ name: 'bench', sampling: { intervalUs: 1000 }, categories: ['app'] });
  const inChromium = async (variant, mode) => {
    const p = await page(`bench/calls_${variant}/index.html?args=${mode}%20${ITERS}%207&config=${encodeURIComponent(session)}`, 'self.benchResult');
    const r = await p.evaluate(() => self.benchResult.nsPerOp);
    await p.close();
    return r;
  };
  for (const v of CALL_VARIANTS) hot.chromium[`calls_${v}`] = [];
  for (let r = 0; r < RUNS; r++) for (const v of CALL_VARIANTS) hot.chromium[`calls_${v}`].push(await inChromium(v, 'calls'));
  for (const m of MODES) hot.chromium[m] = await repeat(RUNS, () => inChromium('plain', m));

  // ---- 2 & 3. sampler and output ----------------------------------------
  const sampler = [];
  const RATES = [1000, 200, 100]; // us: 1, 5, 10 kHz
  const THREADS = [1, 4, 8];
  for (const interval of RATES) {
    for (const n of THREADS) {
      log(`sampler: ${1000 / interval} kHz, ${n} busy thread(s)`);
      const runs = await repeat(QUICK ? 1 : 3, () => samplerRun(page, interval, n, MS));
      sampler.push({ interval, n, runs });
    }
  }
  results.sampler = sampler;

  log('output: bytes per sample by format (three concurrent sessions, 1 kHz, 4 busy threads)');
  const formats = await repeat(QUICK ? 1 : 3, async () => {
    const config = JSON.stringify({ sessions: ['chrome', 'firefox', 'folded'].map((format) => ({ name: format, format, sampling: { intervalUs: 1000 }, counters: { enabled: false } })) });
    const p = await page(`bench/sampler/index.html?args=4%20${MS}&config=${encodeURIComponent(config)}`, 'self.benchDone === true');
    const r = await p.evaluate(async () => {
      const out = {};
      for (const s of Module.wasmtrace.getStartupSessions()) {
        await s.stop();
        const st = s.stats();
        out[s.name] = { bytesPerSample: st.bytesWritten / st.samplesWritten, rawBytesPerSample: st.bytesEncoded / st.samplesWritten };
      }
      const m0 = Module.wasmtrace.memory();
      const extra = Module.wasmtrace.startSession({ name: 'probe', sampling: { intervalUs: 1000 } });
      await new Promise((ok) => setTimeout(ok, 300));
      const m1 = Module.wasmtrace.memory();
      await extra.stop();
      out.sessionBytes = m1.mallocBytes - m0.mallocBytes;
      return out;
    });
    await p.close();
    return r;
  });
  results.formats = formats;

  // ---- 4 & 5. startup and end to end --------------------------------------
  log('startup and end to end: the sample app');
  // Each binary with and without a session: the ratio is what recording
  // costs. Compiled-out is the code-generation baseline (no library linked).
  const NO_SESSION = encodeURIComponent(JSON.stringify({ sessions: [] }));
  const appRun = async (variant, { v8profiler = false, session = true } = {}) => {
    let cdp;
    const query = session || variant === 'startup_disabled' ? '' : `?wasmtrace=${NO_SESSION}`;
    const p = await page(`samples/${variant}/index.html${query}`, 'Module.startupMs !== undefined', {
      before: async (pg) => {
        if (!v8profiler) return;
        cdp = await pg.context().newCDPSession(pg);
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
        await cdp.send('Profiler.start');
      },
    });
    const r = await p.evaluate(() => ({ startupMs: Module.startupMs, mainStartMs: Module.mainStartMs, preRunMs: Module.preRunMs }));
    if (cdp) await cdp.send('Profiler.stop');
    if (variant !== 'startup_disabled' && session) {
      const { events, stats } = await stopAndStats(p);
      const profiles = events.filter((e) => e.name === 'Profile');
      r.firstSampleMs = Math.min(...profiles.map((e) => e.args.data.startTime)) / 1000;
      r.workerCreatedMs = stats.workerCreatedUs / 1000;
    }
    await p.close();
    return r;
  };
  // Runs interleave the variants (round robin), so that drift in the
  // machine's load does not favour one: the differences here are a few
  // percent and the run-to-run spread is about ten.
  results.app = {};
  const APP_RUNS = QUICK ? 3 : 7;
  const variants = [
    ['compiled out', 'startup_disabled', {}],
    ['compiled out + V8 CPU profiler, 1 ms', 'startup_disabled', { v8profiler: true }],
    ['scopes, no session', 'startup', { session: false }],
    ['scopes, session at 1 kHz', 'startup', {}],
    ['instrumented (after inlining), no session', 'startup_instrumented', { session: false }],
    ['instrumented (after inlining), session at 1 kHz', 'startup_instrumented', {}]];
  for (let i = 0; i < APP_RUNS; i++) {
    for (const [name, variant, opts] of variants) (results.app[name] ||= []).push(await appRun(variant, opts));
  }

  log('while the main thread is busy: rates, lateness, stop()');
  results.mainBusy = await mainBusyBench();
  log('late ticks: counted vs weighed samples with 4 busy threads (Chromium)');
  results.weights = await repeat(QUICK ? 2 : RUNS, () => weightsRun((path, waitFor) => page(path, waitFor)));
} finally {
  await browser.close();
  await server.close();
}

log('call-heavy code: dropped and partial ticks, phase shares (Node), per-function shares vs truth and V8 (Chromium)');
const callHeavyLoad = loadText();
results.callHeavy = callHeavyFigures(wasm, RUNS);
results.callHeavyGt = await groundTruthFigures(wasm, RUNS);
results.callHeavyLoad = `${callHeavyLoad} before, ${loadText()} after`;
// ---- 8. end to end on zlib and cJSON ------------------------------------------

log('end to end on zlib and cJSON: plain, -finstrument-functions, after inlining (Node, then Chromium)');
const e2e = { node: e2eNode(wasm), chromium: await e2eChromium(wasm) };
for (const [where, res] of Object.entries(e2e)) for (const line of e2eFigures(where, res)) log(line);

log('Firefox beside Chromium: hot path, sampler at 1 and 10 kHz, startup (bench/browsers.mjs)');
const browsers = await browsersBench({ wasm, runs: RUNS, ms: MS, log });
log('live streaming: wasmtrace serve latency and throughput (bench/serve.mjs)');
const served = await serveBench();
log('heap profiling: the shim vs no shim in paired rounds, estimates at 512 KiB vs known bytes (bench/heap.mjs)');
const heap = await heapBench({ wasm, log });
log('wasmtrace diff on real recordings: A/A false alarms, power at +10 % and +20 %, speed (bench/diff.mjs)');
const diffs = await diffBench({ wasm, log });
log('download size: a two-thread app with and without wasmtrace, by component (bench/size.mjs)');
const sizes = sizeBench({ log });
log('the sampler against its floor: ours vs a bare sleeper, alternating rounds at 1 and 10 kHz (bench/floor.mjs)');
const floors = await floorBench({ wasm, log });
log('hooks on a call-dense interpreter: Lua 5.4, plain vs today vs 551744b (bench/interp.mjs)');
const interp = await interpBench({ log });
log('deflate throughput: the library\'s zlib at -O2 and -Os, alternating rounds (bench/deflate.mjs)');
const deflates = await deflateBench({ wasm, log });
log('what wasmtrace adds to startup: navigation -> main() not linked, linked, with a startup session, rotating rounds in Chromium and Firefox (bench/startup.mjs)');
const startups = await startupBench({ wasm, rounds: QUICK ? 8 : 20, log });

// ---- report ---------------------------------------------------------------

const hotRows = [];
for (const where of ['node', 'chromium', 'native']) {
  const h = hot[where];
  hotRows.push(`| ${where} | instrumented call (enter+exit) | ${cell(h.calls_plain)} | ${cell(h.calls_instrumented)} | **${fmt(median(h.calls_instrumented) - median(h.calls_plain))}** |`);
  for (const [v, label] of [['atomic', 'release stores of frame and top'], ['release_top', 'release store of top']]) {
    if (h[`calls_${v}`]) hotRows.push(`| ${where} | instrumented call, ${label} (not shipped) | ${cell(h.calls_plain)} | ${cell(h[`calls_${v}`])} | ${fmt(median(h[`calls_${v}`]) - median(h.calls_plain))} |`);
  }
  for (const m of ['scope', 'scope_off', 'instant', 'counter']) {
    const label = { scope: 'WT_SCOPE (recorded)', scope_off: 'WT_SCOPE, category off', instant: 'WT_INSTANT', counter: 'WT_COUNTER' }[m];
    hotRows.push(`| ${where} | ${label} | ${cell(h.empty)} | ${cell(h[m])} | **${fmt(median(h[m]) - median(h.empty))}** |`);
  }
}
const samplerRows = results.sampler.map(({ interval, n, runs }) => {
  const col = (k, d = 1) => fmt(median(runs.map((r) => r[k])), d);
  return `| ${1000 / interval} kHz | ${n} | ${col('ratePct')} % | ${col('p50', 0)} | ${col('p99', 0)} | ${col('max', 0)} | ${col('ticksMissed', 0)} | ${col('workerCpuPct')} % | ${col('usPerSample', 2)} | ${fmt(median(runs.map((r) => r.encodeSamplesPerS)) / 1e6, 2)} M |`;
});
const f = results.formats;
const fmtRow = (k) => `| ${k} | ${fmt(median(f.map((r) => r[k].bytesPerSample)))} | ${fmt(median(f.map((r) => r[k].rawBytesPerSample)))} |`;
const threadRecord = results.sampler[0].runs[0].threadRecordBytes;
const sessionBytes = median(f.map((r) => r.sessionBytes));
const app = results.app;
const APP_RUNS_DOC = app['compiled out'].length;
const med = (name) => median(app[name].map((r) => r.startupMs));
const appRows = Object.entries(app).map(([name, runs]) => `| ${name} | ${cell(runs.map((r) => r.startupMs), 0)} |`);
const ratio = (a, b) => fmt(med(a) / med(b), 3);
const traced = [...app['scopes, session at 1 kHz'], ...app['instrumented (after inlining), session at 1 kHz']];
const firstFromPreRun = traced.map((r) => r.firstSampleMs - r.preRunMs);
const firstFromCtor = traced.map((r) => r.firstSampleMs - r.workerCreatedMs);
const mainStartBase = median(app['scopes, no session'].map((r) => r.mainStartMs));
const mainStartTraced = median(app['scopes, session at 1 kHz'].map((r) => r.mainStartMs));

const md = `# wasmtrace benchmarks

Written by \`npm run bench\` (\`node bench/run.mjs\`${QUICK ? ', WT_BENCH_QUICK=1' : ''}) and by the
benchmarks' own scripts run alone: each numbered section's first line names
the run that wrote it. This run: ${new Date().toISOString().slice(0, 10)},
Emscripten 3.1.6 (-O2, LTO). ${machineHeader()}
Figures are medians over ${RUNS} runs with the spread (min–max) in parentheses;
every cost is the difference to a baseline measured in the same run. Results
vary by machine: compare the differences and ratios, not the absolute times.
This machine has 2 cores, so runs with more busy threads than cores measure
the OS scheduler as much as wasmtrace.

## 1. Hot path

\`bench/calls.c\`, each figure the median of 7 repetitions of ~30 ms.
Instrumented call: a loop of tiny non-inlined calls built
plain and with \`-finstrument-functions\` (both with \`-flto\`, which lets the
hooks inline). The other rows add one operation to a loop of one call. A
session samples at 1 kHz and records category \`app\` during every run;
\`off\` is a category no session records. A recorded scope, instant or
counter reads the clock (\`performance.now()\` in the browser, which is slow
in cross-origin-isolated pages); an instrumented call and a disabled scope do
not.

| where | operation | baseline ns | with wasmtrace ns | added ns |
|---|---|---|---|---|
${hotRows.join('\n')}

## 2. Sampler

\`bench/sampler\`: N threads spin 8 scopes deep for ${MS} ms while a session samples
them (counters off). Rate: samples per busy thread per second over the
session, vs requested. Lateness: each tick's time against its absolute
deadline, from the busy threads' sample times in the trace (µs; the
session's own stats keep only power-of-two bounds). Worker CPU: time the
wasmtrace worker was awake / session duration (an upper bound of its CPU
time). µs/sample: worker time per thread-sample. Encode: samples per second
through the chrome encoder and gzip (level 1), measured on the worker.

| rate | threads | achieved | lateness p50 | p99 | max | ticks missed | worker CPU | µs/sample | encode samples/s |
|---|---|---|---|---|---|---|---|---|---|
${samplerRows.join('\n')}

## 3. Output size and memory

Three sessions at once (1 kHz, 4 busy threads, same samples), bytes per
sample in the file (gzip level 1) and before compression:

| format | bytes/sample (gzip) | bytes/sample (raw) |
|---|---|---|
${['chrome', 'firefox', 'folded'].map(fmtRow).join('\n')}

Memory: each registered thread costs ${fmt(threadRecord / 1024, 1)} KiB (its record, mostly the
4096-event ring), allocated once; a running session measured ${fmt(sessionBytes / 1024, 0)} KiB of
malloc 300 ms after it started (zlib state and first buffers), and its
buffers grow only up to its \`maxBufferKB\`.

## 4. Startup

- wasmtrace's constructor (before \`main()\`) to the first sample: **${fmt(median(firstFromCtor), 2)} ms**
  (${spread(firstFromCtor)}); nearly all of it is the browser starting the worker thread.
- Runtime start (\`preRun\`, before Emscripten's own JS runtime init) to the first sample:
  ${fmt(median(firstFromPreRun), 2)} ms (${spread(firstFromPreRun)}).
- Page load to \`main()\`, same binary: ${fmt(mainStartTraced, 1)} ms with a startup session vs
  ${fmt(mainStartBase, 1)} ms without (${fmt(mainStartTraced - mainStartBase, 1)} ms added).

## 5. End to end: the sample app

\`samples/startup\`: main thread + 2 pthreads, time from \`main()\` to "startup
complete" in headless Chromium, in ms, ${APP_RUNS_DOC} runs of each, interleaved. Each binary runs with and without a
session (\`{"sessions":[]}\`): their ratio is what recording costs. The
compiled-out build links no wasmtrace at all (a different binary: compare it
only with the V8 row). The V8 CPU profiler is Chrome's own (DevTools protocol
\`Profiler.start\`, 1 ms interval), which samples the main thread only.

| run | startup ms |
|---|---|
${appRows.join('\n')}

- scopes, session at 1 kHz vs no session: **${ratio('scopes, session at 1 kHz', 'scopes, no session')}×**
- instrumented (after inlining, the default), session at 1 kHz vs no session: **${ratio('instrumented (after inlining), session at 1 kHz', 'instrumented (after inlining), no session')}×**
- instrumented (after inlining, no session) vs scopes only (no session): ${ratio('instrumented (after inlining), no session', 'scopes, no session')}× (the hooks themselves)
- V8 CPU profiler at 1 ms vs compiled out: **${ratio('compiled out + V8 CPU profiler, 1 ms', 'compiled out')}×**

${mainBusySection(results.mainBusy)}

${callHeavySection(results.callHeavy, results.callHeavyGt, 'npm run bench', results.callHeavyLoad)}

${e2eSection(e2e, 'npm run bench')}

${weightsSection(results.weights, 'npm run bench')}

${browsersSection(browsers)}

${serveSection(served, 'npm run bench')}

${heapSection(heap, 'npm run bench')}

${diffSection(diffs, 'npm run bench')}

${sizeSection(sizes, 'npm run bench')}

${floorSection(floors, 'npm run bench')}

${interpSection(interp, 'npm run bench')}

${deflateSection(deflates, 'npm run bench')}

${startupSection(startups, 'npm run bench')}`;
mkdirSync(join(root, 'docs'), { recursive: true });
// Every figure by stable name, for scripts (bench/figures.mjs).
writeFigures([...hotAndSamplerFigures(hot, results.sampler), ...callHeavyJson(results.callHeavy.figures),
  ...callHeavyJson(results.callHeavyGt.figures), ...e2eJson(e2e), ...weightsFigures(results.weights), ...browsersJson(browsers), ...serveFigures(served), ...heapFigures(heap), ...diffFigures(diffs), ...sizeFigures(sizes), ...floorFigures(floors), ...interpFigures(interp),
  ...deflateFigures(deflates), ...startupFigures(startups)]);
log('wrote docs/benchmarks.json');
// The sections measured by hand (with their commands) below the marker stay.
const MARKER = '<!-- Sections above: written by `npm run bench`.';
let handWritten = '';
try {
  const old = readFileSync(join(root, 'docs/BENCHMARKS.md'), 'utf8');
  if (old.includes(MARKER)) handWritten = old.slice(old.indexOf(MARKER));
} catch { /* no file yet */ }
// Each numbered section says which run wrote it (bench/figures.mjs).
const stamped = stampSections(md);
writeFileSync(join(root, 'docs/BENCHMARKS.md'), handWritten ? `${stamped}\n\n${handWritten}` : stamped);
writeKeyFigures();
console.log(stamped);
log('wrote docs/BENCHMARKS.md');
