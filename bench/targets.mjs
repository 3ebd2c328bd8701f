// The issue-13 targets that `npm run bench` measures in only 3–5 runs (too
// few for an interval), measured alone with enough runs for a bootstrap
// 95 % interval of the median, in headless Chromium:
//   hook.chromium.ns_per_call        bench/calls plain vs instrumented,
//                                    paired per round (ns added per call)
//   sampler.1khz.1thread.*, sampler.10khz.1thread.*, sampler.worker_cpu_pct
//                                    bench/sampler with 1 busy thread
// Rounds alternate the runs (calls plain, calls instrumented, the hook
// designs not shipped (calls_branchless, and two experiments: calls_tls_only,
// hooks that only look up the thread, and calls_stores_only, the stores
// without the load of `top`: docs/BENCHMARKS.md, "Hooks"),
// sampler 1 kHz, sampler 10 kHz), so that drift in the machine's load is
// shared.
// Writes the figures to docs/benchmarks.json (bench/figures.mjs).
//   bash scripts/build.sh wasm && node bench/targets.mjs   (WT_TARGET_RUNS=10)
import { existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { figure, hotAndSamplerFigures, writeFigures } from './figures.mjs';
import { samplerRun } from './sampler-run.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = join(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
const RUNS = Number(process.env.WT_TARGET_RUNS || 10);
const MS = 2000; // busy time of a sampler run, as bench/run.mjs

const server = await serve(wasm);
const browser = await launch();
const openPage = async (path, waitFor) => {
  const p = await browser.newPage();
  await p.goto(server.url + path);
  await p.waitForFunction(waitFor, null, { timeout: 120000, polling: 20 });
  return p;
};
// As bench/run.mjs section 1: a 1 kHz session records category "app".
const session = JSON.stringify({ sessions: [{ name: 'bench', sampling: { intervalUs: 1000 }, categories: ['app'] }] });
const calls = async (variant) => {
  const p = await openPage(`bench/calls_${variant}/index.html?args=calls%200%207&config=${encodeURIComponent(session)}`, 'self.benchResult');
  const r = await p.evaluate(() => self.benchResult.nsPerOp);
  await p.close();
  return r;
};

const hot = { chromium: { calls_plain: [], calls_instrumented: [] } };
// Hook designs measured beside the shipped one, where the build has them.
const DESIGNS = ['branchless', 'tls_only', 'stores_only'].filter((v) => existsSync(join(wasm, `bench/calls_${v}/calls.js`)));
for (const v of DESIGNS) hot.chromium[`calls_${v}`] = [];
const sampler = [{ interval: 1000, n: 1, runs: [] }, { interval: 100, n: 1, runs: [] }];
try {
  for (let r = 0; r < RUNS; r++) {
    hot.chromium.calls_plain.push(await calls('plain'));
    hot.chromium.calls_instrumented.push(await calls('instrumented'));
    for (const v of DESIGNS) hot.chromium[`calls_${v}`].push(await calls(v));
    for (const s of sampler) s.runs.push(await samplerRun(openPage, s.interval, s.n, MS));
    console.error(`round ${r + 1}/${RUNS}`);
  }
} finally {
  await browser.close();
  await server.close();
}
const figures = hotAndSamplerFigures(hot, sampler).filter((f) => !f.name.startsWith('hook.') || f.name === 'hook.chromium.ns_per_call');
for (const f of figures) {
  console.log(`${f.name} ${f.value.toFixed(2)} ${f.unit}${f.ci95 ? ` [95% CI ${f.ci95[0].toFixed(2)}, ${f.ci95[1].toFixed(2)}]` : ''} n=${f.n} target ${f.target ?? '–'}`);
}
for (const v of DESIGNS) {
  const f = figure(`hook.chromium.${v}.ns_per_call`, 'ns', hot.chromium[`calls_${v}`].map((x, i) => x - hot.chromium.calls_plain[i]));
  const paired = figure(`hook.chromium.${v}_minus_shipped.ns`, 'ns', hot.chromium[`calls_${v}`].map((x, i) => x - hot.chromium.calls_instrumented[i]));
  for (const g of [f, paired]) console.log(`${g.name} ${g.value.toFixed(2)} ${g.unit}${g.ci95 ? ` [95% CI ${g.ci95[0].toFixed(2)}, ${g.ci95[1].toFixed(2)}]` : ''} n=${g.n} (not shipped)`);
}
writeFigures(figures);
