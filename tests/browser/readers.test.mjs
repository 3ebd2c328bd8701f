// The sample app's startup trace, opened by real third-party readers:
//  - speedscope's shipped web app (its own Chrome importer, in headless
//    Chromium; tests/lib/speedscope.mjs),
//  - Chrome DevTools' Performance-panel trace engine (@paulirish/trace_engine,
//    in Node; tests/lib/devtools.mjs).
// Each must see the same threads, the same samples and the same top
// functions as our own reader (lib/trace.mjs).
// WASMTRACE_READERS_TRACE=path/to/trace.json.gz checks that file instead of
// a fresh recording of the sample app.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';
import { importWithSpeedscope } from '../lib/speedscope.mjs';
import { assertDevToolsBottomUp, assertSameTop, isIdle, timeWeightedSelf } from '../lib/weights.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The instrumented variant: scopes and every function (C++ included) on the
// stacks, so the readers are checked on real, demangled function names too.
const sampleDir = join(wasmBuildDir, 'samples/startup_instrumented');
const THREADS = ['main', 'asset-decoder-0', 'asset-decoder-1'];
// Functions the sample app spends its time in, per thread (a sanity check
// that the comparison is about real names, not wasm-function[N]); in the
// instrumented build inflate_block's work is its rounds, inflate_round.
const SIGNATURE = { main: ['sort_keys', 'tokenize'], 'asset-decoder-0': ['inflate_round'], 'asset-decoder-1': ['inflate_round'] };
const TOP = 5;

describe('third-party readers open the startup trace', () => {
  let session, events, ours, byName, intervalUs, speedscope, devtools;

  before(async () => {
    const file = process.env.WASMTRACE_READERS_TRACE;
    if (file) {
      session = { name: basename(file).replace(/\.json(\.gz)?$/, ''), bytes: readFileSync(file) };
    } else {
      const rec = await recordPage({ dir: sampleDir });
      session = rec.sessions[0];
    }
    assert.ok(session?.bytes, `no trace recorded: ${session?.error}`);
    events = parseTrace(session.bytes);
    ours = analyzeTrace(events);
    byName = new Map(ours.threads.map((t) => [t.name, t]));
    intervalUs = ours.session.intervalUs;
    [speedscope, devtools] = await Promise.all([
      importWithSpeedscope(session.bytes, { fileName: `${session.name}.json.gz` }),
      importWithDevTools(events),
    ]);
  });

  const sampled = () => ours.threads.filter((t) => t.samples.length > 0);

  test('our reader: the named threads, and every sample the stats say were written', () => {
    for (const name of THREADS) assert.ok(byName.get(name)?.samples.length > 0, `${name}: no samples`);
    const total = ours.threads.reduce((n, t) => n + t.samples.length, 0);
    assert.equal(total, ours.stats.samplesWritten);
  });

  // samples/startup/pixels.cpp keeps one C++ method out of line (noinline):
  // without it, after-inlining instrumentation leaves no C++ frame, and the
  // readers would never be checked on a demangled name.
  const CXX = /^sample::pixels::Converter<sample::pixels::Rgba>::to_luma\(sample::pixels::Rgba\*, unsigned long\)$/;

  test('the decoder threads show the sample\'s C++ method by its demangled name', { skip: !!process.env.WASMTRACE_READERS_TRACE }, () => {
    for (const name of ['asset-decoder-0', 'asset-decoder-1']) {
      const frames = new Set(byName.get(name).samples.flatMap((x) => x.stack));
      assert.ok([...frames].some((f) => CXX.test(f)), `${name}: no demangled C++ frame; frames: ${[...frames].join(', ')}`);
    }
  });

  describe(`speedscope`, () => {
    const profileOf = (name) => speedscope.profiles.find((p) => p.thread === name);

    test('imports the file as a Chrome trace, one named profile per sampled thread', (t) => {
      t.diagnostic(`speedscope ${speedscope.version}: "Importing as ${speedscope.importer}", ${speedscope.toolbar}`);
      assert.equal(speedscope.importer, 'Chrome Timeline');
      assert.equal(speedscope.profiles.length, sampled().length);
      for (const name of THREADS) assert.ok(profileOf(name), `no profile for ${name}: ${speedscope.profiles.map((p) => p.name)}`);
      assert.equal(new Set(speedscope.profiles.map((p) => p.thread)).size, speedscope.profiles.length);
    });

    test('sees all of each thread\'s sampled time, the same as our samples give', (t) => {
      for (const thread of sampled()) {
        const p = profileOf(thread.name);
        const expected = timeWeightedSelf(thread).reduce((n, [, w]) => n + w, 0);
        t.diagnostic(`${thread.name}: ${p.totalWeight} us (ours: ${thread.samples.length} samples, ${expected} us)`);
        assert.ok(p.totalWeight > 0, `${thread.name}: empty profile`);
        assert.equal(p.unit, 'microseconds');
        assert.equal(p.totalWeight, expected, `${thread.name}: speedscope weight vs ours`);
        assert.ok(p.endValue <= thread.samples.at(-1).ts - thread.startTime, `${thread.name}: profile ends after the last sample`);
      }
    });

    test('self time per function equals ours exactly, and its top 5 are our top 5', (t) => {
      for (const thread of sampled()) {
        const p = profileOf(thread.name);
        t.diagnostic(`${thread.name}: ${p.selfWeights.slice(0, TOP).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} ms`).join(', ')}`);
        assert.deepEqual(Object.fromEntries(p.selfWeights), Object.fromEntries(timeWeightedSelf(thread)), `${thread.name}: self time per function`);
        // Its ranking is ours, by time.
        assertSameTop(p.selfWeights, timeWeightedSelf(thread), TOP, 0, `speedscope ${thread.name}`);
        const top = p.selfWeights.slice(0, TOP).map(([k]) => k);
        for (const fn of SIGNATURE[thread.name] ?? []) assert.ok(top.includes(fn), `${thread.name}: ${fn} not in speedscope's top ${TOP}: ${top}`);
      }
    });

    test('names the sample\'s C++ method as we do (demangled)', { skip: !!process.env.WASMTRACE_READERS_TRACE }, () => {
      for (const name of ['asset-decoder-0', 'asset-decoder-1']) {
        assert.ok(profileOf(name).selfWeights.some(([k]) => CXX.test(k)), `${name}: speedscope shows no demangled C++ frame`);
      }
    });
  });

  describe('Chrome DevTools trace engine', () => {
    const threadOf = (name) => devtools.threads.find((t) => t.name === name);

    test('gives every thread a named track', (t) => {
      t.diagnostic(`trace_engine ${devtools.version}: generic trace ${devtools.traceIsGeneric}; ` +
        devtools.threads.map((x) => `${x.name} (tid ${x.tid}, ${x.entries} entries)`).join(', '));
      assert.deepEqual(devtools.warnings, []);
      for (const thread of sampled()) {
        const d = devtools.threads.find((x) => x.tid === thread.tid);
        assert.ok(d, `no DevTools thread for ${thread.name}`);
        assert.equal(d.name, thread.name);
        assert.ok(d.hasTrack, `${thread.name}: no track`);
      }
      for (const name of THREADS) assert.ok(threadOf(name)?.hasTrack, `no track named ${name}`);
    });

    test('keeps every CPU sample and derives JS calls from them', (t) => {
      let total = 0;
      for (const thread of sampled()) {
        const d = threadOf(thread.name);
        t.diagnostic(`${thread.name}: ${d.cpuSamples} samples, ${d.profileCalls} profile calls (profile ${d.profileId})`);
        assert.equal(d.cpuSamples, thread.samples.length, `${thread.name}: samples`);
        assert.ok(d.profileCalls > 0, `${thread.name}: no profile calls`);
        total += d.cpuSamples;
      }
      assert.equal(total, ours.stats.samplesWritten);
    });

    test('every event and profile call nests into its thread\'s flame chart', () => {
      // TreeHelpers.treify leaves out any entry that starts inside another
      // and ends after it: it is then missing from the flame chart.
      for (const name of THREADS) {
        const d = threadOf(name);
        assert.deepEqual(d.droppedFromTree, [], `${name}: entries left out of the DevTools tree`);
      }
    });

    test('Bottom-Up: self time is not counted twice', () => {
      for (const thread of sampled()) {
        const d = threadOf(thread.name);
        const selfMs = [...d.functionSelfMs, ...d.eventSelfMs].reduce((n, [, v]) => n + v, 0);
        const spans = events.filter((e) => e.tid === thread.tid && e.ph === 'X');
        const first = Math.min(...spans.map((e) => e.ts), thread.samples[0].ts);
        const last = Math.max(...spans.map((e) => e.ts + e.dur), thread.samples.at(-1).ts);
        const spanMs = (last - first) / 1000 + (2 * intervalUs) / 1000;
        assert.ok(selfMs <= spanMs, `${thread.name}: Bottom-Up self times add up to ${selfMs.toFixed(1)} ms ` +
          `over a ${spanMs.toFixed(1)} ms thread (events: ${d.eventSelfMs.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')})`);
      }
    });

    test('Bottom-Up: self time per function and per scope is exactly what the file makes it show; our signature functions lead', (t) => {
      for (const thread of sampled()) {
        const d = threadOf(thread.name);
        // DevTools gives each sample the time to the next one, except what
        // follows a scope's start or end inside that interval (the scope
        // event's), and nests a scope that starts with a sample and lasts as
        // long as its call under that call. All of it follows from the
        // file: computed by tests/lib/weights.mjs (devtoolsBottomUp) and
        // compared exactly, whatever the load was when it was recorded.
        const want = assertDevToolsBottomUp(d, events, thread.tid, `DevTools ${thread.name}`);
        // A scope and the function it names both show that name in the
        // Bottom-Up view: add them up for the ranking.
        const named = new Map(want.functions);
        for (const [k, v] of want.events) if (named.has(k)) named.set(k, named.get(k) + v);
        const dt = [...named.entries()].filter(([k]) => !isIdle(k)).sort((a, b) => b[1] - a[1]);
        t.diagnostic(`${thread.name}: ${dt.slice(0, TOP).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} ms`).join(', ')}`);
        const top = dt.slice(0, TOP).map(([k]) => k);
        for (const fn of SIGNATURE[thread.name] ?? []) assert.ok(top.includes(fn), `${thread.name}: ${fn} not in DevTools' top ${TOP}: ${top}`);
      }
    });
  });
});
