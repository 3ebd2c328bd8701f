// Firefox beside Chromium, in one run: the hot path, the sampler and startup
// measured in both headless browsers (lib/browser.mjs: Debian's chromium
// through playwright-core, firefox-esr through puppeteer-core), with rounds
// that alternate the browsers so that drift in the machine's load is shared.
//   hook ns per call      bench/calls plain vs instrumented, paired per
//                         round (enter + exit of an instrumented call)
//   ns per scope          bench/calls `scope` vs `empty` (a recorded
//                         WT_SCOPE: two clock reads and two ring events)
//   clock                 performance.now() in the page: ns per call and
//                         the smallest step seen (the engines differ, and a
//                         scope, instant or counter reads it)
//   sampler               bench/sampler, 1 busy thread, at 1 and 10 kHz:
//                         achieved rate, lateness, worker time
//   startup               wasmtrace's constructor (before main()) to the
//                         first sample, samples/startup
// bench/run.mjs calls browsersBench() and prints browsersSection(); run
// alone it writes its figures to docs/benchmarks.json (bench/figures.mjs)
// and prints the section:
//   bash scripts/build.sh wasm && node bench/browsers.mjs   (WT_BENCH_RUNS=5; WT_BROWSERS_SCOPE_ONLY=1:
//   only the recorded scope, two clock reads from wasm and the empty loop, in the same rounds:
//   hook.<browser>.scope_minus_clock_ns)
// Figures: hook.firefox.ns_per_call, hook.<browser>.ns_per_scope,
// clock.<browser>.now_ns, clock.<browser>.step_us,
// sampler.firefox.<k>khz.1thread.{ticks_pct,late_p99_us,worker_cpu_pct},
// startup.<browser>.first_sample_ms. The Chromium hook and sampler figures
// of the same names without a browser are bench/run.mjs's own sections;
// this one writes only the Firefox ones of those.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { browserVersion, launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { collectTraces } from '../js/playwright.mjs';
import { parseTrace } from '../lib/trace.mjs';
import { figure, hotAndSamplerFigures, median, writeFigures } from './figures.mjs';
import { samplerRun } from './sampler-run.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH_BROWSERS = ['chromium', 'firefox'];
const RATES = [1000, 100]; // us: 1 and 10 kHz

// The clock as the page's code sees it: ns per performance.now() call, and
// the smallest positive step between two reads (its resolution here).
function clockInPage() {
  const n = 200000;
  let x = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) x += performance.now();
  const ns = ((performance.now() - t0) * 1e6) / n;
  let step = Infinity;
  for (let i = 0, last = performance.now(); i < 200000 && step > 0.0005; i++) {
    const t = performance.now();
    if (t > last) step = Math.min(step, t - last);
    last = t;
  }
  return { ns, stepUs: step * 1000, sink: x > 0 };
}

/**
 * Runs `runs` rounds; each round measures every browser in turn. Returns
 * { runs, ms, versions: { browser: string }, data: { browser: { calls_plain,
 * calls_instrumented, empty, scope, clockNs, clockStepUs, firstSampleMs,
 * sampler: [{ interval, n, runs }] } } }.
 */
export async function browsersBench({ wasm = join(root, 'build/wasm'), runs = 5, ms = 2000, log = () => {}, scopeOnly = false } = {}) {
  const server = await serve(wasm);
  const open = {};
  const data = {};
  const versions = {};
  try {
    for (const b of BENCH_BROWSERS) {
      const browser = await launch({ browser: b });
      versions[b] = browserVersion(browser.executablePath);
      open[b] = { browser, page: async (path, waitFor) => {
        const p = await browser.newPage();
        await p.goto(server.url + path);
        await p.waitForFunction(waitFor, null, { timeout: 120000, polling: 20 });
        return p;
      } };
      data[b] = { calls_plain: [], calls_instrumented: [], empty: [], scope: [], clock2: [], scopeMinusClock: [], clockNs: [], clockStepUs: [], firstSampleMs: [],
        sampler: RATES.map((interval) => ({ interval, n: 1, runs: [] })) };
    }
    // As bench/run.mjs section 1: a 1 kHz session records category "app".
    const session = encodeURIComponent(JSON.stringify({ sessions: [{ name: 'bench', sampling: { intervalUs: 1000 }, categories: ['app'] }] }));
    const calls = async (b, variant, mode) => {
      const p = await open[b].page(`bench/calls_${variant}/index.html?args=${mode}%200%207&config=${session}`, 'self.benchResult');
      const r = await p.evaluate(() => self.benchResult.nsPerOp);
      await p.close();
      return r;
    };
    // A scope minus its two clock reads, the loops alternating repetition by
    // repetition in one page (bench/calls.c "scope:clock2"): the pages of
    // separate runs differ by more than the figure itself on this machine.
    const scopeMinusClock = async (b) => {
      const p = await open[b].page(`bench/calls_plain/index.html?args=scope:clock2%200%2015&config=${session}`, 'self.benchResult');
      const r = await p.evaluate(() => self.benchResult.diffNs);
      await p.close();
      return r;
    };
    for (let r = 0; r < runs; r++) {
      for (const b of BENCH_BROWSERS) {
        log(`browsers: round ${r + 1}/${runs}, ${b}`);
        const d = data[b];
        if (scopeOnly) { // WT_BROWSERS_SCOPE_ONLY=1: the scope against its clock, nothing else
          d.empty.push(await calls(b, 'plain', 'empty'));
          d.scope.push(await calls(b, 'plain', 'scope'));
          d.clock2.push(await calls(b, 'plain', 'clock2'));
          d.scopeMinusClock.push(await scopeMinusClock(b));
          continue;
        }
        d.calls_plain.push(await calls(b, 'plain', 'calls'));
        d.calls_instrumented.push(await calls(b, 'instrumented', 'calls'));
        d.empty.push(await calls(b, 'plain', 'empty'));
        d.scope.push(await calls(b, 'plain', 'scope'));
        // Two clock reads from wasm in the same loop: the floor of a recorded scope.
        d.clock2.push(await calls(b, 'plain', 'clock2'));
        d.scopeMinusClock.push(await scopeMinusClock(b));
        // The startup sample with its own config: constructor to first sample.
        const p = await open[b].page('samples/startup/index.html', 'Module.startupMs !== undefined');
        const clock = await p.evaluate(clockInPage);
        d.clockNs.push(clock.ns);
        d.clockStepUs.push(clock.stepUs);
        const [s] = await collectTraces(p, { parse: false, timeoutMs: 300000 });
        await p.close();
        const events = parseTrace(s.bytes);
        const stats = events.find((e) => e.name === 'wasmtrace_stats')?.args;
        const first = Math.min(...events.filter((e) => e.name === 'Profile').map((e) => e.args.data.startTime));
        d.firstSampleMs.push((first - stats.workerCreatedUs) / 1000);
        for (const sm of d.sampler) sm.runs.push(await samplerRun(open[b].page, sm.interval, sm.n, ms));
      }
    }
  } finally {
    for (const b of Object.keys(open)) await open[b].browser.close().catch(() => {});
    await server.close();
  }
  return { runs, ms, versions, data };
}

const diffs = (a, b) => a.map((x, i) => x - b[i]);

/** The entries of docs/benchmarks.json this run measured (see the header). */
export function browsersJson({ data }) {
  const out = [];
  for (const [b, d] of Object.entries(data)) {
    if (!d.calls_plain.length) { // a scope-only run
      out.push(figure(`hook.${b}.ns_per_scope`, 'ns', diffs(d.scope, d.empty)));
      out.push(figure(`hook.${b}.clock2_ns`, 'ns', diffs(d.clock2, d.empty)));
      out.push(figure(`hook.${b}.scope_minus_clock_ns`, 'ns', d.scopeMinusClock, { target: '<= 40' }));
      continue;
    }
    if (b === 'firefox') {
      const hs = hotAndSamplerFigures({ firefox: d }, d.sampler);
      for (const f of hs) {
        if (f.name.startsWith('hook.')) out.push(f);
        else if (/^sampler\.\d+khz\./.test(f.name)) out.push({ ...f, name: f.name.replace(/^sampler\./, 'sampler.firefox.') });
      }
    }
    out.push(figure(`hook.${b}.ns_per_scope`, 'ns', diffs(d.scope, d.empty)));
    // What of a scope is wasmtrace's own: the scope minus two clock reads
    // from wasm, measured in the same round (issue 28: target <= 40).
    if (d.clock2?.length) {
      out.push(figure(`hook.${b}.clock2_ns`, 'ns', diffs(d.clock2, d.empty)));
      out.push(figure(`hook.${b}.scope_minus_clock_ns`, 'ns', d.scopeMinusClock, { target: '<= 40' }));
    }
    out.push(figure(`clock.${b}.now_ns`, 'ns', d.clockNs));
    out.push(figure(`clock.${b}.step_us`, 'us', d.clockStepUs));
    out.push(figure(`startup.${b}.first_sample_ms`, 'ms', d.firstSampleMs));
  }
  return out;
}

const fmt = (x, d = 2) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
const cell = (xs, d = 2) => `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`;

/** The report section: one row per figure, one column per browser. */
export function browsersSection({ runs, ms, versions, data }, heading = '## 10. Firefox beside Chromium') {
  const bs = Object.keys(data);
  const row = (label, f) => `| ${label} | ${bs.map((b) => f(data[b])).join(' | ')} |`;
  const sampler = (d, interval, k, dd = 1) => cell(d.sampler.find((s) => s.interval === interval).runs.map((r) => r[k]), dd);
  const rows = [
    row('instrumented call (enter+exit), ns added', (d) => `**${cell(diffs(d.calls_instrumented, d.calls_plain))}**`),
    row('recorded WT_SCOPE, ns added', (d) => `**${cell(diffs(d.scope, d.empty))}**`),
    row('two clock reads from wasm (a scope\'s floor), ns added', (d) => cell(diffs(d.clock2, d.empty))),
    row('WT_SCOPE minus the two reads: wasmtrace\'s own, ns (in-page pairs)', (d) => `**${cell(d.scopeMinusClock)}**`),
    row('performance.now(), ns per call', (d) => cell(d.clockNs)),
    row('performance.now(), smallest step µs', (d) => cell(d.clockStepUs, 1)),
  ];
  for (const interval of RATES) {
    const k = `${1000 / interval} kHz, 1 busy thread`;
    rows.push(row(`sampler ${k}: achieved %`, (d) => sampler(d, interval, 'ratePct')));
    rows.push(row(`sampler ${k}: lateness p50 / p99 µs (each tick, from the trace)`, (d) => `${sampler(d, interval, 'p50', 0)} / ${sampler(d, interval, 'p99', 0)}`));
    rows.push(row(`sampler ${k}: worker CPU %`, (d) => sampler(d, interval, 'workerCpuPct')));
  }
  rows.push(row("startup: wasmtrace's constructor to first sample, ms", (d) => cell(d.firstSampleMs)));
  return `${heading}

\`bench/browsers.mjs\`: the same pages in ${bs.map((b) => versions[b]).join(' and ')}
(headless; Firefox through WebDriver BiDi), ${runs} rounds that alternate the
browsers. Hot path as in section 1 (a 1 kHz session records category
\`app\`); the recorded scope reads the clock twice, so its cost follows
\`performance.now()\`, which the engines implement differently (ns per call
and the smallest step a page sees, cross-origin isolated). Sampler as in
section 2 (${ms} ms, 1 busy thread); startup as in section 4, on
\`samples/startup\`. Medians with the spread (min–max).

| figure | ${bs.join(' | ')} |
|---|${bs.map(() => '---').join('|')}|
${rows.join('\n')}
`;
}

// Run alone: measure, write the figures, print the section.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const runs = Number(process.env.WT_BENCH_RUNS || 5);
  const scopeOnly = process.env.WT_BROWSERS_SCOPE_ONLY === '1';
  const res = await browsersBench({ runs, ms: process.env.WT_BENCH_QUICK === '1' ? 1000 : 2000, log: (m) => console.error(m), scopeOnly });
  const figs = browsersJson(res);
  for (const f of figs) console.log(`${f.name} ${fmt(f.value)} ${f.unit}${f.ci95 ? ` [95% CI ${fmt(f.ci95[0])}, ${fmt(f.ci95[1])}]` : ''} n=${f.n}`);
  writeFigures(figs);
  if (!scopeOnly) console.log(browsersSection(res, '## Firefox beside Chromium'));
}
