// The ARM question, measured: ns per instrumented call (one enter+exit pair
// of the -finstrument-functions hooks) with the shadow stack published by
//   plain        plain stores behind a compiler barrier (the wasm default)
//   release_top  a plain frame store, then an atomic release store of `top`
//   atomic       atomic release stores of the frame and of `top` (host build)
// against the uninstrumented program, in Node and headless Chromium. The
// variants run interleaved, one run each per round; each run is itself the
// median of 7 repetitions. Prints median (min–max) over the rounds.
//   bash scripts/build.sh wasm && node bench/publish.mjs   (WT_BENCH_RUNS=9)
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = join(root, 'build/wasm');
const RUNS = Number(process.env.WT_BENCH_RUNS || 9);
const VARIANTS = { plain: 'uninstrumented', instrumented: 'plain stores', release_top: 'release store of top', atomic: 'release stores of frame and top' };
const SESSION = JSON.stringify({ name: 'bench', output: '/tmp/wasmtrace-bench.json.gz', overwrite: true, sampling: { intervalUs: 1000 }, categories: ['app'] });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cell = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

function nodeRun(v) {
  const out = execFileSync('node', ['--no-experimental-fetch', join(wasm, `bench/calls_${v}/calls.js`), 'calls', '0', '7', SESSION],
    { encoding: 'utf8', timeout: 300000 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{'))).nsPerOp;
}

const server = await serve(wasm);
const browser = await launch();
const config = JSON.stringify({ sessions: [{ name: 'bench', sampling: { intervalUs: 1000 }, categories: ['app'] }] });
async function chromiumRun(v) {
  const p = await browser.newPage();
  await p.goto(`${server.url}bench/calls_${v}/index.html?args=calls%200%207&config=${encodeURIComponent(config)}`);
  await p.waitForFunction('self.benchResult', null, { timeout: 120000, polling: 20 });
  const r = await p.evaluate(() => self.benchResult.nsPerOp);
  await p.close();
  return r;
}

const res = { node: {}, chromium: {} };
for (const where of Object.keys(res)) for (const v of Object.keys(VARIANTS)) res[where][v] = [];
try {
  for (let round = 0; round < RUNS; round++) {
    for (const v of Object.keys(VARIANTS)) {
      res.node[v].push(nodeRun(v));
      res.chromium[v].push(await chromiumRun(v));
    }
    process.stderr.write(`round ${round + 1}/${RUNS}\n`);
  }
} finally {
  await browser.close();
  await server.close();
}

console.log(`${cpus().length} × ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}; ${RUNS} rounds, interleaved`);
console.log('| where | publication | ns per call | minus uninstrumented |');
console.log('|---|---|---|---|');
for (const where of Object.keys(res)) {
  for (const [v, label] of Object.entries(VARIANTS)) {
    const xs = res[where][v];
    const extra = v === 'plain' ? '–' : (median(xs) - median(res[where].plain)).toFixed(2);
    console.log(`| ${where} | ${label} | ${cell(xs)} | ${extra} |`);
  }
}
