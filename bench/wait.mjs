// The wait path's cost, measured: ns per emscripten_futex_wait that returns
// at once (the word does not hold the value), through wasmtrace's wrapper
// (`wait`: the calling thread is registered, so the wrapper marks it
// waiting and back) and straight to the real function (`wait_direct`, the
// linker's __real_ alias), in the same program (bench/calls.c, the
// instrumented build), in Node and headless Chromium. The two modes run
// interleaved, one run each per round; each run is the median of 7
// repetitions. Prints median (min–max) over the rounds, and the median of
// the per-round differences.
//   bash scripts/build.sh wasm && node bench/wait.mjs   (WT_BENCH_RUNS=9)
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = resolve(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
const RUNS = Number(process.env.WT_BENCH_RUNS || 9);
const MODES = { wait_direct: 'real emscripten_futex_wait', wait: 'through the wrapper' };
const SESSION = JSON.stringify({ name: 'bench', output: '/tmp/wasmtrace-bench.json.gz', overwrite: true, sampling: { intervalUs: 1000 } });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cell = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

function nodeRun(mode) {
  const out = execFileSync('node', ['--no-experimental-fetch', join(wasm, 'bench/calls_instrumented/calls.js'), mode, '0', '7', SESSION],
    { encoding: 'utf8', timeout: 300000 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{'))).nsPerOp;
}

const server = await serve(wasm);
const browser = await launch();
const config = JSON.stringify({ sessions: [{ name: 'bench', sampling: { intervalUs: 1000 } }] });
async function chromiumRun(mode) {
  const p = await browser.newPage();
  await p.goto(`${server.url}bench/calls_instrumented/index.html?args=${mode}%200%207&config=${encodeURIComponent(config)}`);
  await p.waitForFunction('self.benchResult', null, { timeout: 120000, polling: 20 });
  const r = await p.evaluate(() => self.benchResult.nsPerOp);
  await p.close();
  return r;
}

const res = { node: {}, chromium: {} };
for (const where of Object.keys(res)) for (const m of Object.keys(MODES)) res[where][m] = [];
try {
  for (let round = 0; round < RUNS; round++) {
    for (const m of Object.keys(MODES)) {
      res.node[m].push(nodeRun(m));
      res.chromium[m].push(await chromiumRun(m));
    }
    process.stderr.write(`round ${round + 1}/${RUNS}\n`);
  }
} finally {
  await browser.close();
  await server.close();
}

console.log(`${cpus().length} × ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}; ${RUNS} rounds, interleaved`);
console.log('| where | emscripten_futex_wait (returns at once) | ns per wait | added by the wrapper (median of per-round differences) |');
console.log('|---|---|---|---|');
for (const where of Object.keys(res)) {
  const diffs = res[where].wait.map((x, i) => x - res[where].wait_direct[i]);
  for (const m of Object.keys(MODES)) {
    console.log(`| ${where} | ${MODES[m]} | ${cell(res[where][m])} | ${m === 'wait' ? `**${median(diffs).toFixed(2)}** (${Math.min(...diffs).toFixed(2)}–${Math.max(...diffs).toFixed(2)})` : '–'} |`);
  }
}
