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
//   fidelity.callheavy.max_pp        the worse of the two phases' error: its
//                                    share of the trace's phase samples
//                                    (total time) minus its measured share,
//                                    in percentage points
// and writes the medians to docs/benchmarks.json under those names
// (bench/figures.mjs: other entries in the file are kept). bench/run.mjs calls it too.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readProfile, weightOf } from '../lib/profile.mjs';
import { figure, writeFigures } from './figures.mjs';

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
      'fidelity.callheavy.max_pp': figure((r) => r.fidelityMaxPp),
    },
  };
}

/** The figures as entries of docs/benchmarks.json (bench/figures.mjs);
 * with the default 5 runs they carry no interval (ci95 null). */
export function callHeavyJson(figures) {
  const units = { 'sampler.torn_pct.callheavy': '%', 'sampler.truncated_pct.callheavy': '%', 'fidelity.callheavy.max_pp': 'pp' };
  return Object.entries(figures).map(([name, v]) => figure(name, units[name], v.runs));
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
  for (const [k, v] of Object.entries(figures)) console.log(`${k}: median ${v.median.toFixed(3)} (runs: ${v.runs.map((x) => x.toFixed(2)).join(' ')})`);
  if (build === resolve(join(root, 'build/wasm'))) writeFigures(callHeavyJson(figures));
}
