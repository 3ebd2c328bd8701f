// Shared by the bench scripts: the statistics (median, bootstrap interval
// of the median) and docs/benchmarks.json, the machine-readable copy of
// every figure, so that a script can compare one run with the last.
//
// docs/benchmarks.json is an array of
//   { "name", "unit", "value", "ci95": [lo, hi] | null, "target": "<= 1" | null,
//     "n", "machine": { cores, cpu, loadavg, node, date, command } }
// sorted by name. Each writer replaces the entries it measured and keeps
// the others (a section run on its own updates only its own figures).
//
// docs/BENCHMARKS.md is written by several runs (`npm run bench`, or one
// section's script alone), so each generated section says which run wrote
// it (runStamp, stampSections), and its "Key figures" section is the table
// of docs/benchmarks.json, every figure with the command and date of its
// run. That section needs no measurement: `node bench/figures.mjs` rewrites
// it from the stored file (every writer of the file does it too).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIGURES_FILE = join(root, 'docs/benchmarks.json');
export const BENCHMARKS_FILE = join(root, 'docs/BENCHMARKS.md');

/** Median (the mean of the two middle values for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Median of xs and a percentile-bootstrap 95 % interval of it (seeded, so
 * the same data give the same interval). */
export function medianCI(xs, resamples = 4000) {
  let seed = 0x9e3779b9;
  const rand = () => {
    seed ^= seed << 13; seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5; seed >>>= 0;
    return seed / 2 ** 32;
  };
  const meds = [];
  const sample = new Array(xs.length);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < xs.length; i++) sample[i] = xs[Math.floor(rand() * xs.length)];
    meds.push(median(sample));
  }
  meds.sort((a, b) => a - b);
  return { median: median(xs), lo: meds[Math.floor(0.025 * resamples)], hi: meds[Math.ceil(0.975 * resamples) - 1], n: xs.length };
}

// Below this many runs a bootstrap interval of the median is little more
// than the min–max of a handful of values: the figure gets ci95 null.
export const MIN_RUNS_FOR_CI = 8;

/**
 * One entry of docs/benchmarks.json from per-run values xs (or from a
 * medianCI result): value = median, ci95 = the bootstrap interval when
 * there are enough runs, else null. `scale` maps the statistic (e.g. a
 * ratio to a percentage of overhead: (r) => 100 * (r - 1)).
 */
export function figure(name, unit, xs, { target = null, scale = (x) => x } = {}) {
  const c = Array.isArray(xs) ? (xs.length >= MIN_RUNS_FOR_CI ? medianCI(xs) : { median: median(xs), n: xs.length }) : xs;
  const ci95 = c.lo === undefined ? null : [scale(c.lo), scale(c.hi)];
  return { name, unit, value: scale(c.median), ci95, target, n: c.n };
}

/** The command line of this run as a user would type it: `npm run bench`
 * when npm started it, else `node bench/<script> args` (with the WT_*
 * settings it ran with). */
export function runCommand() {
  if (process.env.npm_lifecycle_event === 'bench') return 'npm run bench';
  const env = Object.entries(process.env).filter(([k]) => /^(WT_[A-Z_]+|WASMTRACE_WASM_BUILD)$/.test(k)).sort().map(([k, v]) => `${k}=${v} `).join('');
  const script = process.argv[1] ? relative(root, process.argv[1]) || basename(process.argv[1]) : 'node';
  return `${env}node ${[script, ...process.argv.slice(2)].join(' ')}`;
}

/** The wasm tree the benchmarks load (WASMTRACE_WASM_BUILD, default
 * build/wasm), and the emcc it was built with ('emcc 3.1.6'; from the stamp
 * scripts/build.sh writes), or null. */
export const benchTree = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
export function benchToolchain(tree = benchTree) {
  try {
    const m = /\) (\d+\.\d+\.\d+)/.exec(readFileSync(join(tree, '.emcc-version'), 'utf8'));
    return m ? `emcc ${m[1]}` : null;
  } catch {
    return null;
  }
}
/** A figure measured on another tree than build/wasm gets its toolchain in
 * its name (`hook.chromium.ns_per_call@emcc-6.0.5`), beside the default
 * tree's figure of the same name. */
function toolchainName(name) {
  if (!process.env.WASMTRACE_WASM_BUILD || benchTree === resolve(root, 'build/wasm')) return name;
  const t = benchToolchain();
  return t ? `${name}@${t.replace(' ', '-')}` : name;
}

/** The machine a figure was measured on, the toolchain of the wasm tree,
 * and the command that measured it. */
export function machineInfo(extra = {}) {
  return {
    toolchain: benchToolchain(),
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    date: new Date().toISOString(),
    command: runCommand(),
    ...extra,
  };
}

/** `2026-11-24 10:09 UTC` from an ISO date. */
const utc = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The line under a generated section's heading that says which run wrote
 * it: command, date, load average. */
export function runStamp(command = runCommand(), date = new Date().toISOString(), load = loadavg()) {
  return `_Run: \`${command}\`, ${utc(date)}, load average ${load.map((x) => x.toFixed(1)).join(' / ')}._`;
}

const STAMP = /^_Run: .*_$/;

/** Puts runStamp(...) under every numbered section heading (`## 3. ...`)
 * of md, replacing a stamp that is already there. */
export function stampSections(md, stamp = runStamp()) {
  const lines = md.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    if (!/^## \d+\. /.test(lines[i])) continue;
    out.push('', stamp);
    // Skip the old stamp (and the blank line before it) if there is one.
    if (lines[i + 1] === '' && STAMP.test(lines[i + 2] ?? '')) i += 2;
  }
  return out.join('\n');
}

const KEY_BEGIN = '<!-- Key figures: written by `node bench/figures.mjs` from docs/benchmarks.json. -->';
const KEY_END = '<!-- End of the key figures. -->';

const num = (x) => {
  if (typeof x !== 'number') return String(x);
  const a = Math.abs(x);
  const d = a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
  return String(Number(x.toFixed(d))).replace('-', '−');
};

/** The "Key figures" section: every entry of docs/benchmarks.json with its
 * interval, target and run. */
export function keyFiguresSection(figures = readFigures()) {
  const run = (m) => {
    if (!m) return '–';
    if (m.note) return m.note;
    const cmd = m.command ? `\`${m.command}\`` : 'command not recorded';
    return `${cmd}, ${m.date ? utc(m.date) : 'date not recorded'}${m.loadavg ? `, load ${m.loadavg[0]}` : ''}`;
  };
  const unit = (u) => (!u ? '' : u === 'ratio' ? '×' : u === 'us' ? ' µs' : ` ${u}`);
  const rows = figures.map((f) => `| \`${f.name}\` | ${num(f.value)}${unit(f.unit)} | ${f.ci95 ? `[${f.ci95.map(num).join(', ')}]` : '–'} | ${f.target ?? '–'} | ${f.n ?? '–'} | ${run(f.machine)} |`);
  return `${KEY_BEGIN}
## Key figures (\`docs/benchmarks.json\`)

Every figure of \`docs/benchmarks.json\`, the file scripts read, by its
stable name: the median, its percentile-bootstrap 95 % interval where the
run had enough rounds, the target where one was set, and the run that
measured it. Runs of single sections replace only their own figures, so
the figures come from several runs; the numbered sections below were each
written by the run their first line names, and where a section and this
table disagree, the later date is the current figure. The README quotes
this table (a test checks it does).

| figure | median | 95 % CI | target | n | run |
|---|---|---|---|---|---|
${rows.join('\n')}
${KEY_END}`;
}

/** Rewrites the key-figures section of docs/BENCHMARKS.md (inserted after
 * the introduction, before the first \`## \` heading, if it is not there). */
export function writeKeyFigures(file = BENCHMARKS_FILE, figures = readFigures()) {
  const doc = readFileSync(file, 'utf8');
  const section = keyFiguresSection(figures);
  let out;
  const a = doc.indexOf(KEY_BEGIN);
  const b = doc.indexOf(KEY_END);
  if (a >= 0 && b > a) out = doc.slice(0, a) + section + doc.slice(b + KEY_END.length);
  else {
    const first = doc.indexOf('\n## ');
    out = first < 0 ? `${doc.trimEnd()}\n\n${section}\n` : `${doc.slice(0, first + 1)}${section}\n\n${doc.slice(first + 1)}`;
  }
  writeFileSync(file, out);
  return out;
}

const round = (x) => (typeof x === 'number' && Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : x);

/** Reads docs/benchmarks.json as an array (an older object-keyed file,
 * { name: { median, runs } }, is read as entries without an interval). */
export function readFigures(file = FIGURES_FILE) {
  if (!existsSync(file)) return [];
  const old = JSON.parse(readFileSync(file, 'utf8'));
  if (Array.isArray(old)) return old;
  return Object.entries(old).map(([name, v]) => ({ name, unit: null, value: v.median, ci95: null, target: null, n: v.runs?.length ?? null, machine: null }));
}

/**
 * Merges figures (entries of figure()) into docs/benchmarks.json: each
 * replaces the entry of its name, the others are kept. `machine` is added
 * to every entry written now.
 */
export function writeFigures(figures, { machine = machineInfo(), file = FIGURES_FILE } = {}) {
  const byName = new Map(readFigures(file).map((f) => [f.name, f]));
  for (const f of figures) {
    const name = toolchainName(f.name);
    byName.set(name, {
      name,
      unit: f.unit,
      value: round(f.value),
      ci95: f.ci95 ? f.ci95.map(round) : null,
      target: f.target ?? null,
      n: f.n ?? null,
      machine,
    });
  }
  const out = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // One entry per line: a run's diff against the last reads figure by figure.
  writeFileSync(file, `[\n${out.map((f) => JSON.stringify(f)).join(',\n')}\n]\n`);
  if (file === FIGURES_FILE && existsSync(BENCHMARKS_FILE)) writeKeyFigures(BENCHMARKS_FILE, out);
  return out;
}

/**
 * The figures of bench/run.mjs's hot-path and sampler sections.
 * hot: { where: { calls_plain: [ns], calls_instrumented: [ns], ... } }, the
 * two call variants measured in the same rounds (paired by index);
 * sampler: [{ interval (µs), n (busy threads), runs: [{ ratePct, p99,
 * workerCpuPct, ... }] }].
 *   hook.<where>.ns_per_call          ns added per instrumented call
 *                                     (enter + exit), median of the
 *                                     per-round differences (target <= 3)
 *   sampler.<k>khz.<n>thread.ticks_pct   achieved rate, % of requested
 *   sampler.<k>khz.<n>thread.late_p99_us p99 of the ticks' lateness, µs
 *                                     (bench/sampler-run.mjs: from the trace)
 *   sampler.<k>khz.<n>thread.worker_cpu_pct  worker awake time, % of a core
 *   sampler.worker_cpu_pct            the same at 1 kHz, 1 busy thread
 * Targets (issue 13) where a row has one: at 1 kHz with fewer busy threads
 * than cores >= 99.5 % of ticks, p99 <= 200 µs, worker <= 15 %; at 10 kHz
 * >= 98 %.
 */
export function hotAndSamplerFigures(hot, sampler, cores = cpus().length) {
  const out = [];
  for (const [where, h] of Object.entries(hot)) {
    if (!h.calls_plain || !h.calls_instrumented) continue;
    const diffs = h.calls_instrumented.map((x, i) => x - h.calls_plain[i]);
    out.push(figure(`hook.${where}.ns_per_call`, 'ns', diffs, { target: '<= 3' }));
  }
  for (const { interval, n, runs } of sampler) {
    const khz = 1000 / interval;
    const key = `sampler.${khz}khz.${n}thread`;
    const spare = n <= cores - 1;
    const get = (k) => runs.map((r) => r[k]);
    const ticksTarget = !spare ? null : khz === 1 ? '>= 99.5' : khz === 10 ? '>= 98' : null;
    out.push(figure(`${key}.ticks_pct`, '%', get('ratePct'), { target: ticksTarget }));
    out.push(figure(`${key}.late_p99_us`, 'us', get('p99'), { target: spare && khz === 1 ? '<= 200' : null }));
    out.push(figure(`${key}.worker_cpu_pct`, '%', get('workerCpuPct'), { target: spare && khz === 1 ? '<= 15' : null }));
    if (khz === 1 && n === 1) out.push(figure('sampler.worker_cpu_pct', '%', get('workerCpuPct'), { target: '<= 15' }));
  }
  return out;
}

// Run alone: rewrite the key-figures section of docs/BENCHMARKS.md from the
// stored docs/benchmarks.json (no measurement).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeKeyFigures();
  console.log('wrote the key figures of docs/BENCHMARKS.md from docs/benchmarks.json');
}

/**
 * Replaces the section of docs/BENCHMARKS.md that starts with `heading`
 * (e.g. "## 12. Heap profiling") with `text`, or adds it before the
 * hand-written sections: what a benchmark run alone writes. `below`: a
 * section `npm run bench` does not write (it rewrites everything above the
 * marker), added just after the marker, where its run keeps it.
 */
export function replaceSection(heading, text, file = BENCHMARKS_FILE, { below = false } = {}) {
  const doc = readFileSync(file, 'utf8');
  const start = doc.indexOf(heading);
  const marker = doc.indexOf('<!-- Sections above: written by `npm run bench`.');
  let out;
  if (start >= 0) {
    const ends = [doc.indexOf('\n## ', start + 1), doc.indexOf('\n<!-- ', start + 1)].filter((i) => i >= 0);
    const next = ends.length ? Math.min(...ends) : -1;
    out = doc.slice(0, start) + text + (next < 0 ? '\n' : `\n${doc.slice(next + 1)}`);
  } else if (marker >= 0 && below) {
    const after = doc.indexOf('\n', marker) + 1;
    out = `${doc.slice(0, after)}\n${text}\n${doc.slice(after)}`;
  } else if (marker >= 0) {
    out = `${doc.slice(0, marker)}${text}\n\n${doc.slice(marker)}`;
  } else {
    out = `${doc.trimEnd()}\n\n${text}\n`;
  }
  writeFileSync(file, out);
}
