// End to end on real third-party code: what -finstrument-functions and
// -finstrument-functions-after-inlining cost, and which frames each shows.
// bench/e2e/workload.c (zlib: deflate + inflate of a 256 KiB text corpus;
// cJSON: parse + print of a ~200 KiB document) is built three ways —
// plain, full (-finstrument-functions), after_inlining — all linked with
// wasmtrace, each with a startup session sampling at 1 kHz. One Node
// process (and one headless Chromium page) loads all three builds and runs
// many short runs, alternating the builds in a rotating order inside each
// round; per round the ratio instrumented / plain of the round's total time
// (zlib + cJSON) is one paired sample. Printed: the median of the paired
// ratios with a bootstrap 95 % confidence interval (of the median), per
// workload too, and the distinct named frames each build's trace shows.
//   bash scripts/build.sh wasm && node bench/e2e.mjs     (WT_E2E_ROUNDS=150)
// `npm run bench` runs it as its section 8; run alone, it rewrites only
// that section of docs/BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
// Each with -flto (as the library) and without (_nolto: the hooks stay calls).
export const VARIANTS = ['plain', 'full', 'after_inlining', 'plain_nolto', 'full_nolto', 'after_inlining_nolto'];
const baseOf = (v) => (v.endsWith('_nolto') ? 'plain_nolto' : 'plain');
const KINDS = ['zlib', 'cjson'];
const CONFIG = { sessions: [{ name: 'e2e', output: '/traces/e2e.json', compression: 'none', sampling: { intervalUs: 1000 } }] };

/**
 * The measurement, the same in Node and in the page (its source is sent to
 * page.evaluate, so it uses nothing from this module's scope).
 * factories: { variant: Emscripten -sMODULARIZE factory }; returns
 * { times: { kind: { variant: [ms per run] } }, frames: { variant: [names] }, checks }.
 */
export async function measure(factories, config, rounds, warmup) {
  const variants = Object.keys(factories);
  const mods = {};
  for (const v of variants) {
    mods[v] = await factories[v]({ wasmtraceConfig: config, print: () => {} });
    if (mods[v]._e2e_setup() !== 0) throw new Error(`${v}: e2e_setup failed`);
  }
  const sessionOf = (v) => mods[v].wasmtrace.getStartupSessions()[0];
  // Wait until every session samples.
  for (let i = 0; i < 500 && variants.some((v) => sessionOf(v).state !== 'running'); i++) await new Promise((ok) => setTimeout(ok, 10));
  for (const v of variants) if (sessionOf(v).state !== 'running') throw new Error(`${v}: session ${sessionOf(v).state}: ${sessionOf(v).error}`);
  const kinds = ['zlib', 'cjson'];
  const times = {};
  for (const k of kinds) times[k] = Object.fromEntries(variants.map((v) => [v, []]));
  const checks = {};
  for (let r = -warmup; r < rounds; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + (r + warmup)) % variants.length];
      for (let k = 0; k < kinds.length; k++) {
        const t0 = performance.now();
        const sum = mods[v]._e2e_run(k);
        const t = performance.now() - t0;
        if (!sum) throw new Error(`${v}: ${kinds[k]} run failed`);
        // Same input, same output, whatever the build.
        if (checks[kinds[k]] === undefined) checks[kinds[k]] = sum;
        else if (checks[kinds[k]] !== sum) throw new Error(`${v}: ${kinds[k]} checksum ${sum} != ${checks[kinds[k]]}`);
        if (r >= 0) times[kinds[k]][v].push(t);
      }
    }
    // Let the page's event loop run now and then (the session's output
    // is proxied to this thread).
    if (r % 10 === 0) await new Promise((ok) => setTimeout(ok, 0));
  }
  const frames = {};
  for (const v of variants) {
    const s = sessionOf(v);
    await s.stop();
    const trace = JSON.parse(await s.getTraceBlob().text());
    const names = new Set();
    for (const e of trace.traceEvents || trace) {
      const nodes = e.name === 'ProfileChunk' ? e.args?.data?.cpuProfile?.nodes : null;
      for (const n of nodes || []) {
        const name = n.callFrame?.functionName;
        if (name && !/^\(|^wasm-(function|table)\[/.test(name)) names.add(name);
      }
    }
    frames[v] = [...names].sort();
  }
  return { times, frames, checks };
}

// ---- statistics ------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Median of xs and a percentile-bootstrap 95 % interval of it (seeded). */
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

/** Paired ratios variant / plain: per workload, and of the round's total. */
export function ratios(times) {
  const out = {};
  for (const v of VARIANTS.filter((x) => baseOf(x) !== x)) {
    const b = baseOf(v);
    const per = {};
    for (const k of KINDS) per[k] = medianCI(times[k][v].map((t, i) => t / times[k][b][i]));
    const total = times.zlib[v].map((t, i) => (t + times.cjson[v][i]) / (times.zlib[b][i] + times.cjson[b][i]));
    out[v] = { total: medianCI(total), ...per };
  }
  return out;
}

// ---- runners ---------------------------------------------------------------

const ROUNDS = Number(process.env.WT_E2E_ROUNDS || (process.env.WT_BENCH_QUICK === '1' ? 40 : 150));
const WARMUP = 5;

/** In a child Node process (emcc 3.1.6 output needs --no-experimental-fetch). */
export function runNode(wasmDir, rounds = ROUNDS) {
  const out = execFileSync('node', ['--no-experimental-fetch', self, '--node-child', wasmDir, String(rounds)],
    { encoding: 'utf8', timeout: 1800000, maxBuffer: 64 << 20 });
  return JSON.parse(out.split('\n').find((l) => l.startsWith('{')));
}

/** In one headless Chromium page, served from the wasm build tree. */
export async function runChromium(wasmDir, rounds = ROUNDS) {
  const { launch } = await import('../lib/browser.mjs');
  const { serve } = await import('../lib/serve.mjs');
  const server = await serve(wasmDir);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}bench/e2e/index.html`);
    const fn = measure.toString();
    return await page.evaluate(async ({ fn, variants, config, rounds, warmup }) => {
      // eslint-disable-next-line no-new-func
      const m = new Function(`return (${fn})`)();
      const factories = Object.fromEntries(variants.map((v) => [v, self[`createE2e_${v}`]]));
      return m(factories, config, rounds, warmup);
    }, { fn, variants: VARIANTS, config: CONFIG, rounds, warmup: WARMUP });
  } finally {
    await browser.close();
    await server.close();
  }
}

// ---- report ----------------------------------------------------------------

const f3 = (x) => x.toFixed(3);
const ci = (c) => `**${f3(c.median)}×** (95 % CI ${f3(c.lo)}–${f3(c.hi)})`;

/** The printed figures: `e2e.<metric>.ratio <median> [lo, hi]`. */
export function figures(where, res) {
  const r = ratios(res.times);
  const line = (metric, c) => `${metric} (${where}) ${f3(c.median)} [95% CI ${f3(c.lo)}, ${f3(c.hi)}] n=${c.n}`;
  return [
    line('e2e.instrumented.ratio', r.full.total),
    line('e2e.instrumented_after_inlining.ratio', r.after_inlining.total),
    line('e2e.instrumented.nolto.ratio', r.full_nolto.total),
    line('e2e.instrumented_after_inlining.nolto.ratio', r.after_inlining_nolto.total),
  ];
}

/** Section 8 of docs/BENCHMARKS.md. */
export function section(results, command) {
  const rows = [];
  for (const [where, res] of Object.entries(results)) {
    const r = ratios(res.times);
    const ms = (k, v) => median(res.times[k][v]).toFixed(2);
    for (const [suffix, lto] of [['', '-flto'], ['_nolto', 'no LTO']]) {
      const full = r[`full${suffix}`];
      const after = r[`after_inlining${suffix}`];
      rows.push(`| ${where} | ${lto} | \`-finstrument-functions\` (FULL) | ${ci(full.total)} | ${ci(full.zlib)} | ${ci(full.cjson)} | ${res.frames[`full${suffix}`].length} |`);
      rows.push(`| ${where} | ${lto} | \`-finstrument-functions-after-inlining\` (default) | ${ci(after.total)} | ${ci(after.zlib)} | ${ci(after.cjson)} | ${res.frames[`after_inlining${suffix}`].length} |`);
      rows.push(`| ${where} | ${lto} | plain (${ms('zlib', `plain${suffix}`)} ms zlib, ${ms('cjson', `plain${suffix}`)} ms cJSON per run) | 1 | 1 | 1 | ${res.frames[`plain${suffix}`].length} |`);
    }
  }
  const any = Object.values(results)[0];
  const only = any.frames.full.filter((n) => !any.frames.after_inlining.includes(n));
  return `## 8. End to end on real code: zlib and cJSON

\`${command}\` (\`bench/e2e.mjs\`). \`bench/e2e/workload.c\`: zlib 1.2.13
(deflate level 6 + inflate of a 256 KiB text corpus) and cJSON 1.7.15
(parse + print of a ~200 KiB document), the sources the build fetches,
compiled with \`-O2\` three ways — plain, \`-finstrument-functions\`,
\`-finstrument-functions-after-inlining\` — each with \`-flto\` (as the
library is built) and without, all linked with wasmtrace; each build
runs a session at 1 kHz. All six load in one process (one page) and run
alternately, ${any.times.zlib.plain.length} rounds (after ${WARMUP} warm-up rounds), each round one zlib and
one cJSON run of each build in a rotating order. Ratio: instrumented / plain
time (same LTO mode) of the same round (paired); median of the paired ratios with a
percentile-bootstrap 95 % interval of the median. Frames: distinct named
functions in the build's own trace (every thread).
${machine()}

| where | LTO | build | zlib + cJSON | zlib | cJSON | distinct frames |
|---|---|---|---|---|---|---|
${rows.join('\n')}

Frames only the full build shows (${only.length}, from the first row's run): ${only.slice(0, 40).map((n) => `\`${n}\``).join(', ')}${only.length > 40 ? ', …' : ''}.
`;
}

function machine() {
  return `Machine: ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the end; Node ${process.version}.`;
}

/** Replaces (or appends) section 8 of docs/BENCHMARKS.md. */
function writeSection(text) {
  const path = join(root, 'docs/BENCHMARKS.md');
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf('## 8. End to end on real code');
  let out;
  if (start < 0) out = `${doc.trimEnd()}\n\n${text}`;
  else {
    // Up to the next section, or the marker of the hand-written ones.
    const ends = [doc.indexOf('\n## ', start + 1), doc.indexOf('\n<!-- ', start + 1)].filter((i) => i >= 0);
    const next = ends.length ? Math.min(...ends) : -1;
    out = doc.slice(0, start) + text + (next < 0 ? '' : `\n${doc.slice(next + 1)}`);
  }
  writeFileSync(path, out);
}

if (process.argv[2] === '--node-child') {
  const [wasmDir, rounds] = process.argv.slice(3);
  const require = createRequire(import.meta.url);
  const factories = Object.fromEntries(VARIANTS.map((v) => [v, require(join(wasmDir, `bench/e2e/e2e_${v}.js`))]));
  const res = await measure(factories, CONFIG, Number(rounds), WARMUP);
  process.stdout.write(`${JSON.stringify(res)}\n`);
  process.exit(0);
} else if (process.argv[1] === self) {
  const wasmDir = join(root, process.env.WASMTRACE_WASM_BUILD || 'build/wasm');
  const results = {};
  console.error(`wasmtrace e2e: Node, ${ROUNDS} rounds`);
  results.node = runNode(wasmDir);
  for (const l of figures('node', results.node)) console.log(l);
  if (process.env.WT_E2E_NO_CHROMIUM !== '1') {
    console.error(`wasmtrace e2e: headless Chromium, ${ROUNDS} rounds`);
    results.chromium = await runChromium(wasmDir);
    for (const l of figures('chromium', results.chromium)) console.log(l);
  }
  for (const [where, res] of Object.entries(results)) {
    console.log(`distinct frames (${where}): ${VARIANTS.map((v) => `${v} ${res.frames[v].length}`).join(', ')}`);
  }
  const text = section(results, 'node bench/e2e.mjs');
  writeSection(text);
  console.log(text);
}
