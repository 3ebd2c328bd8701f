// wasmtrace diff on real recordings (issue 26's figures): how often it
// cries wolf, how often it finds a real change, and how fast it is.
//
// The sample (samples/startup) and two builds with more work in one
// function, tokenize (~20 % of the busy samples): startup_tok110 (+10 %)
// and startup_tok120 (+20 %). WT_DIFF_ROUNDS rounds (10), each recording
// one run of each build in a rotating order with `wasmtrace record`
// (headless Chromium, the sample's own startup session at 1 kHz, until its
// startup-done signal). Then, with a seeded generator:
//   diff.aa.false_alarm_comparisons  20 A/A comparisons: the 10 base runs
//                                    split at random into 5 + 5; a
//                                    comparison "alarms" if any row is
//                                    flagged slower or faster (target <= 1
//                                    of 20); beside it the same with each
//                                    row's uncorrected p <= 0.05
//   diff.power.10pct_5runs           20 trials: 5 of the base runs against
//                                    5 of tok110, drawn at random; found if
//                                    tokenize's self time is flagged slower
//                                    (target >= 16 of 20; wrong sign: never)
//   diff.power.20pct_3runs           the same with tok120, 3 runs a side
//   diff.power.pthread_10pct_5runs   the same with startup_inf110: +10 % in
//                                    inflate_block, on the decoder pthreads
//   diff.paired.*                    the same with --paired: round r's base
//                                    run beside round r's run of the
//                                    variant (A/A: random pairs of base runs)
//   diff.machine.loop_cv_pct         the machine's own run-to-run noise:
//                                    a fixed loop (tokenize's, in JS) timed
//                                    in a fresh Node process before each
//                                    recording; its CV across the runs is
//                                    what no statistics can remove from
//                                    one run's absolute times
//   diff.calls.*                     exact call counts (issue 40): the
//                                    instrumented sample and its tok110
//                                    (27 calls of tokenize for 24), one run
//                                    of each per round too. A/A: 20 random
//                                    5 + 5 splits, a comparison alarms if
//                                    any count is 'changed'; power: 20
//                                    trials of 5 (and of 1) runs a side,
//                                    found if tokenize's count is
//                                    'changed'; runs whose counts vary
//                                    within a side are counted apart
//   diff.speed.10v10_ms              diffing 10 + 10 traces of ~50,000
//                                    samples or more each (9 s recorded
//                                    at 200 us), reading included (target
//                                    < 2000 ms)
// The splits reuse the same recordings, so the 20 comparisons are not
// independent: the figures are counts over these recordings. Hence:
//   diff.aa.fresh.*                  WT_DIFF_PART=aa-fresh: 20 A/A
//                                    comparisons that share no recording:
//                                    each records the instrumented sample
//                                    10 times, in turns A B A B ... (a
//                                    drift in the machine's load falls on
//                                    both sides alike), and diffs 5 + 5:
//                                    time alarms (target <= 1 of 20) and
//                                    changed call counts (<= 1 of 20)
//   bash scripts/build.sh wasm && node bench/diff.mjs
//   WT_DIFF_ROUNDS=N   rounds of recordings (default 10)
//   WT_DIFF_WRITE=0    print only: leave docs/ alone
//   WT_DIFF_TIER=optimized   record with record --tier optimized (figures diff.optimized.*, section 13b)
//   WT_DIFF_PART=aa-fresh    only the independent A/A (figures diff.aa.fresh.*, section 13c; ~200 recordings)
//   WT_DIFF_PART=calls-pthread  only the exact counts of a +10 % change on
//                            the decoder pthreads: the instrumented sample
//                            and its inf110 (27 calls of inflate_round per
//                            block for 24), in turns, WT_DIFF_ROUNDS rounds;
//                            20 trials at 5 runs a side and at 1 (figures
//                            diff.calls.power.pthread_*, section 13d)
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, readSide } from '../lib/diff.mjs';
import { seededRandom } from '../lib/stats.mjs';
import { figure, replaceSection, runCommand, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const thisFile = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.WT_DIFF_ROUNDS || 10);
const TRIALS = 20;
const BUILDS = { base: 'startup', tok110: 'startup_tok110', tok120: 'startup_tok120', inf110: 'startup_inf110',
  ibase: 'startup_instrumented', itok110: 'startup_instrumented_tok110' };
// The pthread's exact counts: only WT_DIFF_PART=calls-pthread records it.
const IINF110 = 'startup_instrumented_inf110';

const cli = (...args) => new Promise((ok, fail) => {
  execFile(process.execPath, [join(root, 'bin/wasmtrace.mjs'), ...args], { maxBuffer: 16 << 20 },
    (e, stdout, stderr) => (e ? fail(new Error(`wasmtrace ${args.join(' ')}: ${e.message}\n${stderr}`)) : ok(stdout)));
});
// WT_DIFF_TIER=optimized: every recording with record --tier optimized
// (lib/tier.mjs); its figures are named diff.optimized.*, and the reading
// speed (the same for either mode) is not measured again.
const TIER = process.env.WT_DIFF_TIER || 'default';
const RECORD = ['--wait-for', 'window.sampleStartupComplete === true', '--load-timeout', '120s', '--timeout', '120s', '-q',
  ...(TIER === 'default' ? [] : ['--tier', TIER])];

const rng = seededRandom;
function shuffled(xs, random) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const flaggedRows = (res) => res.rows.filter((r) => r.verdict === 'slower' || r.verdict === 'faster');
const uncorrectedRows = (res) => res.rows.filter((r) => r.tested && r.p <= 0.05 && Math.abs(r.diff) >= r.floor);

// The machine's noise: tokenize's loop (samples/startup/startup.c) over
// 4 MiB, 48 passes (~0.5 s), in a fresh process, timed after one pass of warm-up.
const LOOP = `const n = 4 << 20, t = new Uint8Array(n);
for (let i = 0; i < n; i++) t[i] = '{}[],:abcdefgh "0123'.charCodeAt((i * 7919) % 20);
const pass = () => { let k = 0, h = 0; for (let i = 0; i < n; i++) { const c = t[i];
  if (c === 123 || c === 125 || c === 91 || c === 93 || c === 44 || c === 58) k++; h = (Math.imul(h, 31) + c) | 0; } return k ^ h; };
let acc = pass(); const t0 = performance.now(); for (let p = 0; p < 48; p++) acc ^= pass();
console.log(JSON.stringify({ ms: performance.now() - t0, acc }));`;
export const loopMs = () => new Promise((ok, fail) => {
  execFile(process.execPath, ['-e', LOOP], (e, stdout) => (e ? fail(e) : ok(JSON.parse(stdout).ms)));
});

/** Records the rounds into dir/<build>/run-NN; returns { build: [{ file, profile }] }. */
export async function recordRounds(wasm, dir, rounds, log = () => {}, loops = []) {
  const names = Object.keys(BUILDS);
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const b of order) {
      loops.push(await loopMs());
      await cli('record', join(wasm, 'samples', BUILDS[b]), '--out', join(dir, b, `run-${String(r + 1).padStart(2, '0')}`), ...RECORD);
    }
    log(`diff bench: round ${r + 1}/${rounds} recorded`);
  }
  const side = (b) => readSide(readdirSync(join(dir, b)).sort().map((d) => join(dir, b, d, 'startup.json.gz')), b);
  return Object.fromEntries(names.map((b) => [b, side(b)]));
}

/** Exact-count trials: n runs a side drawn from base and next, TRIALS
 * times; found if fn's count changed, with how many others did and the
 * time verdict on fn's self time beside it. */
function countTrials(base, next, fn, n, random) {
  const out = [];
  for (let t = 0; t < TRIALS; t++) {
    const res = compare(shuffled(base, random).slice(0, n), shuffled(next, random).slice(0, n));
    const row = res.calls?.rows.find((r) => r.name === fn);
    const time = res.rows.find((r) => r.kind === 'self' && r.name === fn);
    out.push({ found: row?.verdict === 'changed', others: (res.calls?.changed ?? 0) - (row?.verdict === 'changed' ? 1 : 0),
      base: row?.baseRuns[0] ?? null, next: row?.newRuns[0] ?? null, timeVerdict: time?.verdict ?? 'absent' });
  }
  return out;
}

/** The A/A and power trials on recordings { base, tok110, tok120 }. */
export function trials(runs, seed = 26) {
  const random = rng(seed);
  const aa = [];
  for (let t = 0; t < TRIALS; t++) {
    const s = shuffled(runs.base, random);
    const res = compare(s.slice(0, 5), s.slice(5, 10));
    aa.push({ flagged: flaggedRows(res).map((r) => `${r.verdict} ${r.kind} ${r.name}`), uncorrected: uncorrectedRows(res).length, tested: res.tested });
  }
  const power = (variant, n, fn = 'tokenize') => {
    const out = [];
    for (let t = 0; t < TRIALS; t++) {
      const res = compare(shuffled(runs.base, random).slice(0, n), shuffled(runs[variant], random).slice(0, n));
      const tok = res.rows.find((r) => r.kind === 'self' && r.name === fn);
      out.push({ found: tok?.verdict === 'slower', wrongSign: tok?.verdict === 'faster', pct: tok?.pct ?? null, q: tok?.q ?? null, verdict: tok?.verdict ?? 'absent' });
    }
    return out;
  };
  // --paired: round r's base run beside round r's run of the variant (the
  // rounds record the builds in turns). A/A pairs random base runs (no round
  // has two), which keeps the null true without the pairs' advantage.
  const rounds = runs.base.length;
  const pairedAa = [];
  for (let t = 0; t < TRIALS; t++) {
    const s = shuffled(runs.base, random);
    const res = compare(s.slice(0, 5), s.slice(5, 10), { paired: true });
    pairedAa.push({ flagged: flaggedRows(res).map((r) => `${r.verdict} ${r.kind} ${r.name}`), uncorrected: uncorrectedRows(res).length, tested: res.tested });
  }
  const pairedPower = (variant, n, fn = 'tokenize') => {
    const out = [];
    for (let t = 0; t < TRIALS; t++) {
      const picked = shuffled([...Array(rounds).keys()], random).slice(0, n);
      const res = compare(picked.map((r) => runs.base[r]), picked.map((r) => runs[variant][r]), { paired: true });
      const tok = res.rows.find((r) => r.kind === 'self' && r.name === fn);
      out.push({ found: tok?.verdict === 'slower', wrongSign: tok?.verdict === 'faster', pct: tok?.pct ?? null, q: tok?.q ?? null, verdict: tok?.verdict ?? 'absent' });
    }
    return out;
  };
  // Exact call counts: the instrumented builds, no statistics.
  const counts = { aa: [], power5: [], power1: [] };
  if (runs.ibase && runs.itok110) {
    for (let t = 0; t < TRIALS; t++) {
      const s = shuffled(runs.ibase, random);
      const res = compare(s.slice(0, 5), s.slice(5, 10));
      counts.aa.push({ changed: res.calls?.changed ?? null, varies: res.calls?.varies ?? null });
    }
    const countPower = (n) => countTrials(runs.ibase, runs.itok110, 'tokenize', n, random);
    counts.power5 = countPower(5);
    counts.power1 = countPower(1);
  }
  // inflate_block +10 % on the decoder pthreads (both threads' self time
  // summed into one row). Drawn after the rest, so their draws are as before.
  const pthread10 = runs.inf110 ? power('inf110', 5, 'inflate_block') : [];
  const pairedPthread10 = runs.inf110 ? pairedPower('inf110', 5, 'inflate_block') : [];
  return {
    aa, power10: power('tok110', 5), power20: power('tok120', 3), pthread10,
    paired: { aa: pairedAa, power10: pairedPower('tok110', 5), power20: pairedPower('tok120', 3), pthread10: pairedPthread10 },
    counts,
  };
}

/** Diffs 10 + 10 traces of ~50,000 samples or more: 2 recordings at 200 us, each read 10 times. */
export async function speed(wasm, dir) {
  for (const b of ['base', 'tok110']) {
    await cli('record', join(wasm, 'samples', BUILDS[b]), '--startup', '9s', '--interval', '200us', '--out', join(dir, 'speed', b),
      '--load-timeout', '120s', '--timeout', '120s', '-q');
  }
  const files = (b) => Array(10).fill(join(dir, 'speed', b, 'startup.json.gz'));
  const t0 = performance.now();
  const res = compare(readSide(files('base'), 'base'), readSide(files('tok110'), 'new'));
  const ms = performance.now() - t0;
  const samples = readSide([files('base')[0]], 'base')[0].profile.threads.reduce((a, t) => a + t.samples.length, 0);
  return { ms, samples, tested: res.tested };
}

/**
 * Independent A/A: `comparisons` comparisons, each of 10 fresh recordings
 * of the instrumented sample recorded in turns (A B A B ...), none shared.
 * Each recording is deleted once its comparison is read.
 */
export async function freshAa(wasm, dir, comparisons = TRIALS, log = () => {}) {
  const out = [];
  for (let c = 0; c < comparisons; c++) {
    const sides = { a: [], b: [] };
    const base = join(dir, `aa-${c + 1}`);
    for (let i = 0; i < 10; i++) {
      const side = i % 2 ? 'b' : 'a';
      const d = join(base, `run-${i + 1}`);
      await cli('record', join(wasm, 'samples', BUILDS.ibase), '--out', d, ...RECORD);
      sides[side].push(join(d, 'startup.json.gz'));
    }
    const res = compare(readSide(sides.a, 'a'), readSide(sides.b, 'b'));
    out.push({ flagged: flaggedRows(res).map((r) => `${r.verdict} ${r.kind} ${r.name}`), uncorrected: uncorrectedRows(res).length,
      tested: res.tested, changed: res.calls?.changed ?? null, varies: res.calls?.varies ?? null, counted: res.calls?.rows.length ?? 0 });
    rmSync(base, { recursive: true, force: true });
    log(`diff bench: fresh A/A ${c + 1}/${comparisons}: ${out.at(-1).flagged.length} rows flagged, ${out.at(-1).changed} counts changed`);
  }
  return out;
}

/** The pthread's exact counts: { ibase, iinf110 } recorded in turns, then the trials. */
export async function pthreadCounts(wasm, dir, rounds, log = () => {}) {
  const builds = { ibase: BUILDS.ibase, iinf110: IINF110 };
  const files = { ibase: [], iinf110: [] };
  for (let r = 0; r < rounds; r++) {
    for (const b of r % 2 ? ['iinf110', 'ibase'] : ['ibase', 'iinf110']) {
      const d = join(dir, b, `run-${String(r + 1).padStart(2, '0')}`);
      await cli('record', join(wasm, 'samples', builds[b]), '--out', d, ...RECORD);
      files[b].push(join(d, 'startup.json.gz'));
    }
    log(`diff bench: round ${r + 1}/${rounds} recorded`);
  }
  const runs = { ibase: readSide(files.ibase, 'base'), iinf110: readSide(files.iinf110, 'new') };
  const random = rng(40);
  const trial = (n) => countTrials(runs.ibase, runs.iinf110, 'inflate_round', n, random);
  return { rounds, power5: trial(5), power1: trial(1) };
}

export function pthreadCountsFigures(res) {
  const n = (xs, k) => xs.filter(k).length;
  return [
    figure('diff.calls.power.pthread_10pct_5runs', 'of 20', { median: n(res.power5, (x) => x.found), n: res.power5.length }, { target: '>= 16' }),
    figure('diff.calls.power.pthread_10pct_1run', 'of 20', { median: n(res.power1, (x) => x.found), n: res.power1.length }),
    figure('diff.calls.settled_alone_pthread_5runs', 'of 20', { median: n(res.power5, (x) => x.found && x.others === 0), n: res.power5.length }),
  ];
}

export function pthreadCountsSection(res, command, load) {
  const p5 = res.power5, p1 = res.power1, ex = p5.find((x) => x.base !== null);
  const n = (xs) => xs.filter((x) => x.found).length;
  return `## 13d. wasmtrace diff: exact counts of a change on a pthread

\`${command}\` (\`bench/diff.mjs\`), headless Chromium. ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'};
load average ${load.before.map((x) => x.toFixed(2)).join(' / ')} before, ${load.after.map((x) => x.toFixed(2)).join(' / ')} after; Node ${process.version}.

${res.rounds} rounds, each recording the instrumented sample and \`startup_instrumented_inf110\` (inflate_block's work
+10 % on the two decoder pthreads, as 27 rounds of \`inflate_round\` per block for 24) in turns. Trials draw from
these recordings with a seeded generator (not independent of each other).

- 5 runs a side: inflate_round's count changed in **${n(p5)} of 20** (target ≥ 16${ex ? `; ${ex.base} -> ${ex.next} calls` : ''}),
  ${p5.filter((x) => x.found && x.others === 0).length} with no other count changed (the counts settle it alone); the time verdicts on its self
  time there: ${['slower', 'undecided', 'same', 'faster', 'absent'].map((v) => `${v} ${p5.filter((x) => x.timeVerdict === v).length}`).join(', ')}.
- 1 run a side: **${n(p1)} of 20**.
`;
}

export function freshAaFigures(aa) {
  const n = (k) => aa.filter(k).length;
  return [
    figure('diff.aa.fresh.false_alarm_comparisons', 'of 20', { median: n((x) => x.flagged.length > 0), n: aa.length }, { target: '<= 1' }),
    figure('diff.aa.fresh.uncorrected_alarm_comparisons', 'of 20', { median: n((x) => x.uncorrected > 0), n: aa.length }),
    figure('diff.calls.aa.fresh.changed_comparisons', 'of 20', { median: n((x) => x.changed !== 0), n: aa.length }, { target: '<= 1' }),
  ];
}

export function freshAaSection(aa, command, load) {
  const flagged = aa.filter((x) => x.flagged.length);
  const changed = aa.filter((x) => x.changed !== 0);
  return `## 13c. wasmtrace diff: A/A on fresh recordings

\`${command}\` (\`bench/diff.mjs\`), headless Chromium. ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'};
load average ${load.before.map((x) => x.toFixed(2)).join(' / ')} before, ${load.after.map((x) => x.toFixed(2)).join(' / ')} after; Node ${process.version}.

${aa.length} A/A comparisons that share no recording (section 13's splits reuse ten runs): each records the
instrumented sample (\`startup_instrumented\`, exact call counts on) 10 times in turns, A B A B ..., so that a
drift in the machine's load falls on both sides alike, and diffs the 5 A runs against the 5 B runs.

- time: **${flagged.length} of ${aa.length}** comparisons flag any row slower or faster (target ≤ 1)${flagged.length ? `: ${flagged.map((x) => x.flagged.join(', ')).join('; ')}` : ''};
  with each row's uncorrected p ≤ 0.05 instead, ${aa.filter((x) => x.uncorrected > 0).length} of ${aa.length} would (${aa.reduce((a, x) => a + x.uncorrected, 0)} rows in all;
  ${aa[0]?.tested ?? 0} rows tested per comparison).
- exact call counts: a count changed in **${changed.length} of ${aa.length}** (target ≤ 1; ${aa[0]?.counted ?? 0} functions counted);
  a count varied within a side in ${aa.filter((x) => x.varies !== 0).length}.
`;
}

export async function diffBench({ wasm, rounds = ROUNDS, log = () => {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-diff-bench-'));
  try {
    const loadBefore = loadavg();
    const loops = [];
    const runs = await recordRounds(wasm, dir, rounds, log, loops);
    const t = trials(runs);
    let sp = null;
    if (TIER === 'default') {
      log('diff bench: timing 10 + 10 traces of ~50k samples');
      sp = await speed(wasm, dir);
    }
    const tokCv = (b, fn = 'tokenize') => {
      const xs = runs[b].map((r) => r.profile.threads.reduce((a, th) => a + th.samples.filter((s) => s.stack.at(-1) === fn).length, 0));
      const m = xs.reduce((a, x) => a + x, 0) / xs.length;
      return { mean: m, cv: Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) / m };
    };
    const lm = loops.reduce((a, x) => a + x, 0) / loops.length;
    const machine = { loops, mean: lm, cv: Math.sqrt(loops.reduce((a, x) => a + (x - lm) ** 2, 0) / (loops.length - 1)) / lm };
    return { rounds, tier: TIER, ...t, speed: sp, machine, tokenize: { base: tokCv('base'), tok110: tokCv('tok110'), tok120: tokCv('tok120') },
      inflate: { base: tokCv('base', 'inflate_block'), inf110: tokCv('inf110', 'inflate_block') }, loadBefore, loadAfter: loadavg() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function diffFigures(res) {
  const count = (name, xs, k, target) => figure(name, 'of 20', { median: xs.filter((x) => (typeof k === 'function' ? k(x) : x[k])).length, n: xs.length }, { target });
  const all = diffFiguresOf(res, count).filter((f) => f);
  return res.tier && res.tier !== 'default' ? all.map((f) => ({ ...f, name: f.name.replace(/^diff\./, `diff.${res.tier}.`) })) : all;
}

function diffFiguresOf(res, count) {
  return [
    count('diff.aa.false_alarm_comparisons', res.aa, (x) => x.flagged.length > 0, '<= 1'),
    count('diff.aa.uncorrected_alarm_comparisons', res.aa, (x) => x.uncorrected > 0, null),
    count('diff.power.10pct_5runs', res.power10, 'found', '>= 16'),
    count('diff.power.10pct_5runs.wrong_sign', res.power10, 'wrongSign', '0'),
    count('diff.power.20pct_3runs', res.power20, 'found', '>= 16'),
    count('diff.power.20pct_3runs.wrong_sign', res.power20, 'wrongSign', '0'),
    ...(res.pthread10?.length ? [
      count('diff.power.pthread_10pct_5runs', res.pthread10, 'found', '>= 16'),
      count('diff.power.pthread_10pct_5runs.wrong_sign', res.pthread10, 'wrongSign', '0'),
      count('diff.paired.power.pthread_10pct_5runs', res.paired.pthread10, 'found', '>= 16'),
      figure('diff.inflate_block.cv_pct', '%', { median: 100 * res.inflate.base.cv, n: res.rounds }),
    ] : []),
    res.speed && figure('diff.speed.10v10_ms', 'ms', { median: res.speed.ms, n: 1 }, { target: '< 2000' }),
    figure('diff.machine.loop_cv_pct', '%', { median: 100 * res.machine.cv, n: res.machine.loops.length }),
    figure('diff.tokenize.cv_pct', '%', { median: 100 * res.tokenize.base.cv, n: res.rounds }),
    count('diff.paired.aa.false_alarm_comparisons', res.paired.aa, (x) => x.flagged.length > 0, '<= 1'),
    count('diff.paired.power.10pct_5runs', res.paired.power10, 'found', '>= 16'),
    count('diff.paired.power.10pct_5runs.wrong_sign', res.paired.power10, 'wrongSign', '0'),
    count('diff.paired.power.20pct_3runs', res.paired.power20, 'found', '>= 16'),
    count('diff.paired.power.20pct_3runs.wrong_sign', res.paired.power20, 'wrongSign', '0'),
    ...(res.counts?.power5.length ? [
      count('diff.calls.aa.changed_comparisons', res.counts.aa, (x) => x.changed !== 0, '<= 1'),
      count('diff.calls.aa.varying_comparisons', res.counts.aa, (x) => x.varies !== 0, null),
      count('diff.calls.power.10pct_5runs', res.counts.power5, 'found', '>= 16'),
      count('diff.calls.power.10pct_1run', res.counts.power1, 'found', null),
      // The share of +10 % comparisons the counts settle alone: tokenize's
      // count changed and nothing else's did.
      count('diff.calls.settled_alone_5runs', res.counts.power5, (x) => x.found && x.others === 0, null),
    ] : []),
  ];
}

export function diffLines(res) {
  return diffFigures(res).map((f) => `${f.name} ${f.unit === 'ms' ? f.value.toFixed(0) : f.unit === '%' ? f.value.toFixed(1) : f.value} ${f.unit}${f.target ? ` (target ${f.target})` : ''}`);
}

export function diffSection(res, command) {
  const pct = (x) => (x === null ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`);
  const load = (l) => l.map((x) => x.toFixed(2)).join(' / ');
  const rows = (xs) => xs.map((x, i) => `| ${i + 1} | ${x.verdict} | ${pct(x.pct)} | ${x.q === null ? '–' : x.q.toFixed(3)} |`).join('\n');
  const aaFlag = res.aa.filter((x) => x.flagged.length);
  const tierNote = res.tier && res.tier !== 'default'
    ? ` Recorded with \`record --tier ${res.tier}\` (the optimizing tier from the first call). On 2 cores the sampler loses its ticks while the workers compile the module with TurboFan (one run: no sample in \`main()\`'s first ~0.8 s), and tokenize, first in \`main()\`, is sampled in part or not at all: its time here is that gap's, not the function's.` : " The engine's own tiering (record's default).";
  return `## ${res.tier && res.tier !== 'default' ? `13b. wasmtrace diff, ${res.tier} tier` : '13. wasmtrace diff'} on real recordings: false alarms, power, speed

\`${command}\` (\`bench/diff.mjs\`), headless Chromium. ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'};
load average ${load(res.loadBefore)} before, ${load(res.loadAfter)} after; Node ${process.version}.${tierNote}

${res.rounds} rounds, each recording one run of the sample, of \`startup_tok110\` (tokenize +10 %) and of
\`startup_tok120\` (+20 %), in a rotating order (the sample's startup session, 1 kHz, until its
startup-done signal). tokenize's self time per run: base ${res.tokenize.base.mean.toFixed(0)} ms, run-to-run
CV ${(100 * res.tokenize.base.cv).toFixed(1)} %; tok110 ${res.tokenize.tok110.mean.toFixed(0)} ms (CV ${(100 * res.tokenize.tok110.cv).toFixed(1)} %); tok120 ${res.tokenize.tok120.mean.toFixed(0)} ms (CV ${(100 * res.tokenize.tok120.cv).toFixed(1)} %).
Trials draw from these recordings with a seeded generator (not independent of each other).

The machine's own noise, measured before each of the ${res.machine.loops.length} recordings: tokenize's loop in JS, 48
passes over 4 MiB in a fresh Node process, ${res.machine.mean.toFixed(0)} ms on average with a run-to-run **CV of
${(100 * res.machine.cv).toFixed(1)} %** (range ${Math.min(...res.machine.loops).toFixed(0)} – ${Math.max(...res.machine.loops).toFixed(0)} ms). At a CV of c, a 10 % change with 5 runs a side gives
Welch's t ≈ 0.10 / (c × √(2/5)): ${(0.1 / (res.tokenize.base.cv * Math.sqrt(0.4))).toFixed(1)} at tokenize's CV here, ${(0.1 / (res.machine.cv * Math.sqrt(0.4))).toFixed(1)} at the loop's,
where the family's correction needs about 4 or more (p ≈ 0.004 for the smallest of ~60 tests).

- A/A, 20 random 5 + 5 splits of the base runs: **${aaFlag.length} of 20** comparisons flag anything
  (target ≤ 1)${aaFlag.length ? `: ${aaFlag.map((x) => x.flagged.join(', ')).join('; ')}` : ''}; with each row's uncorrected p ≤ 0.05 instead,
  ${res.aa.filter((x) => x.uncorrected > 0).length} of 20 would (${res.aa.reduce((a, x) => a + x.uncorrected, 0)} rows in all; ${res.aa[0]?.tested ?? 0} rows tested per comparison).
- tokenize +10 %, 5 runs a side: flagged slower in **${res.power10.filter((x) => x.found).length} of 20** (target ≥ 16), faster in ${res.power10.filter((x) => x.wrongSign).length}.
- tokenize +20 %, 3 runs a side: flagged slower in **${res.power20.filter((x) => x.found).length} of 20** (target ≥ 16), faster in ${res.power20.filter((x) => x.wrongSign).length}.
${res.pthread10?.length ? `- inflate_block +10 % (\`startup_inf110\`), on the two decoder pthreads (self time ${res.inflate.base.mean.toFixed(0)} samples a run,
  CV ${(100 * res.inflate.base.cv).toFixed(1)} %), 5 runs a side: flagged slower in **${res.pthread10.filter((x) => x.found).length} of 20** (target ≥ 16), faster in
  ${res.pthread10.filter((x) => x.wrongSign).length}; paired: **${res.paired.pthread10.filter((x) => x.found).length} of 20**.
` : ''}- \`--paired\` (round r's base run beside round r's run of the variant, recorded in turns): A/A (random pairs of
  base runs) **${res.paired.aa.filter((x) => x.flagged.length).length} of 20**; +10 %, 5 pairs: **${res.paired.power10.filter((x) => x.found).length} of 20**
  (faster ${res.paired.power10.filter((x) => x.wrongSign).length}); +20 %, 3 pairs: **${res.paired.power20.filter((x) => x.found).length} of 20** (faster ${res.paired.power20.filter((x) => x.wrongSign).length}).
${res.counts?.power5.length ? `- Exact call counts (the instrumented sample, and its tok110: tokenize called 27 times for 24, +12.5 %, its work +10 %),
  one run of each per round too: A/A, 20 random 5 + 5 splits: a count changed in **${res.counts.aa.filter((x) => x.changed !== 0).length} of 20** (a count
  varied within a side in ${res.counts.aa.filter((x) => x.varies !== 0).length}); 5 runs a side: tokenize's count changed in **${res.counts.power5.filter((x) => x.found).length} of 20**
  (${res.counts.power5.filter((x) => x.found && x.others === 0).length} with no other count changed: the counts settle it alone; the time verdicts on its
  self time there: ${['slower', 'undecided', 'same', 'faster'].map((v) => `${v} ${res.counts.power5.filter((x) => x.timeVerdict === v).length}`).join(', ')}); 1 run a side: **${res.counts.power1.filter((x) => x.found).length} of 20**.
` : ''}${res.speed ? `- 10 + 10 traces of ${res.speed.samples.toLocaleString('en')} samples each: **${res.speed.ms.toFixed(0)} ms** to read and diff (target < 2,000).` : '- reading speed: as in section 13 (the mode does not change it)'}

| trial (+10 %, 5 a side) | tokenize verdict | change | q |
|---|---|---|---|
${rows(res.power10)}

| trial (+20 %, 3 a side) | tokenize verdict | change | q |
|---|---|---|---|
${rows(res.power20)}
`;
}

// Alone: node bench/diff.mjs
if (process.argv[1] && resolve(process.argv[1]) === thisFile) {
  const wasm = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
  const t0 = Date.now();
  const log = (m) => console.error(`wasmtrace diff bench [${((Date.now() - t0) / 1000).toFixed(0)} s]: ${m}`);
  // The parts npm run bench leaves out: each records into its own temporary
  // directory, prints its figures and section, and writes them below the
  // bench's marker.
  const PARTS = {
    'aa-fresh': { heading: '## 13c. wasmtrace diff: A/A on fresh recordings', run: (dir) => freshAa(wasm, dir, TRIALS, log),
      figures: freshAaFigures, section: freshAaSection },
    'calls-pthread': { heading: '## 13d. wasmtrace diff: exact counts of a change on a pthread', run: (dir) => pthreadCounts(wasm, dir, ROUNDS, log),
      figures: pthreadCountsFigures, section: pthreadCountsSection },
  };
  const part = PARTS[process.env.WT_DIFF_PART];
  if (process.env.WT_DIFF_PART && !part) {
    console.error(`bench/diff.mjs: WT_DIFF_PART=${process.env.WT_DIFF_PART}: give one of ${Object.keys(PARTS).join(', ')}`);
    process.exit(2);
  }
  if (part && TIER !== 'default') {
    console.error(`bench/diff.mjs: WT_DIFF_PART=${process.env.WT_DIFF_PART} records the default tier only (its figures carry no tier): leave WT_DIFF_TIER out`);
    process.exit(2);
  }
  if (part) {
    const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-diff-part-'));
    try {
      const before = loadavg();
      const res = await part.run(dir);
      const figs = part.figures(res);
      for (const f of figs) console.log(`${f.name} ${f.value} ${f.unit}${f.target ? ` (target ${f.target})` : ''}`);
      const text = part.section(res, runCommand(), { before, after: loadavg() });
      if (process.env.WT_DIFF_WRITE !== '0') {
        writeFigures(figs);
        replaceSection(part.heading, stampSections(text), undefined, { below: true });
      }
      console.log(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    process.exit(0);
  }
  const res = await diffBench({ wasm, log });
  for (const l of diffLines(res)) console.log(l);
  console.log(`machine loop ms: ${res.machine.loops.map((x) => x.toFixed(0)).join(' ')}`);
  const text = diffSection(res, `${TIER === 'default' ? '' : `WT_DIFF_TIER=${TIER} `}node bench/diff.mjs`);
  if (process.env.WT_DIFF_WRITE !== '0') {
    writeFigures(diffFigures(res));
    replaceSection(TIER === 'default' ? '## 13. wasmtrace diff' : `## 13b. wasmtrace diff, ${TIER} tier`, stampSections(text), undefined, { below: TIER !== 'default' });
  }
  console.log(text);
}
