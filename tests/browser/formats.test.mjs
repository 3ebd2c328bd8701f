// One recording, three formats, every reader: the instrumented sample app
// runs with concurrent startup sessions (same interval; formats chrome,
// firefox and folded, plus a second chrome session; gzip), and each file is
// opened by readers nobody on this project wrote:
//   chrome  -> Chrome DevTools' trace engine (tests/lib/devtools.mjs) and
//              speedscope's Chrome importer (tests/lib/speedscope.mjs)
//   firefox -> the Firefox Profiler's own importer, through its npm CLI
//              (tests/lib/firefox-profiler.mjs); speedscope cannot read this
//              format (it reads only Firefox's older devtools export)
//   folded  -> speedscope's collapsed-stack importer
// Each reader must show the threads, the samples per thread and the top-10
// functions by self samples of the file it read. Readers that count samples
// (Firefox Profiler, speedscope on folded, DevTools' sample count) must
// agree exactly; readers that weigh each sample by the time to the next one
// (speedscope on chrome, DevTools' Bottom-Up) are checked the way
// readers.test.mjs checks them.
//
// Sessions started together from the config share one tick grid: the two
// chrome sessions hold the very same sample timestamps, and the three
// formats the same samples, up to the ticks between the first and the last
// session's stop (the stop requests go out one session at a time; under load
// the page's thread may be preempted between them). Each trace states its
// stop (stats.stopTimeUs, the tick that handled it), so the allowance is
// exact: the grid points between the earliest and the latest stop.
// Asserted once, from one page load.
//
// The same readers also open the golden files of tests/golden/ (written by
// the C encoders on the host from names with ';', quotes, backslashes,
// newlines, control characters, non-ASCII and invalid UTF-8) to check that
// the names arrive as each format promises.
//
// WASMTRACE_UPDATE_DOCS=1 also writes docs/speedscope-folded.png, the
// screenshot docs/VIEWERS.md shows (a copy always goes to out/formats/, or
// out/formats-firefox/ for a recording in Firefox, beside the chrome trace
// the readers were given, to open when a check fails).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readProfile } from '../../lib/profile.mjs';
import { analyzeTrace, decompress, parseTrace } from '../../lib/trace.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { browserSuffix } from '../lib/test-browser.mjs';
import { assertDevToolsBottomUp, assertSameTop, isIdle, timeWeightedSelf } from '../lib/weights.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';
import { importWithFirefoxProfiler, profilerCliPath } from '../lib/firefox-profiler.mjs';
import { importWithSpeedscope, summarizeByRootFrame } from '../lib/speedscope.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sampleDir = join(wasmBuildDir, 'samples/startup_instrumented');
const goldenDir = join(root, 'tests/golden');
const outDir = join(root, `out/formats${browserSuffix}`);
const INTERVAL_US = 1000;
const TOP = 10;
const THREADS = ['main', 'asset-decoder-0', 'asset-decoder-1'];
const IDLE = '(idle)';

const SESSIONS = [
  { format: 'chrome', name: 'fmt-chrome', output: '/traces/fmt-chrome.json.gz' },
  { format: 'chrome', name: 'fmt-chrome-twin', output: '/traces/fmt-chrome-twin.json.gz' },
  { format: 'firefox', name: 'fmt-firefox', output: '/traces/fmt-firefox.json.gz' },
  { format: 'folded', name: 'fmt-folded', output: '/traces/fmt-folded.folded.gz' },
];
const CONFIG = {
  sessions: SESSIONS.map(({ format, name, output }) => ({
    name, output, format, compression: 'gzip', sampling: { intervalUs: INTERVAL_US },
  })),
};

/** The folded encoder's rule for names (encoder_folded.c). */
const foldedName = (s) => (s === '' ? '(unnamed)' : s.replace(/;/g, ':').replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' '));

/** Top n [name, count] by count, then name; idle left out. */
function topCounts(entries, n = TOP) {
  return [...entries].filter(([k, v]) => k !== IDLE && v > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, n);
}

/** Map(leaf -> summed weight); weights default to 1 (a count). */
const countMap = (leaves, weights = null) => {
  const m = new Map();
  leaves.forEach((leaf, i) => m.set(leaf, (m.get(leaf) || 0) + (weights ? weights[i] : 1)));
  return m;
};
const sum = (xs) => xs.reduce((n, x) => n + x, 0);

/**
 * The grid periods each chrome sample stands for (native/src/encoder.h):
 * samples are stamped with their tick time, so a sample after k missed
 * ticks is k + 1 grid points after the thread's previous one. The firefox
 * encoder writes the same numbers in its weight column, the folded one in
 * its counts (all 1 when the sampler missed no tick).
 */
const gridWeights = (samples) => samples.map((x, i) =>
  (i === 0 ? 1 : Math.max(1, Math.floor(x.ts / INTERVAL_US) - Math.floor(samples[i - 1].ts / INTERVAL_US))));

// ---- our own parsers: what each file holds ---------------------------------

/**
 * Per thread name: {count (samples; chrome, firefox), total (summed sample
 * weights), self: Map(leaf -> weight), thread (chrome only)}.
 */
function fromChrome(bytes) {
  const events = parseTrace(bytes);
  const a = analyzeTrace(events);
  const threads = new Map();
  for (const t of a.threads) {
    if (!t.samples.length) continue;
    const leaves = t.samples.map((s) => (s.stack.length ? s.stack[s.stack.length - 1] : IDLE));
    const markers = events.filter((e) => e.tid === t.tid && ((e.ph === 'X' && e.cat !== 'wasmtrace') || e.ph === 'I')).length;
    const weights = gridWeights(t.samples);
    threads.set(t.name, { count: t.samples.length, total: sum(weights), self: countMap(leaves, weights), thread: t, markers });
  }
  return { events, analysis: a, threads, stats: a.stats };
}

function fromFirefox(bytes) {
  const p = JSON.parse(decompress(bytes).toString('utf8'));
  const strings = p.shared.stringArray;
  const threads = new Map();
  for (const t of p.threads) {
    if (!t.samples.length) continue;
    const leafName = (stack) => (stack === null ? IDLE : strings[t.funcTable.name[t.frameTable.func[t.stackTable.frame[stack]]]]);
    const weights = t.samples.weight ?? t.samples.stack.map(() => 1);
    // The startup timeline's markers (category "Startup") and the long
    // tasks' ("Long tasks (main thread)"), on the main thread: apart, the
    // chrome file has them on tracks of their own.
    const startupCat = p.meta.categories.findIndex((c) => c.name === 'Startup');
    const longTaskCat = p.meta.categories.findIndex((c) => c.name === 'Long tasks (main thread)');
    const phases = t.markers.category.filter((c) => c === startupCat).length;
    const longTasks = t.markers.category.filter((c) => c === longTaskCat).length;
    threads.set(t.name, {
      count: t.samples.length, total: sum(weights), self: countMap(t.samples.stack.map(leafName), weights),
      markers: t.markers.length - phases - longTasks, phases, longTasks,
    });
  }
  return { profile: p, threads, stats: p.meta.wasmtrace };
}

function fromFolded(bytes) {
  const lines = decompress(bytes).toString('utf8').split('\n').filter(Boolean);
  const threads = new Map();
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    const m = /^(.*) (\d+)$/.exec(line);
    assert.ok(m, `folded line without a count: ${JSON.stringify(line)}`);
    const frames = m[1].split(';');
    const count = Number(m[2]);
    if (!threads.has(frames[0])) threads.set(frames[0], { total: 0, self: new Map() });
    const t = threads.get(frames[0]);
    t.total += count;
    const leaf = frames.length > 1 ? frames[frames.length - 1] : IDLE;
    t.self.set(leaf, (t.self.get(leaf) || 0) + count);
  }
  // The stats record (the last line) as the package's reader reads it.
  return { threads, stats: readProfile(bytes, { format: 'folded' }).stats };
}

/**
 * Differences between two files' samples (thread name -> {total, self}),
 * beyond `tol` samples per thread: the ticks one session took after another
 * stopped. Empty when they agree.
 */
function sampleDifferences(label, a, b, tol, nameOf = (n) => n) {
  const diffs = [];
  const names = new Set([...a.threads.keys()].map(nameOf));
  for (const n of b.threads.keys()) names.add(n);
  for (const name of names) {
    const x = [...a.threads.entries()].find(([k]) => nameOf(k) === name)?.[1] ?? { total: 0, self: new Map() };
    const y = b.threads.get(name) ?? { total: 0, self: new Map() };
    const leaves = new Set([...[...x.self.keys()].map(nameOf), ...y.self.keys()]);
    const selfOf = (t, leaf) => [...t.self.entries()].filter(([k]) => nameOf(k) === leaf).reduce((n, [, v]) => n + v, 0);
    let off = 0;
    for (const leaf of leaves) off += Math.abs(selfOf(x, leaf) - (y.self.get(leaf) ?? 0));
    if (Math.abs(x.total - y.total) > tol || off > tol) diffs.push(`${label} ${name}: ${y.total} samples vs ${x.total}, ${off} differ by leaf`);
  }
  return diffs;
}

const haveProfilerCli = profilerCliPath() !== null;
const NO_CLI = 'the Firefox Profiler CLI is not installed (npm package @firefox-devtools/profiler-cli, or set WASMTRACE_PROFILER_CLI)';

describe('one recording in three formats, opened by real readers', () => {
  let rec, chrome, twin, firefox, folded;
  let devtools, ssChrome, ssFolded, ssFoldedRoots, fxp;

  before(async () => {
    rec = await recordPage({
      dir: sampleDir,
      path: `index.html?wasmtrace=${encodeURIComponent(JSON.stringify(CONFIG))}`,
      // Stop them all at once.
      beforeStop: (page) => page.evaluate(async () => {
        await Promise.all(Module.wasmtrace.getStartupSessions().map((s) => s.stop()));
      }),
    });
    rec.byName = new Map(rec.sessions.map((s) => [s.name, s]));
    for (const { name } of SESSIONS) assert.ok(rec.byName.get(name)?.bytes, `${name}: no trace (${rec.byName.get(name)?.error ?? rec.byName.get(name)?.state})`);
    const bytes = (name) => rec.byName.get(name).bytes;
    chrome = fromChrome(bytes('fmt-chrome'));
    twin = fromChrome(bytes('fmt-chrome-twin'));
    firefox = fromFirefox(bytes('fmt-firefox'));
    folded = fromFolded(bytes('fmt-folded'));
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'fmt-chrome.json.gz'), bytes('fmt-chrome'));
    [devtools, ssChrome, ssFolded] = await Promise.all([
      importWithDevTools(chrome.events),
      importWithSpeedscope(bytes('fmt-chrome'), { fileName: 'fmt-chrome.json.gz' }),
      importWithSpeedscope(bytes('fmt-folded'), { fileName: 'fmt-folded.folded.gz', screenshot: join(outDir, 'speedscope-folded.png') }),
    ]);
    fxp = haveProfilerCli ? await importWithFirefoxProfiler(bytes('fmt-firefox'), { fileName: 'fmt-firefox.json.gz' }) : null;
    ssFoldedRoots = summarizeByRootFrame(ssFolded.exported.profiles[0], ssFolded.exported.shared.frames);
    if (process.env.WASMTRACE_UPDATE_DOCS === '1') {
      copyFileSync(join(outDir, 'speedscope-folded.png'), join(root, 'docs/speedscope-folded.png'));
    }
  });

  const sampled = () => [...chrome.threads.keys()];
  // Ticks a session may hold beyond another: the grid points from the
  // earliest stop to the latest (each stop is handled at a tick).
  const stopSpread = () => {
    const stops = [chrome, twin, firefox, folded].map((f) => f.stats?.stopTimeUs ?? f.stats?.stats?.stopTimeUs);
    assert.ok(stops.every((x) => typeof x === 'number'), `stop times: ${stops}`);
    const slot = (us) => Math.floor(us / INTERVAL_US);
    return slot(Math.max(...stops)) - slot(Math.min(...stops));
  };

  test('sessions started together from the config share one tick grid: the same sample timestamps per thread', (t) => {
    const names = [...new Set([...chrome.threads.keys(), ...twin.threads.keys()])];
    for (const name of names) {
      const a = chrome.threads.get(name)?.thread.samples.map((x) => x.ts) ?? [];
      const b = twin.threads.get(name)?.thread.samples.map((x) => x.ts) ?? [];
      t.diagnostic(`${name}: ${a.length} and ${b.length} samples, first at ${a[0]} and ${b[0]} us`);
      const n = Math.min(a.length, b.length);
      assert.ok(n > 0, `${name}: sampled by one session only`);
      assert.deepEqual(a.slice(0, n), b.slice(0, n), `${name}: the two sessions' timestamps differ`);
      assert.ok(Math.abs(a.length - b.length) <= stopSpread(), `${name}: ${a.length} vs ${b.length} samples, stops ${stopSpread()} ticks apart`);
    }
  });

  test('the three formats hold the same samples (they share the ticks)', (t) => {
    t.diagnostic(`threads: ${sampled().map((n) => `${n} ${chrome.threads.get(n).total}`).join(', ')}`);
    const tol = stopSpread();
    t.diagnostic(`the four sessions stopped within ${tol} grid points of each other`);
    assert.deepEqual([...sampleDifferences('firefox', chrome, firefox, tol), ...sampleDifferences('folded', chrome, folded, tol, foldedName)], []);
  });

  test('each file holds the samples its stats count', () => {
    for (const name of THREADS) assert.ok(chrome.threads.get(name)?.total > 0, `${name}: no samples`);
    const count = (f) => [...f.threads.values()].reduce((n, x) => n + x.count, 0);
    assert.equal(count(chrome), chrome.stats.samplesWritten, 'chrome');
    assert.equal(count(twin), twin.stats.samplesWritten, 'chrome (twin)');
    assert.equal(count(firefox), firefox.stats.samplesWritten, 'firefox');
    for (const { name } of SESSIONS) {
      const st = rec.byName.get(name).stats;
      assert.equal(st.samplesTaken, st.samplesWritten + st.samplesDropped, `${name}: stats()`);
    }
  });

  test("the folded file's counts are its samples' weights: its samples, plus the ticks the sampler missed", (t) => {
    assert.ok(folded.stats, 'no stats record in the folded file');
    const weight = [...folded.threads.values()].reduce((n, x) => n + x.total, 0);
    const { samplesWritten, ticksMissed, samplesDropped } = folded.stats;
    t.diagnostic(`weight ${weight}, samples ${samplesWritten}, ticks missed ${ticksMissed}, dropped ${samplesDropped}, threads ${folded.threads.size}`);
    // Each sample weighs 1 plus the periods since its thread's previous
    // one: ticks missed (every thread's) and samples of it dropped.
    const most = samplesWritten + folded.threads.size * ticksMissed + samplesDropped;
    assert.ok(weight >= samplesWritten && weight <= most, `weight ${weight} outside [${samplesWritten}, ${most}]`);
    assert.equal(folded.stats.samplesWritten, rec.byName.get('fmt-folded').stats.samplesWritten);
  });

  describe('thread names', () => {
    test('DevTools, speedscope (chrome and folded) and the Firefox Profiler list the sampled threads of their file', (t) => {
      const ours = sampled().sort();
      const dt = devtools.threads.filter((x) => x.cpuSamples > 0).map((x) => x.name).sort();
      const sc = ssChrome.profiles.map((p) => p.thread).sort();
      const sf = [...ssFoldedRoots.keys()].sort();
      t.diagnostic(`ours: ${ours.join(', ')}`);
      assert.deepEqual(dt, ours, 'DevTools');
      assert.deepEqual(sc, ours, 'speedscope (chrome)');
      assert.deepEqual(sf, [...folded.threads.keys()].sort(), 'speedscope (folded)');
      if (fxp) {
        const fx = fxp.threads.filter((x) => x.totalSamples > 0).map((x) => x.name).sort();
        assert.deepEqual(fx, [...firefox.threads.keys()].sort(), 'Firefox Profiler');
      }
    });
  });

  describe('samples per thread', () => {
    test('counting readers agree exactly with their file: DevTools, Firefox Profiler, speedscope (folded)', (t) => {
      for (const name of sampled()) {
        const ours = chrome.threads.get(name).count; // DevTools counts samples
        const dt = devtools.threads.find((x) => x.name === name).cpuSamples;
        const inFolded = folded.threads.get(foldedName(name))?.total;
        const sf = ssFoldedRoots.get(foldedName(name))?.total;
        const inFirefox = firefox.threads.get(name)?.total;
        const fx = fxp?.threads.find((x) => x.name === name);
        t.diagnostic(`${name}: chrome ${ours}, DevTools ${dt}; folded ${inFolded}, speedscope ${sf}; ` +
          `firefox ${inFirefox}, Firefox Profiler ${fx ? `${fx.totalSamples} (${fx.activeSamples} not idle)` : 'n/a'}`);
        assert.equal(dt, ours, `${name}: DevTools`);
        assert.equal(sf, inFolded, `${name}: speedscope (folded)`);
        if (fx) {
          assert.equal(fx.totalSamples, inFirefox, `${name}: Firefox Profiler`);
          // Waiting samples are in the Idle category too (their "(waiting)" leaf).
          const self = firefox.threads.get(name).self;
          const idle = (self.get(IDLE) ?? 0) + (self.get('(waiting)') ?? 0);
          assert.equal(fx.activeSamples, inFirefox - idle, `${name}: Firefox Profiler samples outside its Idle category`);
        }
      }
    });

    test('speedscope (chrome) weighs samples by time: its thread time is our samples\' time', (t) => {
      for (const name of sampled()) {
        const p = ssChrome.profiles.find((x) => x.thread === name);
        const expected = timeWeightedSelf(chrome.threads.get(name).thread).reduce((n, [, w]) => n + w, 0);
        t.diagnostic(`${name}: ${p.totalWeight} us`);
        assert.equal(p.totalWeight, expected, name);
      }
    });
  });

  describe('top-10 functions by self samples', () => {
    test('counting readers give exactly the top 10 of their file, with its counts', (t) => {
      for (const name of sampled()) {
        const inFolded = topCounts(folded.threads.get(foldedName(name)).self);
        t.diagnostic(`${name}: ${inFolded.map(([k, v]) => `${k} ${v}`).join(', ')}`);
        const sf = topCounts(ssFoldedRoots.get(foldedName(name)).self);
        assert.deepEqual(sf, inFolded, `${name}: speedscope (folded)`);
        if (fxp) {
          const fx = topCounts(fxp.threads.find((x) => x.name === name).selfSamples);
          assert.deepEqual(fx, topCounts(firefox.threads.get(name).self), `${name}: Firefox Profiler`);
        }
      }
    });

    test('time-weighted readers: speedscope (chrome) gives our samples\' time exactly, DevTools\' Bottom-Up exactly what the file makes it show', (t) => {
      for (const name of sampled()) {
        const c = chrome.threads.get(name);
        // A time-weighted reader gives each sample the time to the next one
        // (one interval, or more where the sampler missed ticks): compare
        // with our samples weighed the same way. speedscope: exactly.
        const tw = timeWeightedSelf(c.thread);
        const p = ssChrome.profiles.find((x) => x.thread === name);
        assert.deepEqual(Object.fromEntries(p.selfWeights), Object.fromEntries(tw), `${name}: speedscope self time`);
        assertSameTop(p.selfWeights, tw, TOP, 0, `speedscope (chrome) ${name}`);
        // DevTools also ends a sample's time at every scope start and end
        // inside its interval (that time goes to the scope event): what it
        // shows is computed from the file (tests/lib/weights.mjs,
        // devtoolsBottomUp) and compared exactly, whatever the load was when
        // the file was written (a bound derived from the gaps there grew
        // past every function's time under load).
        const d = devtools.threads.find((x) => x.name === name);
        const want = assertDevToolsBottomUp(d, chrome.events, c.thread.tid, `DevTools ${name}`);
        const top = [...want.functions].filter(([k, v]) => !isIdle(k) && v > 0).sort((a, b) => b[1] - a[1]).slice(0, TOP);
        t.diagnostic(`${name}: DevTools top ${TOP} ${top.map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} ms`).join(', ')}`);
        assert.ok(top.length > 0, `${name}: DevTools shows no function`);
        // And it never gives a function more time than our samples do (only
        // less, where a scope boundary cuts a sample's interval), but for the
        // last sample, which lasts to the thread's last event there.
        const last = c.thread.samples.at(-1);
        const end = Math.max(last.ts, ...chrome.events.filter((e) => e.tid === c.thread.tid && e.ph === 'X').map((e) => e.ts + e.dur));
        const ours = new Map(tw);
        for (const [fn, ms] of d.functionSelfMs) {
          const most = (ours.get(fn) ?? 0) + (fn === last.stack.at(-1) ? end - last.ts : 0);
          assert.ok(ms * 1000 <= most + 1e-3, `${name}: DevTools gives ${fn} ${ms} ms, our samples ${most / 1000} ms`);
        }
      }
    });
  });

  describe('Firefox Profiler: the rest of the profile', { skip: haveProfilerCli ? false : NO_CLI }, () => {
    test('markers are the scopes and instants of the chrome file, counters are tracks', (t) => {
      t.diagnostic(`profiler-cli ${fxp.version}: ${fxp.counters.split('\n').filter((l) => /^\s+c-\d+:/.test(l)).map((l) => l.trim()).join('; ')}`);
      for (const name of firefox.threads.keys()) {
        const fx = fxp.threads.find((x) => x.name === name);
        // The app is idle when the sessions stop: every session has all of
        // its events, whichever tick it stopped at.
        const { phases, longTasks } = firefox.threads.get(name);
        assert.equal(fx.markerCount - phases - longTasks, chrome.threads.get(name)?.markers, `${name}: markers`);
        assert.equal(fx.markerCount - phases - longTasks, firefox.threads.get(name).markers, `${name}: markers in the file`);
        // The startup timeline and the long tasks: on the main thread, one
        // marker per phase of the file's list and per long task it counts.
        assert.equal(phases, name === 'main' ? firefox.stats.startup.phases.length : 0, `${name}: startup markers`);
        assert.equal(longTasks, name === 'main' ? firefox.stats.longTasks?.count ?? 0 : 0, `${name}: long task markers`);
      }
      assert.match(fxp.counters, /c-\d+: Memory/, 'a memory track (wasm heap bytes)');
      assert.match(fxp.counters, /live threads/);
    });
  });

  test('speedscope does not import the Firefox processed format (VIEWERS.md says so)', async () => {
    await assert.rejects(importWithSpeedscope(rec.byName.get('fmt-firefox').bytes, { fileName: 'fmt-firefox.json.gz' }),
      /Unrecognized format/);
  });
});

describe('names with hostile characters reach the readers as each format promises (golden files)', () => {
  const THREAD1 = 'decoder;1\n"x"';
  const NAMES = ['semi;colon', 'new\nline', 'quote"back\\slash', 'utf8 é ✓ \u2028 \u2029', 'bad \uFFFD\uFFFD utf8'];
  const golden = (f) => readFileSync(join(goldenDir, f));

  test('chrome: DevTools and speedscope show them unchanged', async () => {
    const events = parseTrace(golden('chrome.json'));
    const [dt, ss] = await Promise.all([importWithDevTools(events), importWithSpeedscope(golden('chrome.json'), { fileName: 'golden.json' })]);
    assert.ok(dt.threads.some((x) => x.name === THREAD1), `DevTools threads: ${dt.threads.map((x) => JSON.stringify(x.name))}`);
    assert.ok(ss.profiles.some((p) => p.thread === THREAD1), `speedscope profiles: ${ss.profiles.map((p) => JSON.stringify(p.name))}`);
    const frames = new Set(ss.exported.shared.frames.map((f) => f.name));
    for (const n of NAMES) assert.ok(frames.has(n), `speedscope frame ${JSON.stringify(n)}`);
    // A sample kept with only a prefix of its stack: a leaf frame of its own.
    assert.ok(frames.has('(partial stack)'), 'speedscope frame "(partial stack)"');
  });

  test('folded: speedscope shows them with ";" as ":" and control characters as spaces', async () => {
    const ss = await importWithSpeedscope(golden('folded.txt'), { fileName: 'golden.folded' });
    const roots = summarizeByRootFrame(ss.exported.profiles[0], ss.exported.shared.frames);
    assert.deepEqual([...roots.keys()], ['main', 'decoder:1 "x"']);
    assert.deepEqual([...roots.values()].map((r) => r.total), [5, 5]);
    const frames = new Set(ss.exported.shared.frames.map((f) => f.name));
    for (const n of NAMES) assert.ok(frames.has(foldedName(n)), `speedscope frame ${JSON.stringify(foldedName(n))}`);
    assert.ok(frames.has('(partial stack)'), 'speedscope frame "(partial stack)"');
  });

  test('firefox: the Firefox Profiler shows them unchanged', { skip: haveProfilerCli ? false : NO_CLI }, async () => {
    const fx = await importWithFirefoxProfiler(golden('firefox.json'), { fileName: 'golden.json' });
    assert.deepEqual(fx.threads.map((x) => x.name), ['main', THREAD1]);
    assert.deepEqual(fx.threads.map((x) => x.totalSamples), [5, 5]);
    const fns = new Set(fx.threads.flatMap((x) => x.selfSamples.map(([k]) => k)));
    for (const n of ['semi;colon', 'new\nline', 'quote"back\\slash', 'bad \uFFFD\uFFFD utf8', '(partial stack)']) assert.ok(fns.has(n), `function ${JSON.stringify(n)}: ${[...fns].map((x) => JSON.stringify(x))}`);
  });
});
