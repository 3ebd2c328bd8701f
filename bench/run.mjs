// npm run bench: wasmtrace's overhead, always as a ratio to a baseline
// measured in the same run. Writes docs/BENCHMARKS.md.
//   1. hot path: ns per call of a call-heavy loop, plain vs
//      -finstrument-functions (Node, headless Chromium, native)
//   2. sample app: startup time with wasmtrace compiled out, with scopes at
//      1 kHz, and with -finstrument-functions at 1 kHz (headless Chromium)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../scripts/lib/browser.mjs';
import { serve } from '../scripts/lib/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasm = join(root, 'build/wasm');
const ITERS = process.env.WT_BENCH_ITERS || '20000000';
const RUNS = Number(process.env.WT_BENCH_RUNS || 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
const log = (m) => console.log(`wasmtrace bench: ${m}`);

function nodeCalls(variant) {
  const out = execFileSync('node', ['--no-experimental-fetch', join(wasm, `bench/calls_${variant}/calls.js`), ITERS, '7'],
    { encoding: 'utf8', timeout: 120000 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{'))).nsPerCall;
}

function nativeCalls(variant) {
  const out = execFileSync(join(root, `build/bench-host/bench/bench_calls_native_${variant}`), [ITERS, '7'], { encoding: 'utf8' });
  return JSON.parse(out.trim()).nsPerCall;
}

async function inPage(browser, server, path, waitFor, result) {
  const page = await browser.newPage();
  await page.goto(server.url + path);
  await page.waitForFunction(waitFor, null, { timeout: 120000, polling: 50 });
  const value = await page.evaluate(result);
  await page.close();
  return value;
}

const results = { node: {}, chromium: {}, native: {}, app: {} };

// Native release build of the portable library and the call benchmark.
log('building the native benchmark (release)');
execFileSync('cmake', ['-S', root, '-B', join(root, 'build/bench-host'), '-DCMAKE_BUILD_TYPE=Release', '-DWASMTRACE_BUILD_TESTS=OFF'], { stdio: 'ignore' });
execFileSync('cmake', ['--build', join(root, 'build/bench-host'), '-j2'], { stdio: 'ignore' });

for (const variant of ['plain', 'instrumented']) {
  log(`hot path, ${variant}: node and native`);
  results.node[variant] = Array.from({ length: RUNS }, () => nodeCalls(variant));
  results.native[variant] = Array.from({ length: RUNS }, () => nativeCalls(variant));
}

const server = await serve(wasm);
const browser = await launch();
try {
  for (const variant of ['plain', 'instrumented']) {
    log(`hot path, ${variant}: headless Chromium (session sampling at 1 kHz)`);
    results.chromium[variant] = [];
    for (let i = 0; i < RUNS; i++) {
      results.chromium[variant].push(await inPage(browser, server,
        `bench/calls_${variant}/index.html?trace=1&args=${ITERS}%207`, 'self.benchResult', () => self.benchResult.nsPerCall));
    }
  }
  for (const variant of ['startup_disabled', 'startup', 'startup_instrumented']) {
    log(`sample app startup: ${variant}`);
    results.app[variant] = [];
    for (let i = 0; i < RUNS; i++) {
      results.app[variant].push(await inPage(browser, server, `samples/${variant}/index.html`,
        'Module.startupMs !== undefined', () => Module.startupMs));
    }
  }
} finally {
  await browser.close();
  await server.close();
}

const rows = [];
for (const where of ['node', 'chromium', 'native']) {
  const p = median(results[where].plain), q = median(results[where].instrumented);
  rows.push(`| ${where} | ${p.toFixed(2)} (${spread(results[where].plain)}) | ${q.toFixed(2)} (${spread(results[where].instrumented)}) | **${(q - p).toFixed(2)}** | ${(q / p).toFixed(2)}× |`);
}
const base = median(results.app.startup_disabled);
const appRows = ['startup_disabled', 'startup', 'startup_instrumented'].map((v) => {
  const m = median(results.app[v]);
  return `| ${v} | ${m.toFixed(1)} (${spread(results.app[v])}) | ${(m / base).toFixed(3)}× |`;
});
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const md = `# wasmtrace benchmarks

Produced by \`npm run bench\` (\`node bench/run.mjs\`) on ${new Date().toISOString().slice(0, 10)},
${cpus().length} × ${cpu}, Node ${process.version}, Chromium (system), Emscripten 3.1.6.
Every figure is the median of ${RUNS} runs (spread in parentheses) and every
comparison is against a baseline measured in the same run. Results vary by
machine; the ratios are what to compare.

## Hot path: one instrumented call (enter + exit hooks)

\`bench/calls.c\`, a loop of tiny non-inlined calls, built plain and with
\`-finstrument-functions\`; each run is itself the median of 7 repetitions of
${ITERS} iterations (3 calls each). In Chromium a wasmtrace session samples at 1 kHz
during both runs, so the difference is the hooks alone.

| where | plain ns/call | instrumented ns/call | added ns per call | ratio |
|---|---|---|---|---|
${rows.join('\n')}

## Sample app: startup time

\`samples/startup\` (main thread + 2 pthreads, ~1–2 s of work), time from
\`main()\` to "startup complete" in headless Chromium, in ms.
\`startup_disabled\` has wasmtrace compiled out (not linked); \`startup\`
records scopes with a session sampling at 1 kHz; \`startup_instrumented\` also
has every function instrumented.

| variant | startup ms | vs compiled out |
|---|---|---|
${appRows.join('\n')}
`;
mkdirSync(join(root, 'docs'), { recursive: true });
writeFileSync(join(root, 'docs/BENCHMARKS.md'), md);
console.log(md);
log('wrote docs/BENCHMARKS.md');
