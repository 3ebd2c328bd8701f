// End to end on real third-party code: what -finstrument-functions and
// -finstrument-functions-after-inlining cost, and which frames each shows.
// bench/e2e/workload.c (zlib: deflate + inflate of a 256 KiB text corpus;
// cJSON: parse + print of a ~200 KiB document) is built three ways —
// plain, full (-finstrument-functions), after_inlining — all linked with
// wasmtrace, each with a startup session sampling at 1 kHz. One Node
// process (and one headless Chromium page) loads all three builds and runs
// many short runs, alternating the builds in a rotating order inside each
// round; per round the ratio instrumented / plain of the round's total time
// (zlib + cJSON) is one paired sample. Printed: the median of the paired
// ratios with a bootstrap 95 % confidence interval (of the median), per
// workload too, and the distinct named frames each build's trace shows.
// Then the plain build alone (a fresh process / page, no startup session)
// toggled at runtime between nothing, a 1 kHz wasmtrace session and (in
// Chromium) Chrome's V8 CPU profiler at 1 ms, each round one run in each
// state in a rotating order: e2e.session_1khz.overhead_pct and
// e2e.v8_cpu_profiler.overhead_pct, on 1 thread and on 2 pthreads; more
// rounds while an interval is wider than ±1 % and the time budget allows.
// Every figure also goes to docs/benchmarks.json (bench/figures.mjs).
//   bash scripts/build.sh wasm && node bench/e2e.mjs
//   (WT_E2E_ROUNDS=N: N rounds of each part, no extension; default 150
//   rounds of the six builds, batches of 100 toggle rounds)
// `npm run bench` runs it as its section 8; run alone, it rewrites only
// that section of docs/BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTree, figure, median, medianCI, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
// Each with -flto (as the library) and without (_nolto: the hooks stay calls).
export const VARIANTS = ['plain', 'full', 'after_inlining', 'plain_nolto', 'full_nolto', 'after_inlining_nolto'];
const baseOf = (v) => (v.endsWith('_nolto') ? 'plain_nolto' : 'plain');
const KINDS = ['zlib', 'cjson'];
const CONFIG = { sessions: [{ name: 'e2e', output: '/traces/e2e.json', compression: 'none', sampling: { intervalUs: 1000 } }] };

/**
 * The measurement, the same in Node and in the page (its source is sent to
 * page.evaluate, so it uses nothing from this module's scope).
 * factories: { variant: Emscripten -sMODULARIZE factory }; returns
 * { times: { kind: { variant: [ms per run] } }, frames: { variant: [names] }, checks }.
 */
export async function measure(factories, config, rounds, warmup) {
  const variants = Object.keys(factories);
  const mods = {};
  for (const v of variants) {
    mods[v] = await factories[v]({ wasmtraceConfig: config, print: () => {} });
    if (mods[v]._e2e_setup() !== 0) throw new Error(`${v}: e2e_setup failed`);
  }
  const sessionOf = (v) => mods[v].wasmtrace.getStartupSessions()[0];
  // Wait until every session samples.
  for (let i = 0; i < 500 && variants.some((v) => sessionOf(v).state !== 'running'); i++) await new Promise((ok) => setTimeout(ok, 10));
  for (const v of variants) if (sessionOf(v).state !== 'running') throw new Error(`${v}: session ${sessionOf(v).state}: ${sessionOf(v).error}`);
  const kinds = ['zlib', 'cjson'];
  const times = {};
  for (const k of kinds) times[k] = Object.fromEntries(variants.map((v) => [v, []]));
  const checks = {};
  for (let r = -warmup; r < rounds; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + (r + warmup)) % variants.length];
      for (let k = 0; k < kinds.length; k++) {
        const t0 = performance.now();
        const sum = mods[v]._e2e_run(k);
        const t = performance.now() - t0;
        if (!sum) throw new Error(`${v}: ${kinds[k]} run failed`);
        // Same input, same output, whatever the build.
        if (checks[kinds[k]] === undefined) checks[kinds[k]] = sum;
        else if (checks[kinds[k]] !== sum) throw new Error(`${v}: ${kinds[k]} checksum ${sum} != ${checks[kinds[k]]}`);
        if (r >= 0) times[kinds[k]][v].push(t);
      }
    }
    // Let the page's event loop run now and then (the session's output
    // is proxied to this thread).
    if (r % 10 === 0) await new Promise((ok) => setTimeout(ok, 0));
  }
  const frames = {};
  for (const v of variants) {
    const s = sessionOf(v);
    await s.stop();
    const trace = JSON.parse(await s.getTraceBlob().text());
    const names = new Set();
    for (const e of trace.traceEvents || trace) {
      const nodes = e.name === 'ProfileChunk' ? e.args?.data?.cpuProfile?.nodes : null;
      for (const n of nodes || []) {
        const name = n.callFrame?.functionName;
        if (name && !/^\(|^wasm-(function|table)\[/.test(name)) names.add(name);
      }
    }
    frames[v] = [...names].sort();
  }
  return { times, frames, checks };
}

// ---- statistics ------------------------------------------------------------

export { medianCI };

/** Paired ratios variant / plain: per workload, and of the round's total. */
export function ratios(times) {
  const out = {};
  for (const v of VARIANTS.filter((x) => baseOf(x) !== x)) {
    const b = baseOf(v);
    const per = {};
    for (const k of KINDS) per[k] = medianCI(times[k][v].map((t, i) => t / times[k][b][i]));
    const total = times.zlib[v].map((t, i) => (t + times.cjson[v][i]) / (times.zlib[b][i] + times.cjson[b][i]));
    out[v] = { total: medianCI(total), ...per };
  }
  return out;
}

// ---- with and without a profiler: one plain instance, toggled -------------

// The states of the toggle rounds: nothing running; a wasmtrace session at
// 1 kHz started at runtime (Module.wasmtrace.startSession) and stopped
// after the run; Chrome's V8 CPU profiler at 1 ms (CDP; Chromium only); the
// JS Self-Profiling API at its 10 ms on the page's main thread, what the
// shim starts for "main (JS)" (Chromium only; the page is served with
// Document-Policy: js-profiling, and the one the pre-js started at load is
// stopped before the rounds, so that 'none' runs without it).
export const TOGGLE_STATES = { node: ['none', 'session'], chromium: ['none', 'session', 'v8', 'jsprof'] };
const SESSION_1KHZ = { name: 's1k', output: '/traces/s1k.json', compression: 'none', overwrite: true, sampling: { intervalUs: 1000 } };
// Before every timed run, in every state alike, an untimed cJSON run: what
// a starting session does on its worker (opening the file, first buffers)
// is over before the timed runs, which then see a session in its steady
// state, and the process is on a core when they start (an idle wait here
// instead hands the core to other jobs: on a loaded machine the next run
// then varies by a factor of 2).
const SETTLE_RUNS = 1;

/**
 * The plain build with no startup session, and what the toggle rounds do
 * with it; the same in Node and in the page (its source is sent to the
 * page, so it uses nothing from this module's scope).
 */
export async function toggleHarness(factory, sessionConfig, settleRuns) {
  const mod = await factory({ wasmtraceConfig: { sessions: [] }, print: () => {} });
  if (mod._e2e_setup() !== 0) throw new Error('plain: e2e_setup failed');
  // The two pool threads (registered: wasmtrace's worker runs from startup).
  if (mod._e2e_threads_setup() !== 0) throw new Error('plain: e2e_threads_setup failed');
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
  let session = null;
  const totals = { sessions: 0, samples: 0, jsProfiles: 0, jsSamples: 0 };
  // The page's own JS profile (js/wasmtrace_startup.js), if the document allows one: stopped.
  if (typeof mod.wasmtrace.jsProfile === 'function') await mod.wasmtrace.jsProfile();
  let profiler = null;
  return {
    startJsProfiler() {
      profiler = new self.Profiler({ sampleInterval: 10, maxBufferSize: 60000 });
    },
    async stopJsProfiler() {
      const trace = await profiler.stop();
      totals.jsProfiles++;
      totals.jsSamples += trace.samples.length;
      profiler = null;
    },
    async startSession() {
      session = mod.wasmtrace.startSession(sessionConfig);
      for (let i = 0; i < 1000 && session.state === 'starting'; i++) await sleep(1);
      if (session.state !== 'running') throw new Error(`session ${session.state}: ${session.error}`);
    },
    async stopSession() {
      await session.stop();
      totals.sessions++;
      totals.samples += session.stats().samplesTaken;
      session = null;
    },
    settle() {
      for (let i = 0; i < settleRuns; i++) mod._e2e_run(1);
    },
    /** One zlib and one cJSON run on this thread, then both at once on two
     * pthreads: [ms, ms, ms] and their checksums. */
    run() {
      const times = [];
      const sums = [];
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now();
        sums.push(k < 2 ? mod._e2e_run(k) : mod._e2e_run_threads());
        times.push(performance.now() - t0);
        if (!sums[k]) throw new Error(`plain: run ${k} failed`);
      }
      return { times, sums };
    },
    totals: () => totals,
  };
}

/**
 * Rounds of the toggle states in a rotating order (each state takes each
 * position equally often); `ops` starts and stops a state and runs the
 * workload once. Appends to `into` ({ state: { zlib: [], cjson: [] } })
 * when given, so that a run can be extended by more rounds.
 */
export async function toggleRounds(ops, states, rounds, warmup, into = null) {
  const times = into || Object.fromEntries(states.map((s) => [s, { zlib: [], cjson: [], threads: [] }]));
  let sums = null;
  for (let r = -warmup; r < rounds; r++) {
    for (let i = 0; i < states.length; i++) {
      const s = states[(i + r + warmup) % states.length];
      await ops.start(s);
      const res = await ops.run();
      await ops.stop(s);
      const key = res.sums.join(',');
      if (sums === null) sums = key;
      else if (sums !== key) throw new Error(`${s}: checksums ${key} != ${sums}`);
      if (r >= 0) {
        times[s].zlib.push(res.times[0]);
        times[s].cjson.push(res.times[1]);
        times[s].threads.push(res.times[2]);
      }
    }
  }
  return times;
}

/** Paired ratios state / none of the round's single-threaded total
 * (zlib + cJSON, `single`) and of its two-thread run (`threads`). */
export function toggleRatios(times) {
  const out = {};
  const total = (s, i) => times[s].zlib[i] + times[s].cjson[i];
  for (const s of Object.keys(times).filter((x) => x !== 'none')) {
    out[s] = {
      single: medianCI(times[s].zlib.map((_, i) => total(s, i) / total('none', i))),
      threads: medianCI(times[s].threads.map((t, i) => t / times.none.threads[i])),
    };
  }
  return out;
}

// The session row's interval should resolve 1 %: when its half-width is
// above this (in ratio units), the run is extended while time allows.
const WANT_HALF_WIDTH = 0.01;
const halfWidth = (c) => (c.hi - c.lo) / 2;

/**
 * Runs batches of toggle rounds until the widest interval of the states
 * is within ±1 % or the time budget is spent (one batch only when the
 * rounds are fixed by WT_E2E_ROUNDS). Returns the times and the batches.
 */
async function toggleAdaptive(ops, states, batch, budgetMs, fixed, label) {
  const t0 = Date.now();
  let times = await toggleRounds(ops, states, batch, WARMUP);
  let batches = 1;
  for (;;) {
    const r = toggleRatios(times);
    const widest = Math.max(...Object.values(r).flatMap((x) => [halfWidth(x.single), halfWidth(x.threads)]));
    if (widest <= WANT_HALF_WIDTH || fixed) break;
    const perBatch = (Date.now() - t0) / batches;
    if (Date.now() - t0 + perBatch > budgetMs) {
      console.error(`wasmtrace e2e (${label}): an interval is wider than ±1 % (±${(100 * widest).toFixed(2)} %) and the time budget is spent`);
      break;
    }
    console.error(`wasmtrace e2e (${label}): an interval is wider than ±1 % (±${(100 * widest).toFixed(2)} %): ${batch} more rounds`);
    times = await toggleRounds(ops, states, batch, 0, times);
    batches++;
  }
  return { times, batches };
}

// ---- runners ---------------------------------------------------------------

const QUICK = process.env.WT_BENCH_QUICK === '1';
const FIXED_ROUNDS = Boolean(process.env.WT_E2E_ROUNDS);
const ROUNDS = Number(process.env.WT_E2E_ROUNDS || (QUICK ? 40 : 150));
// Toggle rounds per batch, and how long the extension may run per runtime.
const TOGGLE_ROUNDS = Number(process.env.WT_E2E_ROUNDS || (QUICK ? 60 : 100));
// (Chromium has four states since the JS Self-Profiling API joined: a round
// costs a third more than it did, so the budget grew with it.)
const TOGGLE_BUDGET_MS = QUICK ? 30000 : 150000;
const WARMUP = 5;

/** In a child Node process (emcc 3.1.6 output needs --no-experimental-fetch):
 * the six builds, then (another child) the toggle rounds of the plain one. */
export function runNode(wasmDir, rounds = ROUNDS) {
  const child = (mode) => {
    const out = execFileSync('node', ['--no-experimental-fetch', self, mode, wasmDir, String(rounds)],
      { encoding: 'utf8', timeout: 1800000, maxBuffer: 64 << 20 });
    return JSON.parse(out.split('\n').find((l) => l.startsWith('{')));
  };
  return { ...child('--node-child'), toggle: child('--toggle-child') };
}

/** In headless Chromium, served from the wasm build tree: the six builds
 * in one page, then the toggle rounds of the plain build in a new page. */
export async function runChromium(wasmDir, rounds = ROUNDS) {
  const { launch } = await import('../lib/browser.mjs');
  const { serve } = await import('../lib/serve.mjs');
  const server = await serve(wasmDir);
  // The toggle rounds' page may run the JS Self-Profiling API; its workers
  // may not (their scripts come without the header): the pthreads' own
  // profilers would run in every state, "none" too.
  const profiling = await serve(wasmDir, { jsProfiling: 'document' });
  const browser = await launch();
  try {
    let page = await browser.newPage();
    await page.goto(`${server.url}bench/e2e/index.html`);
    const fn = measure.toString();
    const res = await page.evaluate(async ({ fn, variants, config, rounds, warmup }) => {
      // eslint-disable-next-line no-new-func
      const m = new Function(`return (${fn})`)();
      const factories = Object.fromEntries(variants.map((v) => [v, self[`createE2e_${v}`]]));
      return m(factories, config, rounds, warmup);
    }, { fn, variants: VARIANTS, config: CONFIG, rounds, warmup: WARMUP });
    await page.close();

    page = await browser.newPage();
    await page.goto(`${profiling.url}bench/e2e/index.html`);
    await page.evaluate(async ({ fn, session, settle }) => {
      // eslint-disable-next-line no-new-func
      const h = new Function(`return (${fn})`)();
      self.wtToggle = await h(self.createE2e_plain, session, settle);
    }, { fn: toggleHarness.toString(), session: SESSION_1KHZ, settle: SETTLE_RUNS });
    // Chrome's own profiler, as DevTools starts it: sampling every 1000 µs.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
    let v8Samples = 0;
    const ops = {
      async start(s) {
        if (s === 'session') await page.evaluate(() => self.wtToggle.startSession());
        if (s === 'v8') await cdp.send('Profiler.start');
        if (s === 'jsprof') await page.evaluate(() => self.wtToggle.startJsProfiler());
        await page.evaluate(() => self.wtToggle.settle());
      },
      run: () => page.evaluate(() => self.wtToggle.run()),
      async stop(s) {
        if (s === 'session') await page.evaluate(() => self.wtToggle.stopSession());
        if (s === 'v8') v8Samples += (await cdp.send('Profiler.stop')).profile.samples?.length ?? 0;
        if (s === 'jsprof') await page.evaluate(() => self.wtToggle.stopJsProfiler());
      },
    };
    const t = await toggleAdaptive(ops, TOGGLE_STATES.chromium, toggleRoundsFor(rounds), TOGGLE_BUDGET_MS, FIXED_ROUNDS, 'chromium');
    const totals = await page.evaluate(() => self.wtToggle.totals());
    await page.close();
    return { ...res, toggle: { ...t, totals: { ...totals, v8Samples } } };
  } finally {
    await browser.close();
    await server.close();
    await profiling.close();
  }
}

// The toggle rounds per batch: TOGGLE_ROUNDS, or the caller's count when
// it asked for fewer or more than the default of the six-build rounds.
const toggleRoundsFor = (rounds) => (rounds === ROUNDS ? TOGGLE_ROUNDS : rounds);

// ---- report ----------------------------------------------------------------

const f3 = (x) => x.toFixed(3);
const ci = (c) => `**${f3(c.median)}×** (95 % CI ${f3(c.lo)}–${f3(c.hi)})`;

const pct = (r) => 100 * (r - 1);
const f2 = (x) => x.toFixed(2);

/**
 * The figures by stable name, for docs/benchmarks.json: Chromium's under
 * `e2e.<metric>`, Node's under `e2e.node.<metric>`.
 *   e2e.session_1khz.overhead_pct   plain build, a 1 kHz session running
 *                                   vs none, same instance (target <= 1,
 *                                   the interval's upper bound)
 *   e2e.instrumented.ratio          -finstrument-functions / plain, both
 *                                   with a 1 kHz session (target <= 1.5)
 *   e2e.instrumented_after_inlining.ratio   the same, after inlining
 *   e2e.instrumented[_after_inlining].nolto.ratio   the same without -flto
 *   e2e.v8_cpu_profiler.overhead_pct   Chrome's V8 CPU profiler at 1 ms vs
 *                                   none, plain build (the anchor)
 *   e2e.js_self_profiling.overhead_pct   the JS Self-Profiling API at 10 ms
 *                                   (the "main (JS)" thread) vs none
 */
export function jsonFigures(results) {
  const out = [];
  for (const [where, res] of Object.entries(results)) {
    const p = where === 'chromium' ? 'e2e' : `e2e.${where}`;
    const r = ratios(res.times);
    out.push(figure(`${p}.instrumented.ratio`, 'ratio', r.full.total, { target: '<= 1.5' }));
    out.push(figure(`${p}.instrumented_after_inlining.ratio`, 'ratio', r.after_inlining.total, { target: '<= 1.5' }));
    out.push(figure(`${p}.instrumented.nolto.ratio`, 'ratio', r.full_nolto.total));
    out.push(figure(`${p}.instrumented_after_inlining.nolto.ratio`, 'ratio', r.after_inlining_nolto.total));
    if (!res.toggle) continue;
    const t = toggleRatios(res.toggle.times);
    out.push(figure(`${p}.session_1khz.overhead_pct`, '%', t.session.single, { target: '<= 1', scale: pct }));
    out.push(figure(`${p}.session_1khz.2threads.overhead_pct`, '%', t.session.threads, { target: '<= 1', scale: pct }));
    if (t.v8) out.push(figure(`${p}.v8_cpu_profiler.overhead_pct`, '%', t.v8.single, { scale: pct }));
    if (t.v8) out.push(figure(`${p}.v8_cpu_profiler.2threads.overhead_pct`, '%', t.v8.threads, { scale: pct }));
    if (t.jsprof) out.push(figure(`${p}.js_self_profiling.overhead_pct`, '%', t.jsprof.single, { scale: pct }));
    if (t.jsprof) out.push(figure(`${p}.js_self_profiling.2threads.overhead_pct`, '%', t.jsprof.threads, { scale: pct }));
  }
  return out;
}

/** The printed figures: `<name> (<where>) <median> [lo, hi]`, and a warning
 * for each interval wider than ±1 %. */
export function figures(where, res) {
  const lines = [];
  for (const f of jsonFigures({ [where]: res })) {
    const name = f.name.replace(`e2e.${where}.`, 'e2e.');
    const d = f.unit === '%' ? 2 : 3;
    lines.push(`${name} (${where}) ${f.value.toFixed(d)} [95% CI ${f.ci95[0].toFixed(d)}, ${f.ci95[1].toFixed(d)}] n=${f.n}`);
    const half = (f.ci95[1] - f.ci95[0]) / 2;
    if ((f.unit === '%' ? half : 100 * half) > 1) lines.push(`  ^ this interval is wider than ±1 %: run more rounds (WT_E2E_ROUNDS)`);
  }
  return lines;
}

/** Section 8 of docs/BENCHMARKS.md. */
export function section(results, command) {
  const rows = [];
  for (const [where, res] of Object.entries(results)) {
    const r = ratios(res.times);
    const ms = (k, v) => median(res.times[k][v]).toFixed(2);
    for (const [suffix, lto] of [['', '-flto'], ['_nolto', 'no LTO']]) {
      const full = r[`full${suffix}`];
      const after = r[`after_inlining${suffix}`];
      rows.push(`| ${where} | ${lto} | \`-finstrument-functions\` (FULL) | ${ci(full.total)} | ${ci(full.zlib)} | ${ci(full.cjson)} | ${res.frames[`full${suffix}`].length} |`);
      rows.push(`| ${where} | ${lto} | \`-finstrument-functions-after-inlining\` (default) | ${ci(after.total)} | ${ci(after.zlib)} | ${ci(after.cjson)} | ${res.frames[`after_inlining${suffix}`].length} |`);
      rows.push(`| ${where} | ${lto} | plain (${ms('zlib', `plain${suffix}`)} ms zlib, ${ms('cjson', `plain${suffix}`)} ms cJSON per run) | 1 | 1 | 1 | ${res.frames[`plain${suffix}`].length} |`);
    }
  }
  const toggleRows = [];
  for (const [where, res] of Object.entries(results)) {
    if (!res.toggle) continue;
    const t = toggleRatios(res.toggle.times);
    const tt = res.toggle.times;
    const ms = (s) => median(tt[s].zlib.map((z, i) => z + tt[s].cjson[i])).toFixed(2);
    const msT = (s) => median(tt[s].threads).toFixed(2);
    const n = tt.none.zlib.length;
    const cell = (c) => `**${f2(pct(c.median))} %** (95 % CI ${f2(pct(c.lo))} – ${f2(pct(c.hi))})`;
    toggleRows.push(`| ${where} | none | ${ms('none')} | – | ${msT('none')} | – | ${n} |`);
    toggleRows.push(`| ${where} | wasmtrace session, 1 kHz (${res.toggle.totals.samples} samples in ${res.toggle.totals.sessions} sessions) | ${ms('session')} | ${cell(t.session.single)} | ${msT('session')} | ${cell(t.session.threads)} | ${n} |`);
    if (t.v8) toggleRows.push(`| ${where} | V8 CPU profiler, 1 ms (${res.toggle.totals.v8Samples} samples) | ${ms('v8')} | ${cell(t.v8.single)} | ${msT('v8')} | ${cell(t.v8.threads)} | ${n} |`);
    if (t.jsprof) toggleRows.push(`| ${where} | JS Self-Profiling API, 10 ms, page main thread (\`main (JS)\`; ${res.toggle.totals.jsSamples} samples) | ${ms('jsprof')} | ${cell(t.jsprof.single)} | ${msT('jsprof')} | ${cell(t.jsprof.threads)} | ${n} |`);
  }
  const any = Object.values(results)[0];
  const only = any.frames.full.filter((n) => !any.frames.after_inlining.includes(n));
  return `## 8. End to end on real code: zlib and cJSON

\`${command}\` (\`bench/e2e.mjs\`). \`bench/e2e/workload.c\`: zlib 1.2.13
(deflate level 6 + inflate of a 256 KiB text corpus) and cJSON 1.7.15
(parse + print of a ~200 KiB document), the sources the build fetches,
compiled with \`-O2\` three ways — plain, \`-finstrument-functions\`,
\`-finstrument-functions-after-inlining\` — each with \`-flto\` (as the
library is built) and without, all linked with wasmtrace; each build
runs a session at 1 kHz. All six load in one process (one page) and run
alternately, ${any.times.zlib.plain.length} rounds (after ${WARMUP} warm-up rounds), each round one zlib and
one cJSON run of each build in a rotating order. Ratio: instrumented / plain
time (same LTO mode) of the same round (paired); median of the paired ratios with a
percentile-bootstrap 95 % interval of the median. Frames: distinct named
functions in the build's own trace (every thread).
${machine()}

| where | LTO | build | zlib + cJSON | zlib | cJSON | distinct frames |
|---|---|---|---|---|---|---|
${rows.join('\n')}

### A session, and Chrome's profiler, vs nothing

The plain build (\`-flto\`, no instrumentation: what an app with only
scopes runs) with no startup session, one instance per process (page),
toggled at runtime. Each round runs the workload once in each state, in
a rotating order — one zlib and one cJSON run on the main thread
(1 thread), then both at once, each on one of two pool pthreads started
at setup, main waiting on a condition variable (2 pthreads) — the states: nothing running; a
wasmtrace session at 1 kHz (\`Module.wasmtrace.startSession\`, stopped
after the run, trace to MEMFS uncompressed); in Chromium also Chrome's own
V8 CPU profiler (DevTools protocol \`Profiler.setSamplingInterval\` 1000 µs,
\`Profiler.start\`/\`stop\`, through playwright-core's CDP session), and the
JS Self-Profiling API at its 10 ms on the page's main thread (\`new
Profiler()\`, what the shim starts for the \`main (JS)\` thread; the page is
served with \`Document-Policy: js-profiling\`, and the profile the pre-js
started at load is stopped before the rounds). Every
state does ${SETTLE_RUNS} untimed cJSON run before its timed runs (not an idle wait,
which on a loaded machine hands the core to other jobs). Overhead: the state's time / the
same round's time with nothing running, minus 1 (median of the paired
ratios, bootstrap 95 % interval). Rounds: ${TOGGLE_ROUNDS} per batch, more batches
while an interval is wider than ±1 % and time allows. The sampler runs
on its own worker; with 2 pthreads on this 2-core machine it competes
for a core with the workload. Chrome's profiler samples the main thread
only (here it waits, spinning as Emscripten's main thread does).
The instrumented ratios above compare two builds that both run a 1 kHz
session: they are the instrumentation's cost; a session's own cost is here.

| where | running | 1 thread: zlib + cJSON ms (median) | overhead vs none | 2 pthreads: ms (median) | overhead vs none | rounds |
|---|---|---|---|---|---|---|
${toggleRows.join('\n')}

Frames only the full build shows (${only.length}, from the first row's run): ${only.slice(0, 40).map((n) => `\`${n}\``).join(', ')}${only.length > 40 ? ', …' : ''}.
`;
}

function machine() {
  return `Machine: ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the end; Node ${process.version}.`;
}

/** Replaces (or appends) section 8 of docs/BENCHMARKS.md. */
function writeSection(section) {
  const text = stampSections(section); // which run wrote it (bench/figures.mjs)
  const path = join(root, 'docs/BENCHMARKS.md');
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf('## 8. End to end on real code');
  let out;
  if (start < 0) out = `${doc.trimEnd()}\n\n${text}`;
  else {
    // Up to the next section, or the marker of the hand-written ones.
    const ends = [doc.indexOf('\n## ', start + 1), doc.indexOf('\n<!-- ', start + 1)].filter((i) => i >= 0);
    const next = ends.length ? Math.min(...ends) : -1;
    out = doc.slice(0, start) + text + (next < 0 ? '' : `\n${doc.slice(next + 1)}`);
  }
  writeFileSync(path, out);
}

if (process.argv[2] === '--node-child') {
  const [wasmDir, rounds] = process.argv.slice(3);
  const require = createRequire(import.meta.url);
  const factories = Object.fromEntries(VARIANTS.map((v) => [v, require(join(wasmDir, `bench/e2e/e2e_${v}.js`))]));
  const res = await measure(factories, CONFIG, Number(rounds), WARMUP);
  process.stdout.write(`${JSON.stringify(res)}\n`);
  process.exit(0);
} else if (process.argv[2] === '--toggle-child') {
  const [wasmDir, rounds] = process.argv.slice(3);
  const require = createRequire(import.meta.url);
  const h = await toggleHarness(require(join(wasmDir, 'bench/e2e/e2e_plain.js')), SESSION_1KHZ, SETTLE_RUNS);
  const ops = {
    async start(s) {
      if (s === 'session') await h.startSession();
      await h.settle();
    },
    run: () => h.run(),
    async stop(s) {
      if (s === 'session') await h.stopSession();
    },
  };
  const t = await toggleAdaptive(ops, TOGGLE_STATES.node, toggleRoundsFor(Number(rounds)), TOGGLE_BUDGET_MS, FIXED_ROUNDS, 'node');
  process.stdout.write(`${JSON.stringify({ ...t, totals: h.totals() })}\n`);
  process.exit(0);
} else if (process.argv[1] === self) {
  const wasmDir = join(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
  const results = {};
  console.error(`wasmtrace e2e: Node, ${ROUNDS} rounds`);
  results.node = runNode(wasmDir);
  for (const l of figures('node', results.node)) console.log(l);
  if (process.env.WT_E2E_NO_CHROMIUM !== '1') {
    console.error(`wasmtrace e2e: headless Chromium, ${ROUNDS} rounds`);
    results.chromium = await runChromium(wasmDir);
    for (const l of figures('chromium', results.chromium)) console.log(l);
  }
  for (const [where, res] of Object.entries(results)) {
    console.log(`distinct frames (${where}): ${VARIANTS.map((v) => `${v} ${res.frames[v].length}`).join(', ')}`);
  }
  const text = section(results, 'node bench/e2e.mjs');
  // Another toolchain's tree gives figures of their own names
  // (name@emcc-X.Y.Z, bench/figures.mjs); section 8 stays build/wasm's.
  if (benchTree === resolve(root, 'build/wasm')) writeSection(text);
  writeFigures(jsonFigures(results));
  console.log(text);
}
