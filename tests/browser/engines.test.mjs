// The same apps recorded in Chromium (V8) and in Firefox (SpiderMonkey), in
// one run: what the trace says about the app must not depend on the engine.
//   - frames of the -finstrument-functions build are named from the wasm
//     name section in both: every frame is a name of that section (or a
//     scope the app named), never wasm-function[N] or wasm-table[N]; the
//     C++ ones are demangled; the call paths each engine samples often are
//     the same paths in the other (a table index mapped to the wrong
//     function would give other paths);
//   - thread names, scopes (names, categories and how many, per thread),
//     instants and counters (names, series) are the same.
// The shim finds a frame's name through the table entry's `name`, which the
// JS API makes the function index in both engines (js/wasmtrace_library.js,
// wt_js_function_name): this is the test that holds SpiderMonkey to it.
// Browser-specific by design: it always runs both browsers, whatever
// WASMTRACE_BROWSER says (scripts/test.sh runs it once, with the Chromium
// tests).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { MARKERS } from '../../lib/profile.mjs';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';
import { loadNameParser } from '../fuzz/reader-fuzzers.mjs';

const ENGINES = ['chromium', 'firefox'];
const sampleDir = join(wasmBuildDir, 'samples/startup_instrumented');
const engineDir = join(wasmBuildDir, 'tests/engine');
// C++ functions of an app instrumented in full (tests/clones, clones_nolto:
// the sample's C++ is inlined into a C function), as the demangler writes them.
const clonesDir = join(wasmBuildDir, 'tests/clones');
const CXX = '(anonymous namespace)::step(unsigned int)';
// A call path a trace must share with the other engine's: sampled at least
// this share of its thread's busy samples, and at least this many times (a
// path of a few percent can be absent from one recording by chance or by
// the load: under two CPU hogs a decoder once had 9 of 205 samples in
// decode_assets' own code in Chromium and none in Firefox; one of 10 % in
// ~200 samples is absent by chance with odds below 1e-9).
const COMMON_PATH_SHARE = 0.1;
const MIN_PATH_SAMPLES = 20;

// Samples of code that ran whole: not idle, not waiting (how long main
// waits for the decoders depends on the machine's load, not on names), not
// partial.
const MARKED = Object.values(MARKERS);
const busy = (t) => t.samples.filter((s) => s.stack.length && s.stack[0] !== '(idle)' && !s.stack.some((f) => MARKED.includes(f)));

// The names the app's wasm name section gives its functions.
function sectionNames(wasmFile) {
  const mod = new WebAssembly.Module(readFileSync(wasmFile));
  const [section] = WebAssembly.Module.customSections(mod, 'name');
  assert.ok(section, `${wasmFile} has no name section`);
  return new Set(Object.values(loadNameParser()(new Uint8Array(section))));
}

// Per thread name: scope name/category -> count.
function scopeCounts(events) {
  const names = threadNames(events);
  const out = {};
  for (const e of events) {
    if (e.ph !== 'X' || e.cat === 'wasmtrace') continue;
    const key = `${names.get(e.tid) ?? e.tid}: ${e.cat}/${e.name}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

function threadNames(events) {
  return new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, e.args.name]));
}

// The startup timeline's events (category 'startup') and the tracks that
// carry them: apart from the app's threads, compared on their own (each
// engine needs its own number of tracks for its overlaps). The main
// thread's long tasks (category 'longtask', on a track of their own) are
// Chromium's only.
function withoutTimeline(events) {
  const own = (e) => e.cat === 'startup' || e.cat === 'longtask';
  const lanes = new Set(events.filter(own).map((e) => e.tid));
  return events.filter((e) => !own(e) && !lanes.has(e.tid));
}
// Phase names, without what one engine gives and the other does not
// (Chromium's worker-script entries are out of order: a note instead).
function timelineNames(events) {
  const names = events.filter((e) => e.cat === 'startup' && e.name !== 'note').map((e) => e.name);
  return [...new Set(names.filter((n) => !/^fetch .*worker\.js$/.test(n)))].sort();
}

// WASMTRACE_SKIP_FIREFOX=1 (scripts/test.sh's switch for machines without
// Firefox) skips it.
const skip = process.env.WASMTRACE_SKIP_FIREFOX === '1' && 'WASMTRACE_SKIP_FIREFOX=1';

describe('Chromium and Firefox record the same app the same way', { skip }, () => {
  const sample = {};
  const engine = {};
  const clones = {};
  let names;

  before(async () => {
    names = sectionNames(join(sampleDir, 'startup.wasm'));
    const config = JSON.stringify({ sessions: [{ name: 'busy', sampling: { intervalUs: 1000 } }] });
    for (const browser of ENGINES) {
      const s = await recordPage({ dir: sampleDir, browser });
      assert.ok(s.sessions[0]?.bytes, `${browser}: no trace of the sample (${s.sessions[0]?.error})`);
      const all = parseTrace(s.sessions[0].bytes);
      const events = withoutTimeline(all);
      sample[browser] = { events, analysis: analyzeTrace(events), timeline: timelineNames(all) };
      const e = await recordPage({ dir: engineDir, browser, waitFor: 'self.engineReady === true',
        path: `index.html?${new URLSearchParams({ args: 'busy 400 1', config })}` });
      assert.ok(e.sessions[0]?.bytes, `${browser}: no trace of the engine app (${e.sessions[0]?.error})`);
      engine[browser] = withoutTimeline(parseTrace(e.sessions[0].bytes));
      const c = await recordPage({ dir: clonesDir, browser, waitFor: 'self.clonesDone === true',
        path: `index.html?app=clones_nolto&config=${encodeURIComponent(JSON.stringify({ sessions: [{ name: 'cxx', output: '/traces/cxx.json.gz', sampling: { intervalUs: 500 } }] }))}` });
      assert.ok(c.sessions[0]?.bytes, `${browser}: no trace of the clones app (${c.sessions[0]?.error})`);
      clones[browser] = analyzeTrace(parseTrace(c.sessions[0].bytes));
    }
  });

  test('every frame is named from the name section (or is a scope), never wasm-function[N]', () => {
    for (const browser of ENGINES) {
      const { analysis } = sample[browser];
      const scopes = new Set(analysis.threads.flatMap((t) => t.scopes.map((s) => s.name)));
      const unnamed = new Set();
      let frames = 0;
      for (const t of analysis.threads) {
        for (const s of t.samples) {
          for (const f of s.stack) {
            frames++;
            if (f !== '(idle)' && !MARKED.includes(f) && !names.has(f) && !scopes.has(f)) unnamed.add(f);
          }
        }
      }
      assert.ok(frames > 1000, `${browser}: only ${frames} frames`);
      assert.deepEqual([...unnamed], [], `${browser}: frames not named from the name section`);
    }
  });

  test('C++ frames are demangled in both, named from the name section', () => {
    const cxxNames = sectionNames(join(clonesDir, 'clones_nolto.wasm'));
    assert.ok(cxxNames.has(CXX), `the name section has no ${CXX}`);
    for (const browser of ENGINES) {
      const frames = new Set(clones[browser].threads.flatMap((t) => t.samples.flatMap((s) => s.stack)));
      assert.ok(frames.has(CXX), `${browser}: no sample in ${CXX}: ${[...frames].join(', ')}`);
      const unnamed = [...frames].filter((f) => f !== '(idle)' && !MARKED.includes(f) && !cxxNames.has(f) &&
        !clones[browser].threads.some((t) => t.scopes.some((x) => x.name === f)));
      assert.deepEqual(unnamed, [], `${browser}: frames not named from the name section`);
    }
  });

  test('the call paths one engine samples often are sampled in the other too', () => {
    const paths = (browser, thread) => {
      const t = sample[browser].analysis.threads.find((x) => x.name === thread);
      const count = new Map();
      for (const s of busy(t)) count.set(s.stack.join(' > '), (count.get(s.stack.join(' > ')) ?? 0) + 1);
      return { count, total: busy(t).length };
    };
    const missing = [];
    for (const thread of ['main', 'asset-decoder-0', 'asset-decoder-1']) {
      for (const [a, b] of [ENGINES, [...ENGINES].reverse()]) {
        const pa = paths(a, thread);
        const pb = paths(b, thread);
        // Enough busy samples in each for a path's share to mean something.
        assert.ok(pa.total >= 50, `${thread}: only ${pa.total} busy samples in ${a}`);
        for (const [path, n] of pa.count) {
          if (n >= COMMON_PATH_SHARE * pa.total && n >= MIN_PATH_SAMPLES && !pb.count.has(path)) missing.push(`${thread}: ${a} ${n}/${pa.total} in ${path}, ${b} never`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  test('the same startup phases', () => {
    const [c, f] = ENGINES.map((b) => sample[b].timeline);
    assert.ok(c.includes('main() starts') && c.includes('worker 4 load'), c.join(', '));
    assert.deepEqual(f, c);
  });

  test('the same thread names, and the same scopes on each thread', () => {
    const [c, f] = ENGINES.map((b) => sample[b]);
    assert.deepEqual([...threadNames(f.events).values()].sort(), [...threadNames(c.events).values()].sort());
    assert.deepEqual(scopeCounts(f.events), scopeCounts(c.events));
  });

  test('the same instants and counters (names, series, threads)', (t) => {
    const summary = (events) => {
      const names = threadNames(events);
      const instants = new Set(events.filter((e) => e.ph === 'I' || e.ph === 'i').map((e) => `${names.get(e.tid) ?? e.tid}: ${e.cat}/${e.name}`));
      const counters = new Set(events.filter((e) => e.ph === 'C').map((e) => `${e.name} [${Object.keys(e.args ?? {}).sort()}]`));
      return { instants: [...instants].sort(), counters: [...counters].sort() };
    };
    const [c, f] = ENGINES.map((b) => summary(engine[b]));
    assert.ok(c.instants.length > 0 && c.counters.some((x) => x.startsWith('slices ')), JSON.stringify(c));
    t.diagnostic(`instants: ${c.instants.join('; ')}; counters: ${c.counters.join('; ')}`);
    assert.deepEqual(f, c);
  });
});
