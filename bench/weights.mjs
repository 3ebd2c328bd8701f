// Late ticks and sample weights (issue 13, part 2): when busy threads
// outnumber cores the OS decides when the sampler runs, and the ticks it
// misses are not spread evenly over what the threads do. A sample stands
// for the grid periods since its thread's previous one (its weight,
// native/src/encoder.h), so readers that weigh samples should stay closer
// to the truth than readers that count them.
//
// Runs the fidelity workload (tests/fidelity: known self-time shares,
// every function instrumented, each thread measuring its own truth) with
// 4 busy threads (main + 3 pthreads) on this machine's cores at 1 kHz, and
// computes from the same trace, per thread and function, |share - truth|
// counting samples ("counts") and weighing them ("weights"). Both come
// from one recording, so the comparison is paired and load is shared.
//   fidelity.4busy.counts.mean_pp    mean |error| over threads x functions
//   fidelity.4busy.weights.mean_pp   the same, samples weighed
//   fidelity.4busy.weights_minus_counts_pp  per-run paired difference
//   fidelity.4busy.missed_pct        grid slots the sampler missed
//   node bench/weights.mjs            (WT_WEIGHT_RUNS=10; section 9 of npm run bench)
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectTraces } from '../js/playwright.mjs';
import { readProfile } from '../lib/profile.mjs';
import { figure, median, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FUNCTIONS = ['fid_outer', 'fid_middle', 'fid_inner'];
export const PTHREADS = 3; // + main: 4 busy threads

/** One recording; per-run mean |error| by counts and by weights (pp). */
export async function weightsRun(openPage, pthreads = PTHREADS) {
  const p = await openPage(`tests/fidelity/index.html?threads=${pthreads}`, 'self.fidelityDone === true');
  const truth = await p.evaluate(() => self.fidelityTruth);
  const [s] = await collectTraces(p, { parse: false, timeoutMs: 300000 });
  await p.close();
  const profile = readProfile(s.bytes);
  const errs = { counts: [], weights: [] };
  let slots = 0, samples = 0;
  for (const t of profile.threads) {
    const m = truth[t.name];
    if (!m) continue;
    const inWorkload = t.samples.filter((x) => x.stack.includes('run_workload'));
    if (inWorkload.length < 50) continue;
    const iv = profile.intervalUs;
    slots += Math.floor(inWorkload.at(-1).ts / iv) - Math.floor(inWorkload[0].ts / iv) + 1;
    samples += inWorkload.length;
    const total = FUNCTIONS.reduce((n, f) => n + m[f], 0);
    for (const [kind, w] of [['counts', () => 1], ['weights', (x) => x.weight]]) {
      const all = inWorkload.reduce((n, x) => n + w(x), 0);
      for (const f of FUNCTIONS) {
        const self = inWorkload.filter((x) => x.stack.at(-1) === f).reduce((n, x) => n + w(x), 0);
        errs[kind].push(Math.abs((100 * self) / all - (100 * m[f]) / total));
      }
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { counts: mean(errs.counts), weights: mean(errs.weights), missedPct: slots ? (100 * (slots - samples)) / slots : 0, threads: errs.counts.length / 3 };
}

export function weightsFigures(runs) {
  return [
    figure('fidelity.4busy.counts.mean_pp', 'pp', runs.map((r) => r.counts)),
    figure('fidelity.4busy.weights.mean_pp', 'pp', runs.map((r) => r.weights)),
    figure('fidelity.4busy.weights_minus_counts_pp', 'pp', runs.map((r) => r.weights - r.counts)),
    figure('fidelity.4busy.missed_pct', '%', runs.map((r) => r.missedPct)),
  ];
}

const fmt = (x) => x.toFixed(2);
const ci = (f) => (f.ci95 ? ` [95 % CI ${fmt(f.ci95[0])}, ${fmt(f.ci95[1])}]` : '');

export function weightsSection(runs, command) {
  const f = Object.fromEntries(weightsFigures(runs).map((x) => [x.name, x]));
  const row = (r, i) => `| ${i + 1} | ${fmt(r.missedPct)} | ${fmt(r.counts)} | ${fmt(r.weights)} | ${fmt(r.weights - r.counts)} |`;
  return `## 9. Late ticks: counted vs weighed samples (4 busy threads)

The fidelity workload (\`tests/fidelity\`, known self-time shares measured by
each thread itself) with ${PTHREADS} pthreads besides main, i.e. 4 busy threads
on this machine's cores, sampled at 1 kHz. When threads outnumber cores the OS
decides when the sampler runs; a sample after k missed ticks weighs k + 1
(native/src/encoder.h). Each recording gives both errors (mean |share − truth|
over the threads × 3 functions): counting samples, and weighing them, so the
difference is paired. Command: \`${command}\`.

| run | slots missed % | counted, mean error pp | weighed, mean error pp | weighed − counted pp |
|---|---|---|---|---|
${runs.map(row).join('\n')}

- counted: median **${fmt(f['fidelity.4busy.counts.mean_pp'].value)} pp**${ci(f['fidelity.4busy.counts.mean_pp'])}
- weighed: median **${fmt(f['fidelity.4busy.weights.mean_pp'].value)} pp**${ci(f['fidelity.4busy.weights.mean_pp'])}
- paired difference (weighed − counted): median **${fmt(f['fidelity.4busy.weights_minus_counts_pp'].value)} pp**${ci(f['fidelity.4busy.weights_minus_counts_pp'])}
- slots missed: median ${fmt(median(runs.map((r) => r.missedPct)))} %
`;
}

// Alone: node bench/weights.mjs
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { launch } = await import('../lib/browser.mjs');
  const { serve } = await import('../lib/serve.mjs');
  const server = await serve(join(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm'));
  const browser = await launch();
  const runs = [];
  try {
    const openPage = async (path, waitFor) => {
      const p = await browser.newPage();
      await p.goto(server.url + path);
      await p.waitForFunction(waitFor, null, { timeout: 120000, polling: 50 });
      return p;
    };
    const n = Number(process.env.WT_WEIGHT_RUNS || 10);
    for (let i = 0; i < n; i++) {
      runs.push(await weightsRun(openPage));
      const r = runs.at(-1);
      console.error(`run ${i + 1}/${n}: missed ${fmt(r.missedPct)} %, counted ${fmt(r.counts)} pp, weighed ${fmt(r.weights)} pp`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  for (const f of weightsFigures(runs)) console.log(`${f.name} ${fmt(f.value)} ${f.unit}${ci(f)} n=${f.n}`);
  writeFigures(weightsFigures(runs));
}
