// The call-heavy benchmark (issue 16): what the sampler keeps of a thread
// whose stack never stops moving, and how right the profile is, per single
// recording (not pooled).
//
//   node bench/callheavy.mjs [RUNS] [BUILD_DIR]     (default 5, build/wasm)
//
// Each run is bench/callheavy.c in Node (-finstrument-functions, a 10 kHz
// session, 2 s): the main thread alternates a qsort through a per-character
// comparator and a recursive evaluator, and measures the wall time of each
// phase itself (the ground truth). Per run it reports
//   sampler.torn_pct.callheavy       ticks dropped because the stack moved, %
//   sampler.truncated_pct.callheavy  ticks kept as "(partial stack)", %
//   fidelity.callheavy.phase_pp      the worse of the two phases' error: its
//                                    share of the trace's phase samples
//                                    (total time) minus its measured share,
//                                    in percentage points
//
// Then, per run, bench/callheavy_gt.c (a fixed call tree of ns-scale
// functions, every one instrumented, FULL) in headless Chromium on the
// page's main thread, twice: once under a wasmtrace session (10 kHz), once
// under V8's own CPU profiler (CDP, 1 ms). Each run calibrates every
// function's per-call cost in the same page right before and right after
// its recording; with the call counts the program keeps, that gives each
// function's self time (the ground truth, see docs/BENCHMARKS.md, section 7).
//   fidelity.callheavy.max_pp         worst |wasmtrace share - truth| over the
//                                     functions with >= 2 % of the time, pp
//   fidelity.callheavy_vs_v8.max_pp   worst |wasmtrace share - V8 share| over
//                                     the functions both see, pp
// It writes the medians and per-run values to docs/benchmarks.json under
// those names (other keys in the file are kept). bench/run.mjs calls it too.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readProfile, weightOf } from '../lib/profile.mjs';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { collectTraces, waitForWasmtrace } from '../js/playwright.mjs';
import { analyzeTrace, parseTrace } from '../lib/trace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One recording: the program's own figures and the trace's phase shares. */
export function callHeavyRun(buildDir, { ms = 2000, intervalUs = 100, index = 0 } = {}) {
  const js = join(buildDir, 'bench/callheavy/callheavy.js');
  const trace = `/tmp/wasmtrace-callheavy-${process.pid}-${index}.json.gz`;
  const out = execFileSync('node', ['--no-experimental-fetch', js, String(ms), String(intervalUs), trace],
    { encoding: 'utf8', timeout: 300000 });
  const r = JSON.parse(out.split('\n').find((l) => l.startsWith('{')));
  const profile = readProfile(readFileSync(trace));
  rmSync(trace, { force: true });
  const main = profile.threads.find((t) => t.name === 'main');
  const sort = main ? weightOf(main, 'phase_sort') : 0;
  const evalW = main ? weightOf(main, 'phase_eval') : 0;
  const traceSort = sort + evalW ? sort / (sort + evalW) : NaN;
  const errPp = 100 * Math.abs(traceSort - r.sortShare); // the eval error is the same, mirrored
  return { ...r, traceSortShare: traceSort, fidelityMaxPp: errPp };
}

/** RUNS recordings; returns the figures by stable name: {median, runs}. */
export function callHeavyFigures(buildDir, runs, opts = {}) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(callHeavyRun(buildDir, { ...opts, index: i }));
  const figure = (get) => ({ median: median(all.map(get)), runs: all.map(get) });
  return {
    runs: all,
    figures: {
      'sampler.torn_pct.callheavy': figure((r) => r.tornPct),
      'sampler.truncated_pct.callheavy': figure((r) => r.partialPct),
      'fidelity.callheavy.phase_pp': figure((r) => r.fidelityMaxPp),
    },
  };
}

/** Merges figures into docs/benchmarks.json (keeps the keys it does not set);
 * a figure's unit, ci95 and target go along when it has them. */
export function writeFigures(figures) {
  const file = join(root, 'docs/benchmarks.json');
  const old = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const round = (x) => Math.round(x * 1000) / 1000;
  for (const [k, v] of Object.entries(figures)) {
    old[k] = { median: round(v.median), runs: v.runs.map(round) };
    for (const extra of ['unit', 'ci95', 'target']) if (extra in v) old[k][extra] = v[extra];
  }
  writeFileSync(file, `${JSON.stringify(old, null, 2)}\n`);
}

// ---- per-function fidelity against a ground truth and against V8 ----------

/** The tree's functions (bench/callheavy_gt.c), gt_root first. */
export const GT_FUNCTIONS = ['gt_root', 'gt_mid_a', 'gt_mid_b', 'gt_leaf_x', 'gt_leaf_y', 'gt_leaf_z'];
const GT_MIN_SHARE = 2; // %: the threshold for judging a function

const GT_CALLEES = { gt_root: { gt_mid_a: 1, gt_mid_b: 1 }, gt_mid_a: { gt_leaf_x: 4 }, gt_mid_b: { gt_leaf_y: 2, gt_leaf_z: 1 } };
const GT_LEAVES = ['gt_leaf_x', 'gt_leaf_y', 'gt_leaf_z'];

/** One calibration's model: c (ns per spin step) and h (ns per call besides
 * its spin) fitted to the leaves' inclusive costs (least squares, three
 * points), each function's self cost n x c + h, and how far the model's
 * inclusive cost of each inner function is from the calibrated one (%). */
function modelOf(cal) {
  const xs = GT_LEAVES.map((f) => cal[f].spin);
  const ys = GT_LEAVES.map((f) => cal[f].inclusiveNs);
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  const c = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const h = my - c * mx;
  const selfNs = Object.fromEntries(GT_FUNCTIONS.map((f) => [f, cal[f].spin * c + h]));
  const inclusive = (f) => selfNs[f] + Object.entries(GT_CALLEES[f] || {}).reduce((a, [g, k]) => a + k * inclusive(g), 0);
  const offPct = Math.max(...Object.keys(GT_CALLEES).map((f) => Math.abs(100 * (inclusive(f) / cal[f].inclusiveNs - 1))));
  // The other reading of the same calibration: self = inclusive minus the
  // callees' inclusive costs (a difference of large numbers, so noisier).
  const bySubtraction = Object.fromEntries(GT_FUNCTIONS.map((f) => [f, cal[f].inclusiveNs -
    Object.entries(GT_CALLEES[f] || {}).reduce((a, [g, k]) => a + k * cal[g].inclusiveNs, 0)]));
  return { c, h, selfNs, offPct, bySubtraction };
}

/** Self-time shares (%) from per-call self costs and the recording's call counts. */
function truthShares(selfNs, calls) {
  const t = Object.fromEntries(GT_FUNCTIONS.map((f) => [f, calls[f] * selfNs[f]]));
  const total = GT_FUNCTIONS.reduce((a, f) => a + t[f], 0);
  return Object.fromEntries(GT_FUNCTIONS.map((f) => [f, (100 * t[f]) / total]));
}

/** Shares (%) of the samples under gt_root, each charged to the deepest tree
 * function on its stack (frames a profiler sees that are not in the tree, such
 * as V8's view of the hooks, fold into the tree function that called them). */
function sampledShares(stacks) {
  const n = Object.fromEntries(GT_FUNCTIONS.map((f) => [f, 0]));
  let total = 0;
  for (const stack of stacks) {
    if (!stack.includes('gt_root')) continue;
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i] in n) {
        n[stack[i]]++;
        total++;
        break;
      }
    }
  }
  return { samples: total, shares: Object.fromEntries(GT_FUNCTIONS.map((f) => [f, total ? (100 * n[f]) / total : NaN])) };
}

/** The stacks (root first, names) of a V8 CPU profile's samples. */
function v8Stacks(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  // V8 names a wasm function by its name-section name, '$'-prefixed in some versions.
  const name = (id) => byId.get(id).callFrame.functionName.replace(/^\$/, '');
  const memo = new Map();
  const stackOf = (id) => {
    if (memo.has(id)) return memo.get(id);
    const s = [];
    for (let x = id; x !== undefined; x = parent.get(x)) s.push(name(x));
    s.reverse();
    memo.set(id, s);
    return s;
  };
  return profile.samples.map(stackOf);
}

const maxDiff = (a, b, fns) => Math.max(...fns.map((f) => Math.abs(a[f] - b[f])));

/** In the page: calibrate, run the tree for ms, calibrate again. */
async function calibratedRun(page, ms, calMs, between = async () => {}) {
  const before = await page.evaluate((c) => { Module._gt_calibrate(c); return self.gtCalibration; }, calMs);
  await between('start');
  const run = await page.evaluate((m) => { Module._gt_run(m); return self.gtRun; }, ms);
  await between('stop');
  const after = await page.evaluate((c) => { Module._gt_calibrate(c); return self.gtCalibration; }, calMs);
  return { before, after, run };
}

/** The truth for one recording: shares from the mean of the two
 * calibrations' models, how far the two disagree (pp), how far the model is
 * from the calibrated inclusive costs (%), and the share of time a bare call
 * with its hooks takes at the call boundaries of the function with the most
 * of them (which a profiler may put on either side of the boundary). */
function truthOf({ before, after, run }) {
  const [mb, ma] = [modelOf(before), modelOf(after)];
  const selfNs = Object.fromEntries(GT_FUNCTIONS.map((f) => [f, (mb.selfNs[f] + ma.selfNs[f]) / 2]));
  const shares = truthShares(selfNs, run.calls);
  const calDriftPp = maxDiff(truthShares(mb.selfNs, run.calls), truthShares(ma.selfNs, run.calls), GT_FUNCTIONS);
  const total = GT_FUNCTIONS.reduce((a, f) => a + run.calls[f] * selfNs[f], 0);
  const hookNs = (before.gt_empty.inclusiveNs + after.gt_empty.inclusiveNs) / 2;
  // A function can lose its own call boundaries to its caller or gain its
  // callees': the larger of the two, as a share.
  const boundaryPp = Math.max(...GT_FUNCTIONS.map((f) => (100 * hookNs *
    Math.max(run.calls[f], Object.keys(GT_CALLEES[f] || {}).reduce((a, g) => a + run.calls[g], 0))) / total));
  const subSelf = Object.fromEntries(GT_FUNCTIONS.map((f) => [f, (mb.bySubtraction[f] + ma.bySubtraction[f]) / 2]));
  const subtractionPp = maxDiff(shares, truthShares(subSelf, run.calls), GT_FUNCTIONS);
  return { shares, calDriftPp, modelOffPct: Math.max(mb.offPct, ma.offPct), subtractionPp, boundaryPp, hookNs,
    stepNs: (mb.c + ma.c) / 2, callNs: (mb.h + ma.h) / 2, nsPerRoot: total / run.calls.gt_root };
}

/** One run: the tree under wasmtrace, then under V8's profiler, each in a fresh page. */
export async function groundTruthRun(browser, server, { ms = 3000, intervalUs = 100, calMs = 800 } = {}) {
  // Under wasmtrace.
  let page = await browser.newPage();
  await page.goto(`${server.url}bench/callheavy_gt/index.html?session=${intervalUs}`);
  await page.waitForFunction('self.gtReady === true', null, { timeout: 60000 });
  await waitForWasmtrace(page, { timeoutMs: 60000 });
  const wt = await calibratedRun(page, ms, calMs);
  const [session] = await collectTraces(page, { parse: false, timeoutMs: 120000 });
  if (!session || !session.bytes) throw new Error(`callheavy_gt: no trace (${session && session.error})`);
  await page.close();
  const analysis = analyzeTrace(parseTrace(session.bytes));
  const stacks = analysis.threads.flatMap((t) => t.samples.map((s) => s.stack));
  const wtSampled = sampledShares(stacks);
  const stats = session.stats || {};

  // Under V8's CPU profiler (no session: the hooks run, nothing samples them).
  page = await browser.newPage();
  await page.goto(`${server.url}bench/callheavy_gt/index.html`);
  await page.waitForFunction('self.gtReady === true', null, { timeout: 60000 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  let v8profile;
  const v8 = await calibratedRun(page, ms, calMs, async (what) => {
    if (what === 'start') await cdp.send('Profiler.start');
    else v8profile = (await cdp.send('Profiler.stop')).profile;
  });
  await cdp.detach();
  await page.close();
  const v8Sampled = sampledShares(v8Stacks(v8profile));

  const wtTruth = truthOf(wt);
  const v8Truth = truthOf(v8);
  const judged = GT_FUNCTIONS.filter((f) => wtTruth.shares[f] >= GT_MIN_SHARE);
  return {
    wt: { ...wtTruth, sampled: wtSampled, calls: wt.run.calls, wallMs: wt.run.wallMs,
      taken: stats.samplesTaken, torn: stats.samplesTorn, partial: stats.samplesPartial },
    v8: { ...v8Truth, sampled: v8Sampled, calls: v8.run.calls, wallMs: v8.run.wallMs },
    judged,
    maxPp: maxDiff(wtSampled.shares, wtTruth.shares, judged),
    vsV8MaxPp: maxDiff(wtSampled.shares, v8Sampled.shares, GT_FUNCTIONS),
    v8VsTruthMaxPp: maxDiff(v8Sampled.shares, v8Truth.shares, GT_FUNCTIONS.filter((f) => v8Truth.shares[f] >= GT_MIN_SHARE)),
  };
}

/** RUNS runs in one headless Chromium; the two figures by stable name. */
export async function groundTruthFigures(buildDir, runs, opts = {}) {
  const server = await serve(buildDir);
  const browser = await launch();
  const all = [];
  try {
    for (let i = 0; i < runs; i++) all.push(await groundTruthRun(browser, server, opts));
  } finally {
    await browser.close();
    await server.close();
  }
  const figure = (get, target) => ({ median: median(all.map(get)), runs: all.map(get), unit: 'pp', ci95: null, target });
  return {
    runs: all,
    figures: {
      'fidelity.callheavy.max_pp': figure((r) => r.maxPp, '<= 2'),
      'fidelity.callheavy_vs_v8.max_pp': figure((r) => r.vsV8MaxPp, '<= 3'),
    },
  };
}

/** The per-run ground-truth tables as Markdown. */
export function groundTruthTable(runs) {
  const pct = (x) => x.toFixed(1);
  const head = GT_FUNCTIONS.map((f) => `\`${f}\``).join(' | ');
  const rows = [];
  runs.forEach((r, i) => {
    const cell = (f) => `${pct(r.wt.shares[f])} / ${pct(r.wt.sampled.shares[f])} / ${pct(r.v8.sampled.shares[f])}`;
    rows.push(`| ${i + 1} | ${GT_FUNCTIONS.map(cell).join(' | ')} | **${r.maxPp.toFixed(2)}** | **${r.vsV8MaxPp.toFixed(2)}** | ` +
      `${r.v8VsTruthMaxPp.toFixed(2)} | ${r.wt.sampled.samples} / ${r.v8.sampled.samples} | ${r.wt.calDriftPp.toFixed(2)} | ${r.wt.modelOffPct.toFixed(1)} | ${r.wt.subtractionPp.toFixed(2)} | ${r.wt.boundaryPp.toFixed(2)} | ${r.wt.stepNs.toFixed(2)} / ${r.wt.callNs.toFixed(1)} / ${r.wt.hookNs.toFixed(1)} | ${r.wt.nsPerRoot.toFixed(0)} |`);
  });
  return [`| run | ${head} | max pp vs truth | max pp vs V8 | V8 vs its truth, pp | samples wasmtrace / V8 | calibration drift pp | model off % | by subtraction, pp | boundary pp | ns: step c / call h / bare call | ns per gt_root |`,
    `|---|${GT_FUNCTIONS.map(() => '---').join('|')}|---|---|---|---|---|---|---|---|---|---|`, ...rows].join('\n');
}

/** The per-run table as Markdown. */
export function callHeavyTable(runs) {
  const rows = runs.map((r, i) => `| ${i + 1} | ${r.samplesTaken} | ${r.tornPct.toFixed(2)} | ${r.partialPct.toFixed(2)} | ` +
    `${(100 * r.sortShare).toFixed(1)} | ${(100 * r.traceSortShare).toFixed(1)} | ${r.fidelityMaxPp.toFixed(2)} |`);
  return ['| run | samples | dropped (torn) % | partial % | sort share, measured % | sort share, trace % | max error pp |',
    '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] || 5);
  const build = resolve(process.argv[3] || join(root, 'build/wasm'));
  const { runs: all, figures } = callHeavyFigures(build, runs);
  console.log(`# node bench/callheavy.mjs ${runs} ${build}`);
  console.log(callHeavyTable(all));
  const gt = await groundTruthFigures(build, runs);
  console.log('\nPer function, % of the time under gt_root: truth / wasmtrace / V8');
  console.log(groundTruthTable(gt.runs));
  Object.assign(figures, gt.figures);
  for (const [k, v] of Object.entries(figures)) console.log(`${k}: median ${v.median.toFixed(3)} (runs: ${v.runs.map((x) => x.toFixed(2)).join(' ')})`);
  if (build === resolve(join(root, 'build/wasm'))) writeFigures(figures);
}
