// Two builds of wasmtrace in one run: does a change cost anything?
//
//   node bench/compare.mjs BASELINE_BUILD CANDIDATE_BUILD [ROUNDS]
//   e.g. node bench/compare.mjs ../before/build/wasm build/wasm 9
//
// Each round measures both builds, in alternating order, on the same
// programs: the hot path (ns added per instrumented call, in Node and in
// headless Chromium), the call-heavy program's dropped and partial ticks at
// 10 kHz (bench/callheavy.c; only when both builds have it), and the
// sampler page (rate kept, worker time, encode throughput, gzip bytes per
// sample) at 1 kHz with 4 busy threads and at 10 kHz with 1. It prints, per
// figure, both medians and the median of the per-round ratios candidate /
// baseline with a bootstrap 95% confidence interval: a ratio whose interval
// holds 1 is no measurable change on this machine. Both builds need their
// bench/ targets (scripts/build.sh wasm builds them).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { analyzeTrace, parseTrace } from '../lib/trace.mjs';
import { collectTraces } from '../js/playwright.mjs';

const [a, b, roundsArg] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/compare.mjs BASELINE_BUILD CANDIDATE_BUILD [ROUNDS]');
  process.exit(2);
}
const builds = [resolve(a), resolve(b)];
for (const dir of builds) {
  if (!existsSync(join(dir, 'bench/calls_instrumented/calls.js'))) {
    console.error(`${dir}: no bench/calls_instrumented/calls.js (build it with scripts/build.sh wasm)`);
    process.exit(2);
  }
}
const ROUNDS = Number(roundsArg || 7);
// WT_COMPARE_HOT_ONLY=1: only the hot path (Node and Chromium), so that
// many short rounds fit where the machine is loaded.
const HOT_ONLY = process.env.WT_COMPARE_HOT_ONLY === '1';
const MS = 1500; // busy time of each sampler page

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
// Percentile bootstrap of the median (deterministic generator: the same
// data gives the same interval).
function bootstrapCI(xs, reps = 2000) {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const meds = [];
  for (let r = 0; r < reps; r++) meds.push(median(xs.map(() => xs[Math.floor(rnd() * xs.length)])));
  meds.sort((x, y) => x - y);
  return [meds[Math.floor(0.025 * reps)], meds[Math.floor(0.975 * reps)]];
}

const SESSION = JSON.stringify({ name: 'bench', output: '/tmp/wasmtrace-compare.json.gz', overwrite: true, sampling: { intervalUs: 1000 }, categories: ['app'] });
function nsPerCall(dir, variant) {
  const out = execFileSync('node', ['--no-experimental-fetch', join(dir, `bench/calls_${variant}/calls.js`), 'calls', '0', '7', SESSION],
    { encoding: 'utf8', timeout: 300000 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{'))).nsPerOp;
}

// The same hot-path program in a page: ns per call (Chromium).
const PAGE_CONFIG = JSON.stringify({ sessions: [{ name: 'bench', sampling: { intervalUs: 1000 }, categories: ['app'] }] });
async function nsPerCallChromium(browser, url, variant) {
  const page = await browser.newPage();
  await page.goto(`${url}bench/calls_${variant}/index.html?args=calls%200%207&config=${encodeURIComponent(PAGE_CONFIG)}`);
  await page.waitForFunction('self.benchResult', null, { timeout: 120000, polling: 20 });
  const r = await page.evaluate(() => self.benchResult.nsPerOp);
  await page.close();
  return r;
}

// bench/callheavy.c at 10 kHz for 1.5 s (Node): % of ticks dropped as torn
// and kept as partial stacks; null when the build has no such program.
function callHeavy(dir) {
  const js = join(dir, 'bench/callheavy/callheavy.js');
  if (!existsSync(js)) return null;
  const out = execFileSync('node', ['--no-experimental-fetch', js, '1500', '100'], { encoding: 'utf8', timeout: 300000 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{')));
}

async function samplerPage(browser, url, threads, intervalUs) {
  const config = JSON.stringify({ sessions: [{ name: 's', sampling: { intervalUs }, counters: { enabled: false }, maxBufferKB: 65536 }] });
  const page = await browser.newPage();
  await page.goto(`${url}bench/sampler/index.html?args=${threads}%20${MS}&config=${encodeURIComponent(config)}`);
  await page.waitForFunction('self.benchDone === true', null, { timeout: 120000, polling: 20 });
  const [s] = await collectTraces(page, { parse: false, timeoutMs: 120000 });
  await page.close();
  const st = s.stats;
  // Ticks: distinct sample timestamps (every thread of a tick shares one).
  const ticks = new Set();
  for (const t of analyzeTrace(parseTrace(s.bytes)).threads) for (const x of t.samples) ticks.add(x.ts);
  return {
    keptPct: (100 * ticks.size) / (ticks.size + st.ticksMissed),
    bytesPerSample: st.bytesWritten / st.samplesWritten,
  };
}

// "ns added" is a difference of two noisy times; the instrumented program's
// own ns per call (the same program in both builds, only the hooks differ)
// is the steadier ratio.
const FIGURES = [
  ['instrumented call, ns added (Node)', (r) => r.callNs],
  ['instrumented call, ns per call (Node)', (r) => r.instrumented],
  ['instrumented call, ns added (Chromium)', (r) => r.callNsChromium],
  ['instrumented call, ns per call (Chromium)', (r) => r.instrumentedChromium],
  ['call-heavy 10 kHz: ticks dropped (torn) %', (r) => r.heavy?.tornPct],
  ['call-heavy 10 kHz: ticks kept partial %', (r) => r.heavy?.partialPct],
  ['1 kHz x 4 threads: grid slots sampled %', (r) => r.s1.keptPct],
  ['1 kHz x 4 threads: gzip bytes per sample', (r) => r.s1.bytesPerSample],
  ['10 kHz x 1 thread: grid slots sampled %', (r) => r.s10.keptPct],
  ['10 kHz x 1 thread: gzip bytes per sample', (r) => r.s10.bytesPerSample],
];

const load0 = loadavg()[0];
const browser = await launch();
const servers = await Promise.all(builds.map((dir) => serve(dir)));
const results = [[], []];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const i of order) {
      const dir = builds[i];
      const instrumented = nsPerCall(dir, 'instrumented');
      const callNs = instrumented - nsPerCall(dir, 'plain');
      const instrumentedChromium = await nsPerCallChromium(browser, servers[i].url, 'instrumented');
      const callNsChromium = instrumentedChromium - (await nsPerCallChromium(browser, servers[i].url, 'plain'));
      const heavy = HOT_ONLY ? undefined : callHeavy(dir);
      const s1 = HOT_ONLY ? {} : await samplerPage(browser, servers[i].url, 4, 1000);
      const s10 = HOT_ONLY ? {} : await samplerPage(browser, servers[i].url, 1, 100);
      results[i].push({ instrumented, callNs, instrumentedChromium, callNsChromium, heavy, s1, s10 });
    }
    console.error(`round ${round + 1}/${ROUNDS} done`);
  }
} finally {
  await browser.close();
  for (const s of servers) await s.close();
}

console.log(`# bench/compare.mjs: ${ROUNDS} rounds, alternating; load average ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`);
console.log(`# baseline  ${builds[0]}\n# candidate ${builds[1]}`);
console.log('| figure | baseline (median) | candidate (median) | candidate / baseline, median [95% CI] |');
console.log('|---|---|---|---|');
for (const [name, get] of FIGURES) {
  const base = results[0].map(get);
  const cand = results[1].map(get);
  if (base.some((x) => x === undefined) || cand.some((x) => x === undefined)) continue; // a build without it
  // Figures that can be 0 (drop rates): medians and the per-round values, no ratio.
  if (base.some((x) => x === 0)) {
    const list = (xs) => xs.map((x) => x.toFixed(2)).join(' ');
    console.log(`| ${name} | ${median(base).toFixed(2)} | ${median(cand).toFixed(2)} | per round: ${list(base)} / ${list(cand)} |`);
    continue;
  }
  const ratios = cand.map((c, k) => c / base[k]);
  const [lo, hi] = bootstrapCI(ratios);
  console.log(`| ${name} | ${median(base).toFixed(2)} | ${median(cand).toFixed(2)} | ${median(ratios).toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}] |`);
}
