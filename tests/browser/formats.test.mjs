// One recording, three formats, every reader: the instrumented sample app
// runs with three concurrent startup sessions (same interval; formats
// chrome, firefox and folded; gzip), and each file is opened by readers
// nobody on this project wrote:
//   chrome  -> Chrome DevTools' trace engine (tests/lib/devtools.mjs) and
//              speedscope's Chrome importer (tests/lib/speedscope.mjs)
//   firefox -> the Firefox Profiler's own importer, through its npm CLI
//              (tests/lib/firefox-profiler.mjs); speedscope cannot read this
//              format (it reads only Firefox's older devtools export)
//   folded  -> speedscope's collapsed-stack importer
// They must show the same threads, the same samples per thread and the same
// top-10 functions by self samples. Readers that count samples (Firefox
// Profiler, speedscope on folded, DevTools' sample count) must agree
// exactly; readers that weigh each sample by the time to the next one
// (speedscope on chrome, DevTools' Bottom-Up) are checked the way
// readers.test.mjs checks them: their self time equals the time-weighted
// self time of our samples, and their top functions are ours up to the
// sampling jitter.
//
// The three sessions share the sampler's snapshots only if the worker
// adopted and stopped them in the same loop iteration; before the readers
// run, the test checks with its own parsers that the three files hold the
// same samples, and records again (at most MAX_LOADS page loads) if they do not.
//
// The same readers also open the golden files of tests/golden/ (written by
// the C encoders on the host from names with ';', quotes, backslashes,
// newlines, control characters, non-ASCII and invalid UTF-8) to check that
// the names arrive as each format promises.
//
// WASMTRACE_UPDATE_DOCS=1 also writes docs/speedscope-folded.png, the
// screenshot docs/VIEWERS.md shows (a copy always goes to out/formats/).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { recordPage } from '../lib/record.mjs';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';
import { importWithFirefoxProfiler, profilerCliPath } from '../lib/firefox-profiler.mjs';
import { importWithSpeedscope, summarizeByRootFrame } from '../lib/speedscope.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// WASMTRACE_WASM_BUILD: another wasm build directory (default build/wasm).
const sampleDir = join(process.env.WASMTRACE_WASM_BUILD ?? join(root, 'build/wasm'), 'samples/startup_instrumented');
const goldenDir = join(root, 'tests/golden');
const outDir = join(root, 'out/formats');
const INTERVAL_US = 1000;
const TOP = 10;
const THREADS = ['main', 'asset-decoder-0', 'asset-decoder-1'];
const IDLE = '(idle)';
// Page loads until the three sessions hold the same samples (see above).
const MAX_LOADS = 5;

const SESSIONS = [
  { format: 'chrome', name: 'fmt-chrome', output: '/traces/fmt-chrome.json.gz' },
  { format: 'firefox', name: 'fmt-firefox', output: '/traces/fmt-firefox.json.gz' },
  { format: 'folded', name: 'fmt-folded', output: '/traces/fmt-folded.folded.gz' },
];
const CONFIG = {
  sessions: SESSIONS.map(({ format, name, output }) => ({
    name, output, format, compression: 'gzip', sampling: { intervalUs: INTERVAL_US },
  })),
};

/** The folded encoder's rule for names (encoder_folded.c). */
const foldedName = (s) => (s === '' ? '(unnamed)' : s.replace(/;/g, ':').replace(/[\u0000-\u001f\u007f]/g, ' '));

const gunzip = (bytes) => {
  const b = Buffer.from(bytes);
  return b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b;
};

/** Top n [name, count] by count, then name; idle left out. */
function topCounts(entries, n = TOP) {
  return [...entries].filter(([k, v]) => k !== IDLE && v > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, n);
}

const countMap = (leaves) => {
  const m = new Map();
  for (const leaf of leaves) m.set(leaf, (m.get(leaf) || 0) + 1);
  return m;
};

// ---- our own parsers: what each file holds ---------------------------------

/** Per thread name: {total, self: Map(leaf -> count), samples (chrome only)}. */
function fromChrome(bytes) {
  const events = parseTrace(bytes);
  const a = analyzeTrace(events);
  const threads = new Map();
  for (const t of a.threads) {
    if (!t.samples.length) continue;
    const leaves = t.samples.map((s) => (s.stack.length ? s.stack[s.stack.length - 1] : IDLE));
    const markers = events.filter((e) => e.tid === t.tid && ((e.ph === 'X' && e.cat !== 'wasmtrace') || e.ph === 'I')).length;
    threads.set(t.name, { total: t.samples.length, self: countMap(leaves), thread: t, markers });
  }
  return { events, analysis: a, threads, stats: a.stats };
}

function fromFirefox(bytes) {
  const p = JSON.parse(gunzip(bytes).toString('utf8'));
  const strings = p.shared.stringArray;
  const threads = new Map();
  for (const t of p.threads) {
    if (!t.samples.length) continue;
    const leafName = (stack) => (stack === null ? IDLE : strings[t.funcTable.name[t.frameTable.func[t.stackTable.frame[stack]]]]);
    threads.set(t.name, { total: t.samples.length, self: countMap(t.samples.stack.map(leafName)), markers: t.markers.length });
  }
  return { profile: p, threads, stats: p.meta.wasmtrace };
}

function fromFolded(bytes) {
  const lines = gunzip(bytes).toString('utf8').split('\n').filter(Boolean);
  const threads = new Map();
  let comment = null;
  for (const line of lines) {
    if (line.startsWith('#')) {
      comment = line;
      continue;
    }
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
  const written = comment && /written (\d+)/.exec(comment);
  return { threads, comment, stats: { samplesWritten: written ? Number(written[1]) : null } };
}

/** Differences between the three files' samples (empty when they agree). */
function sampleDifferences(chrome, firefox, folded) {
  const diffs = [];
  const names = [...chrome.threads.keys()].sort();
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(names, [...firefox.threads.keys()].sort())) diffs.push(`firefox threads ${[...firefox.threads.keys()]} vs chrome ${names}`);
  if (!same(names.map(foldedName).sort(), [...folded.threads.keys()].sort())) diffs.push(`folded threads ${[...folded.threads.keys()]} vs chrome ${names}`);
  for (const name of names) {
    const c = chrome.threads.get(name), f = firefox.threads.get(name), d = folded.threads.get(foldedName(name));
    if (!f || !d) continue;
    const cs = [...c.self.entries()].sort(), fs = [...f.self.entries()].sort();
    const ds = [...d.self.entries()].sort();
    const cd = [...c.self.entries()].map(([k, v]) => [foldedName(k), v]).sort();
    if (c.total !== f.total || !same(cs, fs)) diffs.push(`${name}: firefox ${f.total} samples vs chrome ${c.total}`);
    if (c.total !== d.total || !same(cd, ds)) diffs.push(`${name}: folded ${d.total} samples vs chrome ${c.total}`);
  }
  return diffs;
}

// ---- time-weighted readers (as in readers.test.mjs) -------------------------

/** Self time per leaf function of a thread when each sample lasts until the next one. */
function timeWeightedSelf(thread) {
  const self = new Map();
  const s = thread.samples;
  for (let i = 0; i + 1 < s.length; i++) {
    const leaf = s[i].stack.at(-1);
    if (!leaf || leaf === IDLE || leaf === '(root)') continue;
    self.set(leaf, (self.get(leaf) || 0) + (s[i + 1].ts - s[i].ts));
  }
  return [...self.entries()].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1]);
}

/**
 * The reader's top names are ours in order, where names whose sample counts
 * (in us: count * interval) differ by at most `tol` may trade places.
 */
function assertSameTop(reader, ours, n, tol, label) {
  const ov = new Map(ours);
  const o = ours.filter(([k, v]) => k !== IDLE && v > tol).slice(0, n);
  const r = reader.filter(([k]) => k !== IDLE && k !== '(root)').slice(0, o.length);
  const show = (l) => l.map(([k, v]) => `${k}=${Math.round(v)}`).join(', ');
  const msg = `${label}: reader top [${show(reader.slice(0, n))}] vs ours [${show(ours.slice(0, n))}] (tolerance ${Math.round(tol)})`;
  assert.ok(o.length > 0, `${msg}: no function stands out`);
  assert.equal(r.length, o.length, msg);
  r.forEach(([name], i) => {
    assert.ok(ov.has(name), `${msg}: ${name} is not one of our functions`);
    assert.ok(Math.abs(ov.get(name) - o[i][1]) <= tol, `${msg}: place ${i + 1}`);
  });
}

const haveProfilerCli = profilerCliPath() !== null;
const NO_CLI = 'the Firefox Profiler CLI is not installed (npm package @firefox-devtools/profiler-cli, or set WASMTRACE_PROFILER_CLI)';

describe('one recording in three formats, opened by real readers', () => {
  let rec, chrome, firefox, folded, attempts = 0, differences = [];
  const retried = []; // why earlier page loads were not used
  let devtools, ssChrome, ssFolded, ssFoldedRoots, fxp;

  before(async () => {
    for (attempts = 1; attempts <= MAX_LOADS; attempts++) {
      rec = await recordPage({
        dir: sampleDir,
        path: `index.html?wasmtrace=${encodeURIComponent(JSON.stringify(CONFIG))}`,
        // Stop all three at once, so that they see the same last tick.
        beforeStop: (page) => page.evaluate(async () => {
          await Promise.all(Module.wasmtrace.getStartupSessions().map((s) => s.stop()));
        }),
      });
      const byName = new Map(rec.sessions.map((s) => [s.name, s]));
      for (const { name } of SESSIONS) assert.ok(byName.get(name)?.bytes, `${name}: no trace (${byName.get(name)?.error ?? byName.get(name)?.state})`);
      chrome = fromChrome(byName.get('fmt-chrome').bytes);
      firefox = fromFirefox(byName.get('fmt-firefox').bytes);
      folded = fromFolded(byName.get('fmt-folded').bytes);
      rec.byName = byName;
      differences = sampleDifferences(chrome, firefox, folded);
      if (!differences.length) break;
      retried.push(differences.join('; '));
    }
    const bytes = (name) => rec.byName.get(name).bytes;
    mkdirSync(outDir, { recursive: true });
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

  test('the three sessions recorded the same samples (our own parsers)', (t) => {
    t.diagnostic(`page loads: ${Math.min(attempts, MAX_LOADS)}; threads: ${sampled().map((n) => `${n} ${chrome.threads.get(n).total}`).join(', ')}`);
    for (const r of retried) t.diagnostic(`a load whose sessions did not share snapshots: ${r}`);
    assert.deepEqual(differences, []);
    for (const name of THREADS) assert.ok(chrome.threads.get(name)?.total > 0, `${name}: no samples`);
    const written = chrome.stats.samplesWritten;
    assert.equal(firefox.stats.samplesWritten, written);
    assert.equal(folded.stats.samplesWritten, written);
    assert.equal([...chrome.threads.values()].reduce((n, x) => n + x.total, 0), written);
    for (const { name } of SESSIONS) assert.equal(rec.byName.get(name).stats.samplesWritten, written, `${name}: stats()`);
  });

  describe('thread names', () => {
    test('DevTools, speedscope (chrome and folded) and the Firefox Profiler list the same sampled threads', (t) => {
      const ours = sampled().sort();
      const dt = devtools.threads.filter((x) => x.cpuSamples > 0).map((x) => x.name).sort();
      const sc = ssChrome.profiles.map((p) => p.thread).sort();
      const sf = [...ssFoldedRoots.keys()].sort();
      t.diagnostic(`ours: ${ours.join(', ')}`);
      assert.deepEqual(dt, ours, 'DevTools');
      assert.deepEqual(sc, ours, 'speedscope (chrome)');
      assert.deepEqual(sf, ours.map(foldedName).sort(), 'speedscope (folded)');
      if (fxp) {
        const fx = fxp.threads.filter((x) => x.totalSamples > 0).map((x) => x.name).sort();
        assert.deepEqual(fx, ours, 'Firefox Profiler');
      }
    });
  });

  describe('samples per thread', () => {
    test('counting readers agree exactly: DevTools, Firefox Profiler, speedscope (folded)', (t) => {
      for (const name of sampled()) {
        const ours = chrome.threads.get(name).total;
        const dt = devtools.threads.find((x) => x.name === name).cpuSamples;
        const sf = ssFoldedRoots.get(foldedName(name)).total;
        const fx = fxp?.threads.find((x) => x.name === name);
        t.diagnostic(`${name}: ours ${ours}, DevTools ${dt}, speedscope folded ${sf}, Firefox Profiler ${fx ? `${fx.totalSamples} (${fx.activeSamples} not idle)` : 'n/a'}`);
        assert.equal(dt, ours, `${name}: DevTools`);
        assert.equal(sf, ours, `${name}: speedscope (folded)`);
        if (fx) {
          assert.equal(fx.totalSamples, ours, `${name}: Firefox Profiler`);
          const idle = chrome.threads.get(name).self.get(IDLE) ?? 0;
          assert.equal(fx.activeSamples, ours - idle, `${name}: Firefox Profiler samples outside its Idle category`);
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
    test('counting readers give exactly our top 10, with our counts', (t) => {
      for (const name of sampled()) {
        const ours = topCounts(chrome.threads.get(name).self);
        t.diagnostic(`${name}: ${ours.map(([k, v]) => `${k} ${v}`).join(', ')}`);
        const sf = topCounts(ssFoldedRoots.get(foldedName(name)).self);
        assert.deepEqual(sf, ours.map(([k, v]) => [foldedName(k), v]), `${name}: speedscope (folded)`);
        if (fxp) {
          const fx = topCounts(fxp.threads.find((x) => x.name === name).selfSamples);
          assert.deepEqual(fx, ours, `${name}: Firefox Profiler`);
        }
      }
    });

    test('time-weighted readers give our top 10 up to sampling jitter: speedscope (chrome), DevTools Bottom-Up', (t) => {
      for (const name of sampled()) {
        const c = chrome.threads.get(name);
        const counts = topCounts(c.self, Infinity).map(([k, v]) => [k, v * INTERVAL_US]);
        // A time-weighted reader gives each sample the time to the next one:
        // one interval, give or take the sampler's lateness (large on a busy
        // machine, when ticks are missed). The tolerance is what our own
        // samples show: the largest gap between a function's time-weighted
        // self time and its count times the interval, plus 3 intervals.
        const tw = timeWeightedSelf(c.thread);
        const twMap = new Map(tw);
        const jitter = Math.max(0, ...counts.map(([k, us]) => Math.abs((twMap.get(k) ?? 0) - us)));
        const tol = INTERVAL_US * 3 + jitter;
        t.diagnostic(`${name}: time vs count jitter ${(jitter / 1000).toFixed(1)} ms`);
        // speedscope: its self time per function is exactly our time-weighted
        // self time, and its ranking is the count ranking up to the jitter.
        const p = ssChrome.profiles.find((x) => x.thread === name);
        assert.deepEqual(Object.fromEntries(p.selfWeights), Object.fromEntries(tw), `${name}: speedscope self time`);
        assertSameTop(p.selfWeights, counts, TOP, tol, `speedscope (chrome) ${name}`);
        // DevTools: scope events can hold a function's time too (see
        // readers.test.mjs): add a scope's self time to the same name.
        const d = devtools.threads.find((x) => x.name === name);
        const named = new Map(d.functionSelfMs);
        for (const [k, v] of d.eventSelfMs) if (named.has(k)) named.set(k, named.get(k) + v);
        const dt = [...named.entries()].map(([k, ms]) => [k, ms * 1000]).sort((a, b) => b[1] - a[1]);
        assertSameTop(dt, counts, TOP, tol + INTERVAL_US * c.thread.scopes.length, `DevTools ${name}`);
      }
    });
  });

  describe('Firefox Profiler: the rest of the profile', { skip: haveProfilerCli ? false : NO_CLI }, () => {
    test('markers are the scopes and instants of the chrome file, counters are tracks', (t) => {
      t.diagnostic(`profiler-cli ${fxp.version}: ${fxp.counters.split('\n').filter((l) => /^\s+c-\d+:/.test(l)).map((l) => l.trim()).join('; ')}`);
      for (const name of sampled()) {
        const fx = fxp.threads.find((x) => x.name === name);
        assert.equal(fx.markerCount, chrome.threads.get(name).markers, `${name}: markers`);
        assert.equal(fx.markerCount, firefox.threads.get(name).markers, `${name}: markers in the file`);
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
  const NAMES = ['semi;colon', 'new\nline', 'quote"back\\slash', 'utf8 é ✓', 'bad \uFFFD\uFFFD utf8'];
  const golden = (f) => readFileSync(join(goldenDir, f));

  test('chrome: DevTools and speedscope show them unchanged', async () => {
    const events = parseTrace(golden('chrome.json'));
    const [dt, ss] = await Promise.all([importWithDevTools(events), importWithSpeedscope(golden('chrome.json'), { fileName: 'golden.json' })]);
    assert.ok(dt.threads.some((x) => x.name === THREAD1), `DevTools threads: ${dt.threads.map((x) => JSON.stringify(x.name))}`);
    assert.ok(ss.profiles.some((p) => p.thread === THREAD1), `speedscope profiles: ${ss.profiles.map((p) => JSON.stringify(p.name))}`);
    const frames = new Set(ss.exported.shared.frames.map((f) => f.name));
    for (const n of NAMES) assert.ok(frames.has(n), `speedscope frame ${JSON.stringify(n)}`);
  });

  test('folded: speedscope shows them with ";" as ":" and control characters as spaces', async () => {
    const ss = await importWithSpeedscope(golden('folded.txt'), { fileName: 'golden.folded' });
    const roots = summarizeByRootFrame(ss.exported.profiles[0], ss.exported.shared.frames);
    assert.deepEqual([...roots.keys()], ['main', 'decoder:1 "x"']);
    assert.deepEqual([...roots.values()].map((r) => r.total), [5, 4]);
    const frames = new Set(ss.exported.shared.frames.map((f) => f.name));
    for (const n of NAMES) assert.ok(frames.has(foldedName(n)), `speedscope frame ${JSON.stringify(foldedName(n))}`);
  });

  test('firefox: the Firefox Profiler shows them unchanged', { skip: haveProfilerCli ? false : NO_CLI }, async () => {
    const fx = await importWithFirefoxProfiler(golden('firefox.json'), { fileName: 'golden.json' });
    assert.deepEqual(fx.threads.map((x) => x.name), ['main', THREAD1]);
    assert.deepEqual(fx.threads.map((x) => x.totalSamples), [5, 4]);
    const fns = new Set(fx.threads.flatMap((x) => x.selfSamples.map(([k]) => k)));
    for (const n of ['semi;colon', 'new\nline', 'quote"back\\slash', 'bad \uFFFD\uFFFD utf8']) assert.ok(fns.has(n), `function ${JSON.stringify(n)}: ${[...fns].map((x) => JSON.stringify(x))}`);
  });
});
