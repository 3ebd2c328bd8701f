// `wasmtrace diff`: did a change make it slower? Runs of a base build and
// of a new build (traces of the same page and session, any format), per
// function (self and total time, summed over the threads), per thread
// (busy time) and for the whole traced window (busy time of every thread):
// the difference of the mean time per run with a 95 % interval, tested
// all at once with the false discovery rate held at q = 0.05, and a
// verdict for each: slower, faster, same or undecided.
//
// Why Welch's t and not a rank test (docs/GUIDE.md, "Did it get slower?"):
// runs are the unit, and CI affords a few per side. With 5 runs a side the
// Mann-Whitney U test's smallest two-sided p is 2/252 = 0.0079, so once
// more than 6 functions are tested no false-discovery correction can flag
// any of them, whatever the change. Welch's test on the per-run times
// (unequal variances; its p continuous) can, and its interval is the one
// shown. The Mann-Whitney p is still computed and kept in --json.
//
// With one run a side there is no run-to-run spread to measure: each run
// is cut into 20 slices of time, and the error of its total comes from the
// spread of the slices (a block bootstrap's variance, in closed form).
// That covers the sampling noise within the runs only, and the output says
// so.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { callDiffLines, compareCalls } from './calls.mjs';
import { canonicalFunctionName } from './names.mjs';
import { isJsProfileThread, readProfile, realDepth } from './profile.mjs';
import { htmlReport, printable } from './report.mjs';
import { benjaminiHochberg, blockSe, mannWhitney, mean, pairedT, welch, zTest } from './stats.mjs';
import { TraceError } from './trace.mjs';
import { traceTier } from './tier.mjs';

/** Bad input to diff: one line, exit status 2. */
export class DiffError extends Error {}

const TRACE_FILE = /\.(json|folded)(\.gz)?$/;

// A file's identity (device and inode, through links): one run is one file,
// however many names reach it.
function identity(st) {
  return `${st.dev}:${st.ino}`;
}

// stat, as bad input (exit 2) when it fails: a broken link, a loop, no access.
function statOf(p, side) {
  try {
    return statSync(p);
  } catch (e) {
    throw new DiffError(`${side}: '${printable(p)}': ${e.code === 'ENOENT' ? 'a link to nothing' : e.code === 'ELOOP' ? 'a loop of links' : e.code ?? e.message}`);
  }
}

/**
 * The trace files a side names: files as given; a directory's trace files,
 * and those of its subdirectories (`record --repeat N` writes run-01/,
 * run-02/, ...), sorted. Each file once, by its identity (a run reached
 * twice, through a link such as `run-00 -> .` or `latest -> run-01`, or
 * given twice, is one run); only regular files (a FIFO named *.json would
 * block the read forever).
 */
export function sideFiles(paths, side) {
  const files = [];
  const seen = new Set();
  const take = (f, st) => {
    const id = identity(st);
    if (seen.has(id)) return;
    seen.add(id);
    files.push(f);
  };
  const tracesIn = (dir) => {
    const out = [];
    for (const f of readdirSync(dir).filter((n) => TRACE_FILE.test(n)).sort()) {
      const path = join(dir, f);
      const st = statOf(path, side);
      if (st.isFile()) out.push([path, st]);
    }
    return out;
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new DiffError(`${side}: no file or directory '${printable(p)}'`);
    const st = statOf(p, side);
    if (st.isDirectory()) {
      const found = tracesIn(p);
      for (const d of readdirSync(p).sort()) {
        const sub = join(p, d);
        if (statOf(sub, side).isDirectory()) found.push(...tracesIn(sub));
      }
      if (!found.length) throw new DiffError(`${side}: no traces (*.json, *.json.gz, *.folded, *.folded.gz) in '${printable(p)}' or its subdirectories`);
      for (const [f, fst] of found) take(f, fst);
    } else if (st.isFile()) {
      take(p, st);
    } else {
      throw new DiffError(`${side}: '${printable(p)}' is not a regular file`);
    }
  }
  if (!files.length) throw new DiffError(`${side}: no traces given`);
  return files;
}

/** The identities of files (those that exist), for outputs that must not be inputs. */
export function identities(files) {
  const ids = new Set();
  for (const f of files) {
    try {
      ids.add(identity(statSync(f)));
    } catch {
      // gone: nothing to protect
    }
  }
  return ids;
}

/** True if `out` is one of the files of `ids` (through any link). */
export function isOneOf(out, ids) {
  try {
    return ids.has(identity(statSync(out)));
  } catch {
    return false; // does not exist (yet): not an input
  }
}

const sessionOf = (profile) => profile.session?.session ?? profile.session?.name;

/**
 * Reads a side's traces; a file that is not a readable trace is bad input.
 * With `session`, only that session's traces are kept.
 */
export function readSide(files, side, { session, notes = [] } = {}) {
  const byContent = new Map();
  const read = [];
  for (const file of files) {
    let bytes;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      throw new DiffError(`${side}: ${printable(file)}: cannot read it: ${e.code ?? e.message}`);
    }
    // Two files with the same bytes are one run copied: said, counted once.
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (byContent.has(digest)) {
      notes.push(`${side}: ${printable(file)} has the same content as ${printable(byContent.get(digest))}: counted once`);
      continue;
    }
    byContent.set(digest, file);
    try {
      read.push({ file, profile: readProfile(bytes) });
    } catch (e) {
      throw new DiffError(`${side}: ${printable(file)}: ${e instanceof TraceError ? e.message : `cannot read it: ${e.message}`}`);
    }
  }
  if (session === undefined) return read;
  const kept = read.filter((r) => sessionOf(r.profile) === session);
  if (!kept.length) throw new DiffError(`${side}: no traces of session '${session}' (sessions there: ${[...new Set(read.map((r) => sessionOf(r.profile)).filter(Boolean))].join(', ') || 'none named'})`);
  return kept;
}

const SLICES = 20;

/**
 * One run's times in ms (or samples, without a known interval): the
 * window, each thread, each function's self and total (summed over the
 * threads; names with clone suffixes merged), and with `slices` each of
 * them per slice of the run's time.
 */
// A run with more distinct functions than this is refused: diff keeps a
// self and a total time per function and run, and tests every row large
// enough to matter; 10^6 functions a run took minutes and gigabytes for a
// table nobody reads (an app has thousands). WASMTRACE_DIFF_MAX_FUNCTIONS
// raises it.
const maxFunctions = () => {
  const v = Number(process.env.WASMTRACE_DIFF_MAX_FUNCTIONS);
  return Number.isSafeInteger(v) && v > 0 ? v : 200_000;
};

export function runTimes(profile, { slices = false } = {}) {
  const limit = 2 * maxFunctions() + 1 + profile.threads.length; // self + total per function, the window, the threads
  const unit = profile.intervalUs ? profile.intervalUs / 1000 : 1;
  const times = new Map(); // key -> total
  const sliced = slices ? new Map() : null; // key -> Float64Array(SLICES)
  let t0 = Infinity, t1 = -Infinity;
  if (slices) {
    for (const t of profile.threads) for (const s of t.samples) if (Number.isFinite(s.ts)) { t0 = Math.min(t0, s.ts); t1 = Math.max(t1, s.ts); }
  }
  const span = t1 > t0 ? t1 - t0 : 1;
  const add = (key, v, slice) => {
    const had = times.get(key);
    if (had === undefined && times.size >= limit) {
      throw new DiffError(`a run has more than ${maxFunctions()} distinct functions: diff compares at most that many (raise WASMTRACE_DIFF_MAX_FUNCTIONS if the trace is yours)`);
    }
    times.set(key, (had ?? 0) + v);
    if (sliced) {
      let a = sliced.get(key);
      if (!a) sliced.set(key, (a = new Float64Array(SLICES)));
      a[slice] += v;
    }
  };
  // The canonical names of a stack, once per distinct stack (readers share
  // one array between the samples of one stack).
  const namesOf = new Map();
  const stackNames = (stack) => {
    let v = namesOf.get(stack);
    if (!v) {
      const n = realDepth(stack);
      v = n ? {
        self: `self\u0000${canonicalFunctionName(stack[n - 1])}`,
        totals: [...new Set(stack.slice(0, n).map((x) => canonicalFunctionName(x)))].map((name) => `total\u0000${name}`),
      } : null;
      namesOf.set(stack, v);
    }
    return v;
  };
  const threads = [];
  for (const t of profile.threads) {
    if (!t.samples.length) continue;
    threads.push(t.name);
    const threadKey = `thread\u0000${t.name}`;
    add(threadKey, 0, 0); // a thread that was idle throughout is still there
    // The JS profile's threads ("main (JS)") are the browser's second view
    // of threads the trace has: compared as their own rows, never part of
    // the window or of a function's time over all threads.
    const second = isJsProfileThread(t.name);
    for (const s of t.samples) {
      if (!s.stack.length) continue;
      const w = (s.weight ?? 1) * unit;
      const slice = sliced && Number.isFinite(s.ts) ? Math.min(SLICES - 1, Math.floor(((s.ts - t0) / span) * SLICES)) : 0;
      add(threadKey, w, slice);
      if (second) continue;
      add('window', w, slice);
      const names = stackNames(s.stack);
      if (!names) continue;
      add(names.self, w, slice);
      for (const key of names.totals) add(key, w, slice);
    }
  }
  return { times, sliced, threads, unit: profile.intervalUs ? 'ms' : 'samples', intervalUs: profile.intervalUs ?? null };
}

/** Parses --threshold: "2%", "1ms", or both ("2%,1ms": a difference must pass both). */
export function parseThreshold(text) {
  const out = { pct: 0, ms: 0 };
  const shown = printable(String(text).slice(0, 40));
  const bad = (why) => new DiffError(`--threshold: '${shown}'${why} (e.g. 2%, 1ms, or 2%,1ms)`);
  const parts = String(text).split(',').map((s) => s.trim());
  if (parts.length > 2 || parts.some((p) => !p)) throw bad(' is not a percentage, a time, or one of each');
  const seen = new Set();
  for (const part of parts) {
    const m = /^(\d{1,9}(?:\.\d{1,9})?)\s*(%|ms)$/.exec(part);
    if (!m) throw bad(' is not a percentage or a time');
    if (seen.has(m[2])) throw bad(` gives ${m[2] === '%' ? 'a percentage' : 'a time'} twice`);
    seen.add(m[2]);
    const n = Number(m[1]);
    if (m[2] === '%' && n > 1000) throw bad(' is more than 1000 %');
    if (m[2] === '%') out.pct = n;
    else out.ms = n;
  }
  return out;
}

const kindOf = (key) => key.slice(0, key.indexOf('\u0000') < 0 ? key.length : key.indexOf('\u0000'));
const nameOf = (key) => (key.includes('\u0000') ? key.slice(key.indexOf('\u0000') + 1) : '(all threads)');

/**
 * Compares two sides, each a list of { file, profile }. Options: threshold
 * ({pct, ms}), q (the false discovery rate, 0.05), paired (the i-th base run
 * was recorded beside the i-th new run, in turns: a paired t test, which
 * cancels drift shared by a pair; the sides must have as many runs).
 */
export function compare(base, next, { threshold = { pct: 2, ms: 1 }, q = 0.05, minShare = 0.5, paired = false } = {}) {
  if (!base.length) throw new DiffError('base: no traces');
  if (!next.length) throw new DiffError('new: no traces');
  if (paired && base.length !== next.length) {
    throw new DiffError(`--paired: ${base.length} base run${base.length === 1 ? '' : 's'} and ${next.length} new: pairs need as many runs on each side, recorded in turns`);
  }
  if (paired && base.length < 2) throw new DiffError('--paired: one run a side makes one pair, which has no spread: record 2 or more pairs');
  const all = [...base.map((r) => ({ ...r, side: 'base' })), ...next.map((r) => ({ ...r, side: 'new' }))];
  // One session: the same name on every trace (a trace without one says nothing).
  const named = all.filter((r) => typeof sessionOf(r.profile) === 'string');
  for (const r of named) {
    if (sessionOf(r.profile) !== sessionOf(named[0].profile)) {
      throw new DiffError(`traces of different sessions: '${sessionOf(named[0].profile)}' (${named[0].file}) and '${sessionOf(r.profile)}' (${r.file}): compare runs of one session (--session NAME picks one)`);
    }
  }
  // One mode: the engines' tiers change the times themselves (lib/tier.mjs).
  const tiers = new Map();
  for (const r of all) {
    const t = traceTier(r.profile);
    if (!tiers.has(t)) tiers.set(t, r);
  }
  if (tiers.size > 1) {
    const [[a, ra], [b, rb]] = tiers;
    throw new DiffError(`traces recorded in different modes: '${a}' (${printable(ra.file)}, ${ra.side}) and '${b}' (${printable(rb.file)}, ${rb.side}): ` +
      'the wasm tier changes every time; record both sides with the same record --tier');
  }
  const units = new Set(all.map((r) => (r.profile.intervalUs ? 'ms' : 'samples')));
  if (units.size > 1) throw new DiffError('some traces have a sampling interval and some do not (folded files without their header): their times cannot be compared');
  const intervals = [...new Set(all.map((r) => r.profile.intervalUs).filter(Boolean))];
  const single = base.length === 1 || next.length === 1;
  if (single) {
    const untimed = all.find((r) => r.profile.threads.some((t) => t.samples.some((x) => !Number.isFinite(x.ts))));
    if (untimed) throw new DiffError(`one run on a side: its noise comes from slices of the runs' time, and ${untimed.file} has no sample times (a folded trace): record 2 or more runs a side`);
  }
  const runs = { base: base.map((r) => runTimes(r.profile, { slices: single })), new: next.map((r) => runTimes(r.profile, { slices: single })) };

  // Threads seen on one side only are reported, not compared.
  const threadSet = (side) => new Set(runs[side].flatMap((r) => r.threads));
  const tb = threadSet('base'), tn = threadSet('new');
  const onlyBase = [...tb].filter((t) => !tn.has(t)), onlyNew = [...tn].filter((t) => !tb.has(t));

  const keys = new Set();
  for (const side of ['base', 'new']) for (const r of runs[side]) for (const k of r.times.keys()) keys.add(k);
  const vals = (side, key) => runs[side].map((r) => r.times.get(key) ?? 0);

  // Different apps: most of the base's self time in functions the new side never ran.
  const selfKeys = [...keys].filter((k) => k.startsWith('self\u0000'));
  const baseSelf = selfKeys.reduce((a, k) => a + mean(vals('base', k)), 0);
  const shared = selfKeys.filter((k) => mean(vals('new', k)) > 0).reduce((a, k) => a + mean(vals('base', k)), 0);
  if (baseSelf > 0 && shared / baseSelf < 0.2) {
    throw new DiffError(`the two sides look like different apps: only ${((100 * shared) / baseSelf).toFixed(0)} % of the base's self time is in functions the new traces ran at all`);
  }

  const floorOf = (baseMean) => Math.max(threshold.ms, (threshold.pct / 100) * baseMean);
  // Rows under minShare % of the window on both sides are too small to
  // matter: not tested (each test tested costs the others power under the
  // false discovery rate), still in --json.
  const windowMean = Math.max(mean(vals('base', 'window')), mean(vals('new', 'window')));
  const smallest = (minShare / 100) * windowMean;
  // Sampling alone makes a time of m ms vary by at least m x (ms per
  // sample) between runs (Poisson counts): a side whose runs happen to
  // agree exactly (a function in 1 sample of each run) is not exact.
  const unitMs = Math.max(...all.map((r) => (r.profile.intervalUs ? r.profile.intervalUs / 1000 : 1)));
  const rows = [];
  for (const key of keys) {
    const kind = kindOf(key), name = nameOf(key);
    if (kind === 'thread' && (onlyBase.includes(name) || onlyNew.includes(name))) continue;
    const a = vals('base', key), b = vals('new', key);
    const ma = mean(a), mb = mean(b);
    const floor = floorOf(ma);
    // Below the floor on both sides, no difference can reach it: not tested,
    // and no statistics computed (a trace of 10^6 functions has almost
    // only such rows: their tests took minutes).
    const tested = Math.max(ma, mb) >= Math.max(floor, smallest) && Math.max(ma, mb) > 0;
    if (!tested) {
      rows.push({
        kind, name, key, base: ma, new: mb, diff: mb - ma, lo: null, hi: null, p: null,
        pct: ma > 0 ? (100 * (mb - ma)) / ma : null, floor, tested, pMannWhitney: null, baseRuns: a, newRuns: b,
      });
      continue;
    }
    let test;
    if (single) {
      const seOf = (side) => {
        let v = 0;
        for (const r of runs[side]) {
          const s = r.sliced.get(key);
          if (s) v += blockSe([...s]) ** 2;
        }
        return Math.sqrt(v) / runs[side].length;
      };
      test = zTest(mb - ma, Math.hypot(seOf('base'), seOf('new')));
    } else if (paired) {
      // A pair's difference varies at least by both runs' sampling noise.
      test = pairedT(a, b, 0.95, { minVariance: (ma + mb) * unitMs });
    } else {
      test = welch(a, b, 0.95, { minVariance: [ma * unitMs, mb * unitMs] });
    }
    rows.push({
      kind, name, key, base: ma, new: mb, diff: test.diff, lo: test.lo, hi: test.hi, p: test.p,
      pct: ma > 0 ? (100 * test.diff) / ma : null, floor, tested,
      pMannWhitney: single ? null : mannWhitney(a, b).p,
      baseRuns: a, newRuns: b,
    });
  }
  const tested = rows.filter((r) => r.tested);
  const qs = benjaminiHochberg(tested.map((r) => r.p));
  tested.forEach((r, i) => { r.q = qs[i]; });
  const nA = base.length, nB = next.length;
  for (const r of rows) {
    if (!r.tested) {
      r.q = null;
      r.verdict = 'untested';
      continue;
    }
    const beyond = Math.abs(r.diff) >= r.floor;
    if (r.q <= q && beyond) r.verdict = r.diff > 0 ? 'slower' : 'faster';
    else if (r.lo >= -r.floor && r.hi <= r.floor) r.verdict = 'same';
    else {
      r.verdict = 'undecided';
      // Runs a side that would settle it: the interval's half-width shrinks
      // as 1/sqrt(n); it must fit inside the floor (same) or inside the
      // difference (different).
      const half = (r.hi - r.lo) / 2;
      const target = beyond ? Math.abs(r.diff) : r.floor - Math.abs(r.diff);
      const n = Math.max(nA, nB);
      r.runsNeeded = target > 0 ? Math.min(1000, Math.max(n + 1, Math.ceil(n * (half / target) ** 2))) : null;
    }
  }
  const order = { slower: 0, faster: 1, undecided: 2, same: 3, untested: 4 };
  rows.sort((x, y) => order[x.verdict] - order[y.verdict] || Math.abs(y.diff) - Math.abs(x.diff) || (x.key < y.key ? -1 : 1));
  const flagged = rows.filter((r) => r.verdict === 'slower' || r.verdict === 'faster');
  const windowRow = rows.find((r) => r.kind === 'window');
  let verdict;
  if (flagged.some((r) => r.verdict === 'slower')) verdict = 'slower';
  else if (flagged.length) verdict = 'faster';
  else if (!windowRow || windowRow.verdict === 'same') verdict = 'same';
  else verdict = 'undecided';

  // Functions on one side only, of at least minShare of the window there
  // (below it, which runtime helpers a run happened to sample is noise).
  const totalKeys = [...keys].filter((k) => k.startsWith('total\u0000'));
  const onlyOn = (side, other) => totalKeys.filter((k) => mean(vals(side, k)) >= smallest && mean(vals(other, k)) === 0).map(nameOf).sort();
  return {
    verdict, unit: runs.base[0].unit, runs: { base: nA, new: nB }, single, paired, tier: [...tiers.keys()][0],
    files: { base: base.map((r) => r.file), new: next.map((r) => r.file) },
    intervals, mixedIntervals: intervals.length > 1,
    threshold, q, minShare,
    window: windowRow ?? null,
    rows,
    tested: tested.length,
    uncorrected: tested.filter((r) => r.p <= 0.05 && Math.abs(r.diff) >= r.floor).length,
    threadsOnlyIn: { base: onlyBase, new: onlyNew },
    functions: { added: onlyOn('new', 'base'), removed: onlyOn('base', 'new') },
    // Exact call counts (instrumented builds), beside the times: lib/calls.mjs.
    calls: compareCalls(base.map((r) => r.profile), next.map((r) => r.profile)),
  };
}

// ---- output ---------------------------------------------------------------------

const KIND_TEXT = { window: 'window', thread: 'thread', self: 'self', total: 'total' };
const signed = (x, d = 1) => `${x >= 0 ? '+' : ''}${x.toFixed(d)}`;
// A row's interval; an untested row has none (no statistics were computed).
const interval = (r) => (r.lo === null || r.hi === null ? '[not tested]' : `[${signed(r.lo)}, ${signed(r.hi)}]`);

function rowCells(r, unit) {
  const u = unit === 'ms' ? ' ms' : '';
  return [
    r.verdict,
    KIND_TEXT[r.kind],
    printable(r.name), // no terminal control sequence, no CR overdrawing a row
    `${r.base.toFixed(1)}${u}`,
    `${r.new.toFixed(1)}${u}`,
    `${signed(r.diff)}${u} ${interval(r)}`,
    r.pct === null ? '' : `${signed(r.pct)} %`,
    r.q === null ? '' : r.q < 0.001 ? '<0.001' : r.q.toFixed(3),
    r.verdict === 'undecided' && r.runsNeeded ? `~${r.runsNeeded} runs a side` : '',
  ];
}

const HEAD = ['verdict', 'what', 'name', 'base', 'new', 'difference [95 % CI]', 'change', 'q', 'to settle'];

function summaryLines(res) {
  const lines = [];
  const count = (v) => res.rows.filter((r) => r.verdict === v && r.tested).length;
  lines.push(`verdict: ${res.verdict.toUpperCase()} (${res.runs.base} base run${res.runs.base === 1 ? '' : 's'}, ${res.runs.new} new; ` +
    `${res.tested} times of ${res.minShare} % of the window or more tested at a false discovery rate of ${res.q}; threshold ${[res.threshold.pct ? `${res.threshold.pct} %` : '', res.threshold.ms ? `${res.threshold.ms} ms` : ''].filter(Boolean).join(' and ') || 'none'})`);
  lines.push(`  slower ${count('slower')}, faster ${count('faster')}, same ${count('same')}, undecided ${count('undecided')}` +
    `; uncorrected (p <= 0.05 on each alone) ${res.uncorrected}`);
  if (res.window) lines.push(`  window (busy time, all threads): ${res.window.base.toFixed(1)} -> ${res.window.new.toFixed(1)} ${res.unit}, ${signed(res.window.diff)} ${interval(res.window)} (${res.window.verdict})`);
  if (res.tier) lines.push(`  wasm tier: ${res.tier}${res.tier === 'optimized' ? ' (record --tier optimized: the optimizing tier from the first call)' : " (the engine's own tiering: a long call may run in its baseline tier)"}`);
  if (res.paired) lines.push(`  paired: base run i against new run i (${res.runs.base} pairs, recorded in turns): drift a pair shares cancels`);
  if (res.single) lines.push('  one run on a side: the intervals cover the sampling noise within the runs (20 slices of each), not the spread between runs: record more runs (record --repeat N)');
  if (res.mixedIntervals) lines.push(`  sampling intervals differ (${res.intervals.join(', ')} us): compared in ms`);
  for (const side of ['base', 'new']) if (res.threadsOnlyIn[side].length) lines.push(`  threads only in ${side} (not compared): ${res.threadsOnlyIn[side].map(printable).join(', ')}`);
  if (res.functions.added.length) lines.push(`  functions only in new (${res.minShare} % of the window or more): ${res.functions.added.slice(0, 10).map(printable).join(', ')}${res.functions.added.length > 10 ? `, ... (${res.functions.added.length})` : ''}`);
  if (res.functions.removed.length) lines.push(`  functions only in base (${res.minShare} % of the window or more): ${res.functions.removed.slice(0, 10).map(printable).join(', ')}${res.functions.removed.length > 10 ? `, ... (${res.functions.removed.length})` : ''}`);
  const timeOf = (name) => {
    const r = res.rows.find((x) => x.kind === 'total' && x.name === name);
    return r ? `${r.verdict}, ${signed(r.diff)} ${res.unit}${r.pct === null ? '' : ` (${signed(r.pct)} %)`}` : null;
  };
  lines.push(...callDiffLines(res.calls, { printable, timeOf }));
  return lines;
}

// The table's rows: the flagged, then the undecided up to `top`; a row
// whose runs equal a row already shown (a leaf's total is its self time, a
// root frame's total the thread's) is left out of the table (not --json).
const shownRows = (res, top) => {
  const seen = new Set();
  const fresh = (r) => {
    const k = `${r.baseRuns.join(',')}|${r.newRuns.join(',')}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  };
  // The window first, so that a lone thread's rows fold into it.
  const order = [...res.rows].sort((a, b) => (a.kind === 'window' ? -1 : 0) - (b.kind === 'window' ? -1 : 0));
  const pick = (v) => order.filter((r) => r.verdict === v);
  const flagged = [...pick('slower'), ...pick('faster')].filter(fresh);
  const undecided = pick('undecided').filter(fresh);
  return [...flagged, ...undecided].slice(0, Math.max(top, flagged.length));
};

/** The terminal table. */
export function textDiff(res, { top = 20, title } = {}) {
  const lines = title ? [title, ''] : [];
  lines.push(...summaryLines(res));
  const rows = shownRows(res, top).map((r) => rowCells(r, res.unit));
  if (rows.length) {
    const table = [HEAD, ...rows];
    const widths = HEAD.map((_, i) => Math.max(...table.map((r) => r[i].length)));
    lines.push('');
    for (const r of table) lines.push(`  ${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}`);
  }
  return lines.join('\n');
}

const mdCell = (s) => printable(String(s)).replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`);

/** Markdown for a pull request comment. */
export function markdownDiff(res, { top = 20 } = {}) {
  const icon = { slower: '🔴', faster: '🟢', same: '⚪', undecided: '🟡' };
  const out = [`### wasmtrace diff: ${icon[res.verdict]} ${res.verdict}`, ''];
  out.push(...summaryLines(res).slice(1).map((l) => `- ${mdCell(l.trim())}`));
  const rows = shownRows(res, top);
  if (rows.length) {
    out.push('', `| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`);
    for (const r of rows) out.push(`| ${rowCells(r, res.unit).map(mdCell).join(' | ')} |`);
  }
  return out.join('\n');
}

const COLOURS = { slower: '#e0524a', faster: '#4a86e0', other: '#cfcfd4' };

/**
 * A differential flame graph (one self-contained page, report's renderer):
 * the new build's call trees, its runs merged per thread (widths: its
 * samples), each function coloured by the verdict on its total time: red
 * slower, blue faster, grey where no difference was shown.
 */
export function htmlDiff(res, next, { title = 'wasmtrace diff' } = {}) {
  const threads = new Map();
  for (const { profile } of next) {
    for (const t of profile.threads) {
      if (!threads.has(t.name)) threads.set(t.name, { tid: threads.size, name: t.name, samples: [], scopes: [] });
      const into = threads.get(t.name).samples;
      for (const s of t.samples) into.push(s);
    }
  }
  const merged = { format: next[0]?.profile.format ?? 'chrome', session: next[0]?.profile.session ?? null, intervalUs: next[0]?.profile.intervalUs ?? null, stats: null, threads: [...threads.values()] };
  const colours = {};
  for (const r of res.rows) {
    if (r.kind !== 'total') continue;
    colours[r.name] = r.verdict === 'slower' ? COLOURS.slower : r.verdict === 'faster' ? COLOURS.faster : COLOURS.other;
  }
  const legend = `${res.verdict.toUpperCase()}: the new build's ${res.runs.new} run(s) merged (widths: their samples); ` +
    'red: total time slower, blue: faster (q <= 0.05, past the threshold), grey: no difference shown';
  return htmlReport(merged, { title, colours, legend });
}

/** The JSON output (per-run values included). */
export function jsonDiff(res) {
  return JSON.stringify({ ...res, rows: res.rows.map(({ key, ...r }) => r) }, null, 2);
}

/** Exit status: 1 if anything got slower, 3 if undecided and failOnUndecided, else 0. */
export function diffStatus(res, { failOnUndecided = false } = {}) {
  if (res.verdict === 'slower') return 1;
  if (res.verdict === 'undecided' && failOnUndecided) return 3;
  return 0;
}
