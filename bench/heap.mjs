// Heap profiling (issue 25): what the opt-in allocator shim costs an app,
// and how close its estimates come at the default interval. Headless
// Chromium, five parts:
//
//  0. heap.idle.ns_added — what linking the shim costs an app that is not
//     profiling its heap: a malloc(64) + free pair with no session at all,
//     in a second instance of each build that no heap session ever ran in
//     (the free path's filter not even allocated). Same pairs and rounds
//     as 1; checked each round: the shim linked, nothing sampled.
//  1. heap.fastpath.ns_added — the cost the shim adds to a malloc(64) +
//     free pair that is not sampled. bench/heap.c built with the shim
//     (bench_heap_shim: wasmtrace_heap()) and without (bench_heap_plain:
//     wasmtrace only), both -sMODULARIZE in one page (bench/heap/index.html).
//     After 2 untimed warm-up rounds, every round runs each build once, in
//     an order that alternates, each run under a session
//     {"format":"firefox","heap":{}} (512 KiB, the default) started at
//     runtime in the build it times (the plain build
//     runs the same session; there "heap" finds no shim and does nothing):
//     an untimed settle run, then WT_HEAP_PAIRS pairs (10 M) timed in C on
//     the page's main thread. Before any round each build allocated and
//     kept 16 x 1 MiB under a session, so that in the shim build sampled
//     blocks are live and every free checks the shim's filter (checked
//     each round: the shim's `tracked` count > 0, its interval 524288).
//     The ~1,200 sampled pairs of 10 M (64 B of 512 KiB) are in the figure,
//     amortized. Printed: ns per pair of each build (median, bootstrap 95 %
//     interval) and the per-round paired difference shim − plain.
//  2. heap.microbench.overhead_pct — 4 pthreads each replacing blocks of a
//     working set of 1,024 live blocks at random (free, then malloc of
//     16 B..64 KiB, log-uniform), WT_HEAP_OPS replacements (150,000) per
//     thread per run, timed by a coordinator pthread from its go to the
//     last thread's done; same builds, same rounds and sessions as 1.
//     Overhead: shim / plain time of the same round, minus 1 (median of the
//     paired ratios, bootstrap 95 % interval). Samples dropped by the shim
//     (its queue or set full) during the timed runs are counted and shown.
//  3. heap.accuracy.* — bench/heap_accuracy.c (bench/heap/accuracy.html):
//     sites of known live bytes, each > 1 % of the live total, recorded
//     WT_HEAP_ACCURACY_RUNS times (10) with a session "heap": {} at the
//     default 512 KiB and read with lib/heap.mjs heapView (what `wasmtrace
//     report --heap` prints). Per run: how many sites' live-at-stop
//     estimates are within ±10 % of the truth, how many truths fall inside
//     the reader's own 95 % interval, whether the seeded leak ranks first
//     by live bytes at stop and the burst that makes the peak first at the
//     peak. At 512 KiB a site of small blocks resolves to ±10 % (2.5
//     standard deviations) only from ~300 MiB, so the program's sites are
//     that big or made of at least 12 multi-MiB blocks (its header says
//     why): the heap grows to ~800 MiB.
//  4. heap.e2e.overhead_pct — real third-party code: bench/e2e/workload.c
//     (zlib deflate + inflate of 256 KiB, cJSON parse + print of ~200 KiB:
//     cJSON allocates every node) built with -finstrument-functions-after-
//     inlining (wasmtrace_instrument's default) and linked with the shim
//     (e2e_after_inlining_heap) or without it (e2e_after_inlining), both in
//     bench/e2e/index.html. Each round runs each build once, alternating,
//     under a fresh session {"format":"firefox","heap":{}} (CPU samples at
//     the default 1 kHz too): an untimed settle run, then WT_HEAP_E2E_REPS
//     (3) zlib + cJSON runs, timed. Checked per run: the shim build's trace
//     holds sampled allocations, the other's none. Overhead: shim / plain of
//     the same round, minus 1.
//
//   bash scripts/build.sh wasm && node bench/heap.mjs
//   WT_HEAP_ROUNDS=N        rounds of parts 1 and 2 (default 40; 10 with WT_BENCH_QUICK=1)
//   WT_HEAP_PAIRS=N         pairs per fast-path run (default 10000000)
//   WT_HEAP_OPS=N           replacements per thread per run (default 150000)
//   WT_HEAP_ACCURACY_RUNS=N recordings of part 3 (default 10)
//   WT_HEAP_E2E_REPS=N      zlib + cJSON runs per e2e run (default 3)
//   WT_HEAP_PARTS=idle,fastpath,microbench,accuracy,e2e   (default all five)
//   WT_HEAP_WRITE=0         print only: leave docs/ alone (smoke runs)
//   WT_HEAP_SAVE=file.json  also save the raw results there
// `npm run bench` runs it as its section 12; run alone, it rewrites only
// that section of docs/BENCHMARKS.md and its figures (heap.*) in
// docs/benchmarks.json (bench/figures.mjs).
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectTraces } from '../js/playwright.mjs';
import { heapView } from '../lib/heap.mjs';
import { readProfile } from '../lib/profile.mjs';
import { BENCHMARKS_FILE, figure, MIN_RUNS_FOR_CI, median, medianCI, replaceSection, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const thisFile = fileURLToPath(import.meta.url);
const QUICK = process.env.WT_BENCH_QUICK === '1';
const ROUNDS = Number(process.env.WT_HEAP_ROUNDS || (QUICK ? 10 : 40));
const PAIRS = Number(process.env.WT_HEAP_PAIRS || 10_000_000);
const OPS = Number(process.env.WT_HEAP_OPS || 150_000);
const ACCURACY_RUNS = Number(process.env.WT_HEAP_ACCURACY_RUNS || 10);
const E2E_REPS = Number(process.env.WT_HEAP_E2E_REPS || 3);
const PARTS = (process.env.WT_HEAP_PARTS || 'idle,fastpath,microbench,accuracy,e2e').split(',').map((s) => s.trim()).filter(Boolean);
// Untimed rounds first (the JIT's tiers, the allocator's first growth).
const WARMUP = 2;
// The session every timed run runs under: what a user who wants heap
// profiles writes (the firefox format is the one that holds allocations).
export const SESSION = { name: 'heapbench', output: '/traces/heapbench.json.gz', overwrite: true, format: 'firefox', heap: {} };
export const DEFAULT_INTERVAL = 524288;
const COUNT_KEYS = ['linked', 'interval', 'sampled', 'frees', 'queueFull', 'setFull', 'freesLost', 'tracked'];

// ---- in the page -----------------------------------------------------------

/**
 * Loads both builds and returns what the rounds do with them (its source is
 * sent to the page, so it uses nothing from this module's scope). Setup:
 * in each build, under a session, 16 x 1 MiB kept (hb_keep), then the
 * threads (hb_threads_setup).
 */
export async function pageHarness(session, countKeys) {
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
  const mods = {}, idle = {};
  for (const v of ['plain', 'shim']) {
    mods[v] = await self[`createHeapbench_${v}`]({ wasmtraceConfig: { sessions: [] }, print: () => {}, printErr: () => {} });
    // A second instance that no heap session ever runs in (part "idle").
    idle[v] = await self[`createHeapbench_${v}`]({ wasmtraceConfig: { sessions: [] }, print: () => {}, printErr: () => {} });
  }
  const count = (m) => Object.fromEntries(countKeys.map((k, i) => [k, m._hb_count(i)]));
  const start = async (m) => {
    const s = m.wasmtrace.startSession(session);
    for (let i = 0; i < 5000 && s.state === 'starting'; i++) await sleep(1);
    if (s.state !== 'running') throw new Error(`session ${s.state}: ${s.error}`);
    return s;
  };
  const threads = async (m, ops) => {
    m._hb_threads_start(ops);
    let r;
    while ((r = m._hb_threads_result()) < 0) await sleep(1);
    return r;
  };
  const setup = {};
  for (const [v, m] of Object.entries(mods)) {
    const s = await start(m);
    const tracked = m._hb_keep();
    await s.stop();
    if (m._hb_threads_setup() !== 0) throw new Error(`${v}: hb_threads_setup failed`);
    setup[v] = { kept: tracked, ...count(m) };
  }
  return {
    setup,
    /** One timed run of `kind` in build v under a fresh session, after an
     * untimed settle run (the threads take the session's interval within
     * 64 KiB of their own allocations). */
    async run(v, kind, n) {
      if (kind === 'idle') {
        // No session at all, in an instance no heap session ever ran in:
        // what linking the shim costs an app that is not profiling its heap.
        const m = idle[v];
        m._hb_fastpath(Math.max(1, Math.floor(n / 10)));
        const before = count(m);
        const value = m._hb_fastpath(n);
        return { value, before, after: count(m), stats: {} };
      }
      const m = mods[v];
      const s = await start(m);
      const settle = Math.max(1, Math.floor(n / 10));
      if (kind === 'fastpath') m._hb_fastpath(settle);
      else await threads(m, settle);
      const before = count(m);
      const value = kind === 'fastpath' ? m._hb_fastpath(n) : await threads(m, n);
      const after = count(m);
      await s.stop();
      const st = s.stats();
      return {
        value, before, after,
        stats: { samplesTaken: st.samplesTaken, eventsDropped: st.eventsDropped, samplesDroppedBufferFull: st.samplesDroppedBufferFull, bufferHighWaterBytes: st.bufferHighWaterBytes },
      };
    },
  };
}

// ---- parts 1 and 2: paired rounds -------------------------------------------

const delta = (r, k) => r.after[k] - r.before[k];

/** Checks a run of the shim build took the paths it is meant to measure. */
function checkShimRun(r, kind) {
  if (kind === 'idle') {
    if (r.before.linked !== 1) throw new Error(`idle: the shim build runs without the shim (linked ${r.before.linked})`);
    if (r.before.interval !== 0 || r.after.sampled !== 0 || r.after.tracked !== 0) throw new Error(`idle: a heap session sampled (${JSON.stringify(r.after)})`);
    return;
  }
  if (r.before.linked !== 1) throw new Error(`${kind}: the shim build runs without the shim (linked ${r.before.linked})`);
  if (r.before.interval !== DEFAULT_INTERVAL) throw new Error(`${kind}: heap interval ${r.before.interval}, not ${DEFAULT_INTERVAL}`);
  if (!(r.before.tracked > 0)) throw new Error(`${kind}: no sampled block live: frees would skip their lookup`);
  if (!(delta(r, 'sampled') > 0)) throw new Error(`${kind}: the session sampled nothing during the timed run`);
}

/** Rounds of one part (after WARMUP untimed ones): each round one run per
 * build, the order alternating. */
async function pairedRounds(page, kind, n, rounds, log) {
  const out = { plain: [], shim: [], runs: { plain: [], shim: [] } };
  for (let r = -WARMUP; r < rounds; r++) {
    const order = (r + WARMUP) % 2 ? ['shim', 'plain'] : ['plain', 'shim'];
    for (const v of order) {
      const res = await page.evaluate(({ v, kind, n }) => self.hb.run(v, kind, n), { v, kind, n });
      if (v === 'shim') checkShimRun(res, kind);
      else if (res.before.linked !== 0) throw new Error(`${kind}: the plain build has the shim linked`);
      if (r < 0) continue;
      out[v].push(res.value);
      out.runs[v].push({ sampled: delta(res, 'sampled'), dropped: delta(res, 'queueFull') + delta(res, 'setFull') + delta(res, 'freesLost'), ...res.stats });
    }
    if (log && (r + 1) % Math.max(1, Math.floor(rounds / 5)) === 0) log(`heap ${kind}: round ${r + 1}/${rounds}`);
  }
  return out;
}

// ---- part 4: zlib + cJSON end to end -------------------------------------------

// The two builds of bench/e2e/workload.c (bench/CMakeLists.txt).
export const E2E_BUILDS = { plain: 'after_inlining', shim: 'after_inlining_heap' };

/**
 * Loads both e2e builds (in the page: its source is sent there) and returns
 * run(v, reps): one timed run of build v under a fresh heap session.
 */
export async function e2eHarness(session, builds) {
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
  const mods = {};
  for (const [v, name] of Object.entries(builds)) {
    mods[v] = await self[`createE2e_${name}`]({ wasmtraceConfig: { sessions: [] }, print: () => {}, printErr: () => {} });
    if (mods[v]._e2e_setup() !== 0) throw new Error(`${name}: e2e_setup failed`);
  }
  const checks = {};
  return {
    async run(v, reps) {
      const m = mods[v];
      const s = m.wasmtrace.startSession(session);
      for (let i = 0; i < 5000 && s.state === 'starting'; i++) await sleep(1);
      if (s.state !== 'running') throw new Error(`${v}: session ${s.state}: ${s.error}`);
      m._e2e_run(1); // settle: the threads take the session's interval
      let ms = 0;
      for (let i = 0; i < reps; i++) {
        for (const k of [0, 1]) {
          const t0 = performance.now();
          const sum = m._e2e_run(k);
          ms += performance.now() - t0;
          // Same input, same output, whatever the build.
          if (!sum || (checks[k] !== undefined && checks[k] !== sum)) throw new Error(`${v}: run ${k} checksum ${sum}, expected ${checks[k]}`);
          checks[k] = sum;
        }
      }
      await s.stop();
      const st = s.stats();
      const trace = JSON.parse(await s.getTraceBlob().text());
      const allocations = trace.threads.reduce((n, t) => n + (t.nativeAllocations?.length ?? 0), 0);
      return { ms, allocations, eventsDropped: st.eventsDropped, samplesDroppedBufferFull: st.samplesDroppedBufferFull };
    },
  };
}

/** Paired rounds of part 4, after WARMUP untimed ones. */
async function e2eRounds(page, rounds, reps, log) {
  const out = { plain: [], shim: [], runs: { plain: [], shim: [] } };
  for (let r = -WARMUP; r < rounds; r++) {
    const order = (r + WARMUP) % 2 ? ['shim', 'plain'] : ['plain', 'shim'];
    for (const v of order) {
      const res = await page.evaluate(({ v, reps }) => self.he2e.run(v, reps), { v, reps });
      if (v === 'shim' && !(res.allocations > 0)) throw new Error('e2e: the shim build\'s trace has no sampled allocation');
      if (v === 'plain' && res.allocations !== 0) throw new Error(`e2e: the build without the shim recorded ${res.allocations} allocations`);
      if (r < 0) continue;
      out[v].push(res.ms);
      out.runs[v].push(res);
    }
    if (log && (r + 1) % Math.max(1, Math.floor(rounds / 5)) === 0) log(`heap e2e: round ${r + 1}/${rounds}`);
  }
  return out;
}

// ---- part 3: accuracy -------------------------------------------------------

/** One recording of bench/heap_accuracy.c: per-site estimates against the truth. */
export async function accuracyRun(browser, url) {
  const p = await browser.newPage();
  try {
    await p.goto(url);
    await p.waitForFunction('self.heapDone === true', null, { timeout: 300000, polling: 50 });
    const expect = await p.evaluate(() => self.heapExpect);
    const [s] = await collectTraces(p, { parse: false, timeoutMs: 300000, jsProfile: false });
    if (s.state !== 'stopped') throw new Error(`accuracy: session ${s.state}: ${s.error ?? ''}`);
    return accuracyOf(readProfile(s.bytes), expect);
  } finally {
    await p.close();
  }
}

/** Per-site live estimates (summed over threads) against expect. */
export function accuracyOf(profile, expect) {
  const view = heapView(profile);
  const bySite = new Map();
  for (const s of view.sites) {
    const a = bySite.get(s.site) || { site: s.site, live: 0, liveVar: 0, peak: 0 };
    a.live += s.live;
    a.liveVar += s.liveVar;
    a.peak += s.peak;
    bySite.set(s.site, a);
  }
  const sites = Object.entries(expect.live).map(([site, truth]) => {
    const a = bySite.get(site) || { live: 0, liveVar: 0 };
    const half = 1.96 * Math.sqrt(a.liveVar);
    return { site, truth, estimate: a.live, errPct: (100 * (a.live - truth)) / truth, within10: Math.abs(a.live - truth) <= 0.1 * truth, inCI: Math.abs(a.live - truth) <= half, halfPct: (100 * half) / truth };
  });
  // Named sites only: '(no stack)' (allocations on an empty shadow stack) is no site.
  const named = [...bySite.values()].filter((s) => s.site !== '(no stack)');
  const byLive = [...named].sort((a, b) => b.live - a.live);
  const byPeak = [...named].sort((a, b) => b.peak - a.peak);
  const h = profile.stats?.heap ?? {};
  return {
    sites,
    within: sites.filter((s) => s.within10).length,
    inCI: sites.filter((s) => s.inCI).length,
    all: sites.every((s) => s.within10),
    maxAbsErrPct: Math.max(...sites.map((s) => Math.abs(s.errPct))),
    leakFirst: byLive[0]?.site === expect.leakSite,
    leakRank: byLive.findIndex((s) => s.site === expect.leakSite) + 1,
    peakFirst: byPeak[0]?.site === expect.peakSite,
    peakFirstSite: byPeak[0]?.site ?? null,
    peakBytes: view.peak.bytes,
    peakSiteEstimate: bySite.get(expect.peakSite)?.peak ?? 0,
    peakTruth: expect.peakBytes,
    allocations: view.allocations,
    frees: view.frees,
    interval: view.interval,
    dropped: h.dropped ?? null,
    withoutThread: h.withoutThread ?? null,
  };
}

// ---- the whole benchmark ------------------------------------------------------

/**
 * Runs the parts asked for in one headless Chromium, serving the wasm build
 * tree. Returns { fastpath, microbench, accuracy, e2e, setup, machine } (the
 * parts not run are missing).
 */
export async function heapBench({ wasm, rounds = ROUNDS, pairs = PAIRS, ops = OPS, accuracyRuns = ACCURACY_RUNS, e2eReps = E2E_REPS, parts = PARTS, log = () => {} } = {}) {
  const { launch } = await import('../lib/browser.mjs');
  const { serve } = await import('../lib/serve.mjs');
  const server = await serve(wasm);
  const browser = await launch();
  const res = { rounds, pairs, ops, loadBefore: loadavg() };
  try {
    if (parts.includes('idle') || parts.includes('fastpath') || parts.includes('microbench')) {
      const page = await browser.newPage();
      await page.goto(`${server.url}bench/heap/index.html`);
      res.setup = await page.evaluate(async ({ fn, session, keys }) => {
        // eslint-disable-next-line no-new-func
        const h = new Function(`return (${fn})`)();
        self.hb = await h(session, keys);
        return self.hb.setup;
      }, { fn: pageHarness.toString(), session: SESSION, keys: COUNT_KEYS });
      if (!(res.setup.shim.kept > 0)) throw new Error('setup: no sampled block live in the shim build after hb_keep');
      if (parts.includes('idle')) {
        log(`heap idle: ${rounds} paired rounds of ${pairs} malloc(64)+free pairs, no heap session`);
        res.idle = await pairedRounds(page, 'idle', pairs, rounds, log);
      }
      if (parts.includes('fastpath')) {
        log(`heap fast path: ${rounds} paired rounds of ${pairs} malloc(64)+free pairs`);
        res.fastpath = await pairedRounds(page, 'fastpath', pairs, rounds, log);
      }
      if (parts.includes('microbench')) {
        log(`heap microbench: ${rounds} paired rounds, 4 pthreads x ${ops} replacements`);
        res.microbench = await pairedRounds(page, 'microbench', ops, rounds, log);
      }
      await page.close();
    }
    if (parts.includes('accuracy')) {
      res.accuracy = [];
      for (let i = 0; i < accuracyRuns; i++) {
        const a = await accuracyRun(browser, `${server.url}bench/heap/accuracy.html`);
        res.accuracy.push(a);
        log(`heap accuracy: run ${i + 1}/${accuracyRuns}: ${a.within}/${a.sites.length} sites within ±10 % (max |error| ${a.maxAbsErrPct.toFixed(1)} %), leak first ${a.leakFirst}, peak's site first ${a.peakFirst}`);
      }
    }
    if (parts.includes('e2e')) {
      const page = await browser.newPage();
      await page.goto(`${server.url}bench/e2e/index.html`);
      await page.evaluate(async ({ fn, session, builds }) => {
        // eslint-disable-next-line no-new-func
        const h = new Function(`return (${fn})`)();
        self.he2e = await h(session, builds);
      }, { fn: e2eHarness.toString(), session: { ...SESSION, name: 'heape2e', output: '/traces/heape2e.json', compression: 'none' }, builds: E2E_BUILDS });
      log(`heap e2e: ${rounds} paired rounds of ${e2eReps} zlib + cJSON runs`);
      res.e2e = await e2eRounds(page, rounds, e2eReps, log);
      res.e2eReps = e2eReps;
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  res.loadAfter = loadavg();
  return res;
}

// ---- figures -----------------------------------------------------------------

const pct = (r) => 100 * (r - 1);

/**
 * The figures by stable name, for docs/benchmarks.json:
 *   heap.idle.ns_added              ns the shim adds to a malloc(64)+free
 *                                   pair with no heap session, in an
 *                                   instance no heap session ever ran in
 *                                   (median of per-round differences)
 *   heap.idle.plain.ns_per_pair, heap.idle.shim.ns_per_pair
 *   heap.fastpath.ns_added          ns the shim adds to a malloc(64)+free
 *                                   pair (median of per-round differences
 *                                   shim − plain, sampled blocks live)
 *   heap.fastpath.plain.ns_per_pair, heap.fastpath.shim.ns_per_pair
 *   heap.microbench.overhead_pct    4 malloc-heavy pthreads: shim with a
 *                                   heap session at 512 KiB vs no shim
 *   heap.e2e.overhead_pct           zlib + cJSON (instrumented after
 *                                   inlining): shim with a heap session at
 *                                   512 KiB vs no shim, same session
 *   heap.accuracy.sites_within_10pct   recordings (of n) in which every
 *                                   site's live estimate is within ±10 %
 *                                   (target: 9 of 10)
 *   heap.accuracy.max_abs_error_pct per recording, the largest |error| of
 *                                   its sites (median over recordings)
 *   heap.accuracy.leak_ranks_first  recordings in which the seeded leak
 *                                   ranks first by live bytes (target: all)
 *   heap.accuracy.peak_site_first   recordings in which the burst that
 *                                   makes the peak is first at the peak
 *                                   (target: all)
 */
export function heapFigures(res) {
  const out = [];
  if (res.idle) {
    const f = res.idle;
    out.push(figure('heap.idle.ns_added', 'ns', f.shim.map((x, i) => x - f.plain[i]), { target: '<= 1' }));
    out.push(figure('heap.idle.plain.ns_per_pair', 'ns', f.plain));
    out.push(figure('heap.idle.shim.ns_per_pair', 'ns', f.shim));
  }
  if (res.fastpath) {
    const f = res.fastpath;
    out.push(figure('heap.fastpath.ns_added', 'ns', f.shim.map((x, i) => x - f.plain[i]), { target: '<= 2' }));
    out.push(figure('heap.fastpath.plain.ns_per_pair', 'ns', f.plain));
    out.push(figure('heap.fastpath.shim.ns_per_pair', 'ns', f.shim));
  }
  if (res.microbench) {
    const m = res.microbench;
    out.push(figure('heap.microbench.overhead_pct', '%', m.shim.map((x, i) => x / m.plain[i]), { scale: pct, target: '<= 5' }));
  }
  if (res.e2e) {
    const e = res.e2e;
    out.push(figure('heap.e2e.overhead_pct', '%', e.shim.map((x, i) => x / e.plain[i]), { scale: pct, target: '<= 1' }));
  }
  if (res.accuracy?.length) {
    const a = res.accuracy;
    const n = a.length;
    const count = (name, k, target) => figure(name, 'runs', { median: a.filter((r) => r[k]).length, n }, { target });
    out.push(count('heap.accuracy.sites_within_10pct', 'all', `>= ${Math.ceil(0.9 * n)}`));
    out.push(figure('heap.accuracy.max_abs_error_pct', '%', a.map((r) => r.maxAbsErrPct), { target: '<= 10' }));
    out.push(count('heap.accuracy.leak_ranks_first', 'leakFirst', `>= ${n}`));
    out.push(count('heap.accuracy.peak_site_first', 'peakFirst', `>= ${n}`));
  }
  return out;
}

/** The printed figures: `<name> <median> [95% CI lo, hi] n=`. */
export function heapLines(res) {
  return heapFigures(res).map((f) => {
    const d = Math.abs(f.value) >= 10 ? 1 : 2;
    const ci = f.ci95 ? ` [95% CI ${f.ci95[0].toFixed(d)}, ${f.ci95[1].toFixed(d)}]` : '';
    const of = f.unit === 'runs' ? ` of ${f.n}` : '';
    return `${f.name} ${f.value.toFixed(f.unit === 'runs' ? 0 : d)}${f.unit === 'runs' ? '' : ` ${f.unit}`}${of}${ci} n=${f.n}${f.target ? ` (target ${f.target})` : ''}`;
  });
}

// ---- report ------------------------------------------------------------------

const f2 = (x) => x.toFixed(2);
const f1 = (x) => x.toFixed(1);
// A median with its bootstrap interval, or with the min–max when there are
// too few rounds for an interval (bench/figures.mjs, MIN_RUNS_FOR_CI).
const ciText = (xs, fmt = f2, unit = '', scale = (x) => x) => {
  const c = medianCI(xs);
  if (xs.length < MIN_RUNS_FOR_CI) {
    const lo = scale(Math.min(...xs)), hi = scale(Math.max(...xs));
    return `**${fmt(scale(c.median))}${unit}** (n = ${xs.length}, too few for an interval; range ${fmt(Math.min(lo, hi))} – ${fmt(Math.max(lo, hi))}${unit})`;
  }
  return `**${fmt(scale(c.median))}${unit}** (95 % CI ${fmt(scale(c.lo))} – ${fmt(scale(c.hi))}${unit})`;
};
// What the session's own stats say it dropped (its buffers full), summed.
const sessionDrops = (runs) => sum(runs.map((r) => (r.eventsDropped || 0) + (r.samplesDroppedBufferFull || 0)));
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const mib = (b) => (b / 1048576).toFixed(1);

/** Section 12 of docs/BENCHMARKS.md. */
export function heapSection(res, command) {
  const parts = [];
  if (res.idle) {
    const f = res.idle;
    parts.push(`### The shim linked, no heap session

What an app linked with the shim pays while it is not profiling its heap: the same
${res.pairs.toLocaleString('en')} \`malloc(64)\` + \`free\` pairs, with no session at all, in a second instance of each
build that no heap session ever ran in (the free path's filter not even allocated: a free
loads one pointer); ${f.plain.length} rounds, each one run of each build in alternating order, after an untimed settle run.

| build | ns per pair (median, 95 % CI) |
|---|---|
| without the shim | ${ciText(f.plain)} |
| with the shim, no heap session | ${ciText(f.shim)} |
| **added by the shim** (paired per round) | ${ciText(f.shim.map((x, i) => x - f.plain[i]))} |
`);
  }
  if (res.fastpath) {
    const f = res.fastpath;
    const d = f.shim.map((x, i) => x - f.plain[i]);
    const shimRuns = f.runs.shim;
    parts.push(`### The fast path: a malloc(64) + free pair

\`bench/heap.c\` \`hb_fastpath\`: ${res.pairs.toLocaleString('en')} pairs of \`malloc(64)\` and \`free\` on the page's main
thread, built with the shim (\`wasmtrace_heap()\`) and without it (\`wasmtrace\` only), both
loaded in one page; ${f.plain.length} rounds, each one run of each build in alternating order,
each run under its own session \`{"format":"firefox","heap":{}}\` (512 KiB) after an untimed
settle run. Sampled blocks were live in every shim run (${res.setup.shim.kept} of the 16 x 1 MiB kept at setup
were sampled), so every free checked the shim's filter (one load; the set only for the sampled); ${f1(median(shimRuns.map((r) => r.sampled)))} pairs per run were
sampled (median), their cost amortized in the figure; the shim dropped ${sum(shimRuns.map((r) => r.dropped))} samples in all, the sessions ${sessionDrops([...shimRuns, ...f.runs.plain])} events.

| build | ns per pair (median, 95 % CI) |
|---|---|
| without the shim | ${ciText(f.plain)} |
| with the shim, heap session at 512 KiB | ${ciText(f.shim)} |
| **added by the shim** (paired per round) | ${ciText(d)} |
`);
  }
  if (res.microbench) {
    const m = res.microbench;
    const r = m.shim.map((x, i) => x / m.plain[i]);
    const shimRuns = m.runs.shim;
    const dropped = sum(shimRuns.map((x) => x.dropped));
    parts.push(`### Four malloc-heavy pthreads

\`bench/heap.c\` \`hb_threads_*\`: 4 pthreads, each replacing blocks of its working set of 1,024 live
blocks at random (free, then \`malloc\` of 16 B..64 KiB, log-uniform by power of two; first and
last bytes written), ${res.ops.toLocaleString('en')} replacements per thread per run, timed by a coordinator
pthread; same builds, rounds and sessions as above (${m.plain.length} rounds). The shim sampled
${f1(median(shimRuns.map((x) => x.sampled)))} allocations per run (median) and dropped ${dropped} in all (queue or set full, or a free
lost); the sessions dropped ${sessionDrops([...shimRuns, ...m.runs.plain])} events (buffers full).

| build | ms per run (median, 95 % CI) |
|---|---|
| without the shim | ${ciText(m.plain)} |
| with the shim, heap session at 512 KiB | ${ciText(m.shim)} |

Overhead (shim / plain of the same round, minus 1): ${ciText(r, f2, ' %', pct)}.
`);
  }
  if (res.e2e) {
    const e = res.e2e;
    const r = e.shim.map((x, i) => x / e.plain[i]);
    parts.push(`### zlib + cJSON end to end

\`bench/e2e/workload.c\` (zlib: deflate + inflate of a 256 KiB text; cJSON: parse + print of a ~200 KiB
document, a node allocated per value), instrumented after inlining (\`wasmtrace_instrument\`'s default),
built with the shim and without it, both in one page; ${e.plain.length} rounds, each one run of each build in
alternating order, each run under its own session \`{"format":"firefox","heap":{}}\` (512 KiB; CPU samples at 1 kHz)
after an untimed settle run, ${res.e2eReps} zlib + cJSON runs timed. The shim build's traces held
${f1(median(e.runs.shim.map((x) => x.allocations)))} sampled allocations and frees per run (median), the other's none;
the sessions dropped ${sessionDrops([...e.runs.shim, ...e.runs.plain])} events.

| build | ms per run (median, 95 % CI) |
|---|---|
| without the shim | ${ciText(e.plain)} |
| with the shim, heap session at 512 KiB | ${ciText(e.shim)} |

Overhead (shim / plain of the same round, minus 1): ${ciText(r, f2, ' %', pct)}.
`);
  }
  if (res.accuracy?.length) {
    const a = res.accuracy;
    const names = a[0].sites.map((s) => s.site);
    const rows = a.map((r, i) => `| ${i + 1} | ${r.sites.map((s) => `${s.errPct >= 0 ? '+' : ''}${f1(s.errPct)}`).join(' | ')} | ${r.within}/${r.sites.length} | ${r.inCI}/${r.sites.length} | ${r.leakFirst ? 'yes' : `no (rank ${r.leakRank})`} | ${r.peakFirst ? 'yes' : `no (${r.peakFirstSite})`} | ${mib(r.peakBytes)} | ${r.dropped ? sum(Object.values(r.dropped)) : '–'} |`);
    const truth = a[0].sites.map((s) => `\`${s.site}\` ${mib(s.truth)} MiB`).join(', ');
    const count = (k) => a.filter((r) => r[k]).length;
    parts.push(`### Accuracy at the default interval (512 KiB)

\`bench/heap_accuracy.c\`, recorded ${a.length} times (a fresh page each) with a session
\`{"format":"firefox","heap":{}}\` and read with \`lib/heap.mjs\` \`heapView\` (\`wasmtrace report --heap\`).
Live at stop, the truth (bytes asked for): ${truth}; every site > 1 % of the live total.
A site of blocks much smaller than the interval has a relative standard deviation of
sqrt(512 KiB / its bytes) — 11 % at 40 MiB — so the small-block sites are hundreds of MiB
(the seeded leak: ${mib(a[0].sites.find((x) => x.site === 'leak_requests')?.truth ?? 0)} MiB of 64 B..8 KiB blocks; the peak: ${mib(a[0].peakTruth)} MiB of 16 KiB
blocks, freed before the leak grows) and the others at least 12 multi-MiB blocks, which are
nearly always sampled (a site of k of them is off by ~1/k per block missed).
Cells: error of the live estimate, %; "in 95 % CI": truths inside the reader's own interval.

| run | ${names.map((n) => `\`${n}\``).join(' | ')} | within ±10 % | in 95 % CI | leak first | peak's site first | peak MiB (est.) | dropped |
|---|${names.map(() => '---|').join('')}---|---|---|---|---|---|
${rows.join('\n')}
| ±95 % (reader's, median) | ${a[0].sites.map((_, j) => `±${f1(median(a.map((r) => r.sites[j].halfPct)))}`).join(' | ')} | | | | | | |

- runs with every site within ±10 %: **${count('all')} of ${a.length}** (issue 25 wants >= 9 of 10)
- the seeded leak (\`leak_requests\`) ranks first by live bytes: **${count('leakFirst')} of ${a.length}**
- the burst that makes the peak (\`peak_burst\`) is first at the peak: **${count('peakFirst')} of ${a.length}**
- largest |error| per run: median ${f1(median(a.map((r) => r.maxAbsErrPct)))} % (${f1(Math.min(...a.map((r) => r.maxAbsErrPct)))}–${f1(Math.max(...a.map((r) => r.maxAbsErrPct)))} %)
`);
  }
  const load = (l) => l.map((x) => x.toFixed(2)).join(' / ');
  return `## 12. Heap profiling: the allocator shim's cost and its estimates

\`${command}\` (\`bench/heap.mjs\`), headless Chromium. ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'};
load average ${load(res.loadBefore)} before, ${load(res.loadAfter)} after; Node ${process.version}.

${parts.join('\n')}`;
}

/** Replaces (or adds, before the hand-written sections) section 12 of docs/BENCHMARKS.md. */
export function writeSection(section, file = BENCHMARKS_FILE) {
  replaceSection('## 12. Heap profiling', stampSections(section), file);
}

// Alone: node bench/heap.mjs
if (process.argv[1] && resolve(process.argv[1]) === thisFile) {
  const wasm = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
  const t0 = Date.now();
  const log = (m) => console.error(`wasmtrace heap bench [${((Date.now() - t0) / 1000).toFixed(0)} s]: ${m}`);
  const res = await heapBench({ wasm, log });
  if (process.env.WT_HEAP_SAVE) writeFileSync(process.env.WT_HEAP_SAVE, JSON.stringify(res));
  for (const l of heapLines(res)) console.log(l);
  const text = heapSection(res, 'node bench/heap.mjs');
  if (process.env.WT_HEAP_WRITE !== '0') {
    writeFigures(heapFigures(res));
    writeSection(text);
  }
  console.log(text);
}
