// The page's JS profile added to a trace as "main (JS)" (lib/jsprofile.mjs):
// in each format our reader sees the same samples, stacks, times and
// weights, clipped to the session's window; hostile profiles are refused
// by name; a stripped module's functions are named by their code offset.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { addJsProfile, JS_THREAD_NAME, readJsProfile, wasmFunctionLocator } from '../../lib/jsprofile.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { nameSection } from '../fuzz/reader-fuzzers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const golden = (f) => readFileSync(join(root, 'tests/golden', f));

// The golden traces' session: 5,000,000 us to 5,004,500 us, 1 ms interval.
const PROFILE = {
  reason: '',
  intervalMs: 10,
  startMs: 4990,
  stopMs: 5020,
  full: false,
  resources: ['http://127.0.0.1:1/app.js', 'http://127.0.0.1:1/app.wasm?v=1'],
  frames: [
    { name: 'callMain', resource: 0, line: 1, column: 100 },
    { name: 'main', resource: 1, line: 1, column: 500 },
    { name: '', resource: 1, line: 1, column: 900 },
    { name: 'fetch', resource: -1, line: -1, column: -1 },
    { name: '', resource: 0, line: 3, column: 7 },
    { name: 'semi;colon', resource: 0, line: 1, column: 5 },
  ],
  stacks: [[0], [1, 0], [2, 1], [3], [4], [5, 4]],
  samples: [[4999, 2], [5000.5, 1], [5001.5], [5003, 2], [5003.5, 3], [5004.25, 5], [5010, 1]],
};
// What a reader must see: the samples in [start, stop], root first.
const EXPECTED = [
  { ts: 5000500, stack: ['callMain', 'main'], weight: 1 },
  { ts: 5001500, stack: [], weight: 1 },
  { ts: 5003000, stack: ['callMain', 'main', '(wasm app.wasm:900)'], weight: 2 },
  { ts: 5003500, stack: ['fetch'], weight: 1 },
  { ts: 5004250, stack: ['(anonymous)', 'semi;colon'], weight: 1 },
];

function jsThread(profile) {
  const t = profile.threads.find((x) => x.name === JS_THREAD_NAME);
  assert.ok(t, `no "${JS_THREAD_NAME}" thread: ${profile.threads.map((x) => x.name).join(', ')}`);
  return t;
}

describe('addJsProfile', () => {
  for (const [format, file] of [['chrome', 'chrome.json'], ['firefox', 'firefox.json']]) {
    test(`${format}: the samples in the session's window, with their stacks, times and weights`, () => {
      const before = readProfile(golden(file));
      const r = addJsProfile(golden(file), PROFILE);
      assert.equal(r.reason, '');
      assert.equal(r.added, EXPECTED.length);
      const after = readProfile(r.bytes);
      // (the firefox reader's times count from the session's start, for every thread)
      const from = format === 'firefox' ? 5_000_000 : 0;
      assert.deepEqual(jsThread(after).samples.map(({ ts, stack, weight }) => ({ ts: ts + from, stack, weight })), EXPECTED);
      // The other threads are untouched.
      const others = (p) => p.threads.filter((t) => t.name !== JS_THREAD_NAME).map((t) => [t.name, t.samples, t.scopes]);
      assert.deepEqual(others(after), others(before));
      assert.deepEqual(after.stats, before.stats);
    });
  }

  test('chrome: JS frames keep their script, line and column (0-based), wasm frames their module', () => {
    const events = JSON.parse(addJsProfile(golden('chrome.json'), PROFILE).bytes.toString());
    const chunk = events.find((e) => e.name === 'ProfileChunk' && e.tid === 90000);
    const byName = new Map(chunk.args.data.cpuProfile.nodes.map((n) => [n.callFrame.functionName, n.callFrame]));
    assert.deepEqual(byName.get('callMain'), { functionName: 'callMain', scriptId: 0, url: 'http://127.0.0.1:1/app.js', lineNumber: 0, columnNumber: 99 });
    assert.equal(byName.get('main').url, 'http://127.0.0.1:1/app.wasm?v=1');
    assert.equal(byName.get('fetch').url, '');
    const name = events.find((e) => e.name === 'thread_name' && e.tid === 90000);
    assert.equal(name.args.name, JS_THREAD_NAME);
  });

  test('firefox: the frames carry the JavaScript and WebAssembly categories', () => {
    const p = JSON.parse(addJsProfile(golden('firefox.json'), PROFILE).bytes.toString());
    const t = p.threads.find((x) => x.name === JS_THREAD_NAME);
    const str = p.shared.stringArray;
    const cat = (name) => p.meta.categories[t.frameTable.category[t.funcTable.name.findIndex((s) => str[s] === name)]].name;
    assert.equal(cat('callMain'), 'JavaScript');
    assert.equal(cat('main'), 'WebAssembly');
    assert.equal(cat('(idle)'), 'Idle');
    assert.equal(t.funcTable.isJS[t.funcTable.name.findIndex((s) => str[s] === 'callMain')], true);
  });

  test('folded: lines of the thread, counts its weights, names as the encoder writes them', () => {
    const r = addJsProfile(golden('folded.txt'), PROFILE);
    const text = r.bytes.toString();
    assert.match(text, /^main \(JS\);\(anonymous\);semi:colon 1$/m);
    assert.match(text, /\n# wasmtrace \{[^\n]*\n?$/, 'the stats record stays the last line');
    const t = jsThread(readProfile(r.bytes));
    const total = (xs) => xs.reduce((n, x) => n + x.weight, 0);
    assert.equal(total(t.samples), total(EXPECTED));
  });

  test('gzip in, gzip out; a second add leaves the trace as it is', () => {
    const gz = gzipSync(golden('chrome.json'));
    const r = addJsProfile(gz, PROFILE);
    assert.equal(r.bytes[0], 0x1f);
    assert.equal(jsThread(readProfile(r.bytes)).samples.length, EXPECTED.length);
    const again = addJsProfile(r.bytes, PROFILE);
    assert.equal(again.added, 0);
    assert.match(again.reason, /already has the JS profile's threads/);
    // A trace that got only a worker's thread is not given it twice either.
    const workerOnly = addJsProfile(golden('folded.txt'), { ...PROFILE, samples: [], workers: [{ ...PROFILE, name: 'worker 1 (JS)', offsetMs: 0 }] });
    assert.deepEqual(workerOnly.workers, [{ name: 'worker 1 (JS)', samples: 5 }]);
    assert.equal(addJsProfile(workerOnly.bytes, PROFILE).added, 0);
    assert.equal(again.bytes, r.bytes);
  });

  // Issue 41: the JS profile's wasm frames carried the clone suffixes
  // (ZSTD_count.5) that wasmtrace's own frames merge away; JS frames keep
  // their names as they are.
  test('wasm frames get the canonical names of wasmtrace\'s own frames; JS frames keep theirs', () => {
    const clones = {
      ...PROFILE,
      frames: [
        { name: 'callMain', resource: 0, line: 1, column: 100 },
        { name: 'ZSTD_count.5', resource: 1, line: 1, column: 500 },
        { name: 'ZSTD_count', resource: 1, line: 1, column: 600 },
        { name: 'f(int) (.llvm.12)', resource: 1, line: 1, column: 700 },
        { name: 'phase.2', resource: 0, line: 1, column: 5 },
      ],
      stacks: [[0], [1, 0], [2, 0], [3, 0], [4]],
      samples: [[5000.5, 1], [5001.5, 2], [5002.5, 3], [5003.5, 4]],
    };
    for (const file of ['chrome.json', 'firefox.json', 'folded.txt']) {
      const t = jsThread(readProfile(addJsProfile(golden(file), clones).bytes));
      // By leaf, weighed (folded output merges equal stacks into one line).
      const byLeaf = {};
      for (const s of t.samples) byLeaf[s.stack.at(-1)] = (byLeaf[s.stack.at(-1)] ?? 0) + s.weight;
      assert.deepEqual(byLeaf, { ZSTD_count: 2, 'f(int)': 1, 'phase.2': 1 }, file);
    }
  });

  // wasm-ld 19 and 21 name a second same-named local "helper_<index>": the
  // recorder merges it by the function's index (its own parser), and so
  // does the import, given the module's bytes (the frame's column is the
  // function's code offset).
  test('given the module, a wasm frame is named by its function index as the recorder names it', () => {
    // Four function bodies (no imports), then the name section.
    const body = [2, 0x00, 0x0b];
    const code = [4, ...body, ...body, ...body, ...body];
    const names = nameSection([[0, 'main'], [1, 'helper'], [2, 'other_2'], [3, 'helper_5']]);
    const custom = [4, 0x6e, 0x61, 0x6d, 0x65, ...names];
    const wasm = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 10, code.length, ...code, 0, custom.length, ...custom]);
    const start = (i) => 8 + 2 + 1 + i * 3 + 1; // section id + size, count, then each body's size byte
    const url = 'http://127.0.0.1:1/app.wasm?v=1';
    const profile = {
      ...PROFILE,
      frames: [
        { name: 'callMain', resource: 0, line: 1, column: 100 },
        { name: 'helper_5', resource: 1, line: 1, column: start(3) },
        { name: 'other_2', resource: 1, line: 1, column: start(2) },
        // An offset that points at another function names nothing: the name stays.
        { name: 'unrelated_3', resource: 1, line: 1, column: start(1) },
      ],
      stacks: [[0], [1, 0], [2, 0], [3, 0]],
      samples: [[5000.5, 1], [5001.5, 2], [5002.5, 3]],
    };
    const t = jsThread(readProfile(addJsProfile(golden('chrome.json'), profile, { wasmModules: new Map([[url, wasm]]) }).bytes));
    assert.deepEqual(t.samples.map((x) => x.stack.at(-1)), ['helper', 'other_2', 'unrelated_3']);
    // Without the module, only the clone rule: "helper_5" stays.
    const bare = jsThread(readProfile(addJsProfile(golden('chrome.json'), profile).bytes));
    assert.equal(bare.samples[0].stack.at(-1), 'helper_5');
  });

  test('a profile with a reason, or none in the window, adds nothing and says why', () => {
    const none = addJsProfile(golden('chrome.json'), { reason: 'the document was not served with the header "Document-Policy: js-profiling"' });
    assert.equal(none.added, 0);
    assert.match(none.reason, /Document-Policy/);
    const late = addJsProfile(golden('firefox.json'), { ...PROFILE, samples: [[6000, 1]] });
    assert.equal(late.added, 0);
    assert.match(late.reason, /window/);
    assert.equal(readProfile(late.bytes).threads.some((t) => t.name === JS_THREAD_NAME), false);
  });

  test('a hostile profile is refused with its fault named, never a crash', () => {
    const bad = [
      [null, /not an object/],
      [{ ...PROFILE, samples: 'x' }, /samples is not an array/],
      [{ ...PROFILE, samples: [[5001, 99]] }, /unknown stack 99/],
      [{ ...PROFILE, stacks: [[0, 1], [1, 0]], samples: [[5001, 0]] }, /deeper than|cycle/],
      [{ ...PROFILE, stacks: [[42]], samples: [[5001, 0]] }, /known frame/],
      [{ ...PROFILE, samples: [[5002], [5001]] }, /time order/],
      [{ ...PROFILE, frames: [7] }, /frame 0 is not an object/],
      [{ ...PROFILE, samples: [['x']] }, /sample 0/],
      // A chain 4,000 deep, then 4,000 stacks below its end: 24 M frames resolved, past the cap.
      [{ ...PROFILE, frames: [{ name: 'f', resource: 0, line: 1, column: 1 }],
        stacks: Array.from({ length: 8000 }, (_, i) => (i ? [0, i < 4000 ? i - 1 : 3999] : [0])),
        samples: Array.from({ length: 8000 }, (_, i) => [5001, i]) }, /frames in all/],
      [{ ...PROFILE, stacks: { length: 300000 } }, /stacks is not an array/],
    ];
    for (const [p, re] of bad) assert.throws(() => addJsProfile(golden('chrome.json'), p), re);
  });
});

// A module by hand: one imported function, then two bodies.
function tinyModule() {
  const bytes = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
  const section = (id, payload) => bytes.push(id, payload.length, ...payload);
  section(1, [1, 0x60, 0, 0]); // one type: () -> ()
  section(2, [1, 3, 0x65, 0x6e, 0x76, 1, 0x66, 0, 0]); // import env.f, a function
  section(3, [2, 0, 0]); // two functions of type 0
  const code = [2, 4, 0, 1, 1, 0x0b, 3, 0, 0x01, 0x0b]; // bodies: nop nop end; nop end
  bytes.push(10, code.length);
  const codeAt = bytes.length;
  bytes.push(...code);
  return { bytes: new Uint8Array(bytes), first: codeAt + 2, second: codeAt + 7 };
}

describe('a stripped module: wasm functions by code offset', () => {
  test('the locator finds the function whose body holds the offset', () => {
    const m = tinyModule();
    assert.equal(new WebAssembly.Module(m.bytes) instanceof WebAssembly.Module, true, 'a valid module');
    const at = wasmFunctionLocator(m.bytes);
    // Chromium's column: the body's start + 2 (1-based, past the size).
    assert.equal(at(m.first + 2), 1);
    assert.equal(at(m.second + 2), 2);
    assert.equal(at(m.second + 1), 2);
    assert.equal(at(3), null);
    assert.equal(wasmFunctionLocator(new Uint8Array([1, 2, 3])), null);
    assert.equal(wasmFunctionLocator(m.bytes.slice(0, m.bytes.length - 3)), null, 'a truncated module');
  });

  test('each module names its own frames (wasmModules, by URL); a module not given leaves the offset', () => {
    const m = tinyModule();
    const r = addJsProfile(golden('chrome.json'), {
      ...PROFILE,
      resources: ['http://h/a.wasm', 'http://h/b.wasm'],
      frames: [{ name: '', resource: 0, line: 1, column: m.second + 2 }, { name: '', resource: 1, line: 1, column: m.first + 2 }],
      stacks: [[0], [1, 0]],
      samples: [[5001, 1]],
    }, { wasmModules: new Map([['http://h/a.wasm', m.bytes]]) });
    const t = readProfile(r.bytes).threads.find((x) => x.name === JS_THREAD_NAME);
    assert.deepEqual(t.samples[0].stack, ['wasm-function[2]', `(wasm b.wasm:${m.first + 2})`]);
  });

  test('unnamed wasm frames get wasm-function[N]; $funcN too', () => {
    const m = tinyModule();
    const js = readJsProfile({
      ...PROFILE,
      frames: [{ name: '', resource: 1, line: 1, column: m.second + 2 }, { name: '$func7', resource: 1, line: 1, column: 1 }],
      stacks: [[0], [1, 0]],
      samples: [[5001, 1]],
    }, { wasmFunctionAt: wasmFunctionLocator(m.bytes) });
    assert.deepEqual(js.samples[0].stack.map((f) => js.frames[f].name), ['wasm-function[2]', 'wasm-function[7]']);
  });
});

describe('the workers\' profiles', () => {
  const worker = (extra) => ({ ...PROFILE, samples: [[4999.5, 1], [5003, 3]], name: 'worker 2 (JS)', offsetMs: 1, ...extra });

  for (const [format, file] of [['chrome', 'chrome.json'], ['firefox', 'firefox.json'], ['folded', 'folded.txt']]) {
    test(`${format}: each is a thread of its own, its clock moved onto the page's`, () => {
      const r = addJsProfile(golden(file), { ...PROFILE, workers: [worker()] });
      assert.deepEqual(r.workers, [{ name: 'worker 2 (JS)', samples: 2 }]);
      assert.equal(r.workersReason, '');
      const t = readProfile(r.bytes).threads.find((x) => x.name === 'worker 2 (JS)');
      assert.ok(t, 'no worker thread');
      assert.deepEqual(t.samples.map((x) => x.stack), [['callMain', 'main'], ['fetch']]);
      if (format !== 'folded') {
        const from = format === 'firefox' ? 5_000_000 : 0;
        assert.deepEqual(t.samples.map((x) => x.ts + from), [5000500, 5004000]);
      }
    });
  }

  test('a worker it cannot read, or one that did not answer, is named; the rest are added', () => {
    const r = addJsProfile(golden('chrome.json'), {
      ...PROFILE,
      workers: [worker({ samples: [[5001, 77]] }), worker({ name: 'worker 3 (JS)', offsetMs: 'x' }), worker({ name: 'worker 4 (JS)' }), 'junk'],
      workersMissing: 2,
    });
    assert.equal(r.added, EXPECTED.length);
    assert.deepEqual(r.workers.map((w) => w.name), ['worker 4 (JS)']);
    assert.match(r.workersReason, /worker 2 \(JS\): the JS profile refers to unknown stack 77/);
    assert.match(r.workersReason, /worker 3 \(JS\): no clock offset/);
    assert.match(r.workersReason, /worker 4 \(JS\): no clock offset/, 'the junk entry, by its place');
    assert.match(r.workersReason, /2 worker\(s\) did not answer/);
    // A hostile name is not taken as it is.
    const named = addJsProfile(golden('chrome.json'), { ...PROFILE, workers: [worker({ name: 'main (JS)' }), worker({ name: 'a;b\nc' })] });
    assert.deepEqual(named.workers.map((w) => w.name), ['worker 1 (JS)', 'worker 2 (JS)']);
  });

  test('a worker cannot pass for an app thread or for another worker (issue 38 class 8)', () => {
    // A name without " (JS)" would be the app's 'main' thread a second time.
    const r = addJsProfile(golden('chrome.json'), { ...PROFILE, workers: [worker({ name: 'main' }), worker({ name: 'decoder' })] });
    assert.deepEqual(r.workers.map((w) => w.name), ['worker 1 (JS)', 'worker 2 (JS)']);
    // Two workers of one name are two threads of two names.
    for (const file of ['chrome.json', 'firefox.json', 'folded.txt']) {
      const two = addJsProfile(golden(file), { ...PROFILE, workers: [worker(), worker()] });
      assert.deepEqual(two.workers.map((w) => w.name), ['worker 2 (JS)', 'worker 2 #2 (JS)'], file);
      const names = readProfile(two.bytes).threads.map((t) => t.name);
      assert.equal(new Set(names).size, names.length, `${file}: ${names}`);
    }
  });

  test('an app thread whose name ends in " (JS)" does not stop the import, nor is taken for it (class 8)', () => {
    // The golden traces' thread 'main' renamed 'render (JS)' (the app named it so).
    const renamed = {
      'chrome.json': (t) => t.replace('"name":"main"', '"name":"render (JS)"'),
      'firefox.json': (t) => t.replace('"name":"main"', '"name":"render (JS)"'),
      'folded.txt': (t) => t.replace(/^main;/gm, 'render (JS);'),
    };
    for (const [file, rename] of Object.entries(renamed)) {
      const text = rename(golden(file).toString('utf8'));
      assert.ok(readProfile(Buffer.from(text)).threads.some((t) => t.name === 'render (JS)'), `${file}: the rename took`);
      const r = addJsProfile(Buffer.from(text), { ...PROFILE, workers: [worker({ name: 'render (JS)' })] });
      assert.equal(r.added, EXPECTED.length, `${file}: ${r.reason}`);
      assert.deepEqual(r.workers.map((w) => w.name), ['render #2 (JS)'], file);
      // Added once: the second time, the trace already has them.
      assert.equal(addJsProfile(r.bytes, PROFILE).added, 0, file);
    }
  });
});

describe('any value as a profile', () => {
  test('adds, or refuses with a TraceError; never another error, never a changed trace on refusal', async () => {
    const { default: fc } = await import('fast-check');
    const trace = golden('chrome.json');
    const frame = fc.record({ name: fc.string(), resource: fc.integer({ min: -2, max: 3 }), line: fc.integer(), column: fc.integer() }, { requiredKeys: [] });
    const profile = fc.record({
      reason: fc.oneof(fc.constant(''), fc.string()),
      intervalMs: fc.oneof(fc.double(), fc.constant(10)),
      resources: fc.array(fc.oneof(fc.string(), fc.constant('http://h/a.wasm'), fc.anything()), { maxLength: 4 }),
      frames: fc.oneof({ weight: 4, arbitrary: fc.array(frame, { minLength: 6, maxLength: 6 }) }, fc.array(fc.oneof(frame, fc.anything()), { maxLength: 6 })),
      stacks: fc.oneof(
        // Well formed: each stack's parent an earlier one (or none).
        { weight: 4, arbitrary: fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.nat()), { minLength: 1, maxLength: 8 })
          .map((a) => a.map(([f, p], i) => (i && p % 3 ? [f, p % i] : [f]))) },
        fc.array(fc.oneof(fc.tuple(fc.integer({ min: -1, max: 6 })), fc.tuple(fc.integer({ min: -1, max: 6 }), fc.integer({ min: -1, max: 8 })), fc.anything()), { maxLength: 8 })),
      samples: fc.oneof(
        { weight: 4, arbitrary: fc.array(fc.tuple(fc.double({ min: 4990, max: 5010, noNaN: true }), fc.integer({ min: 0, max: 0 })), { maxLength: 8 })
          .map((a) => a.sort((x, y) => x[0] - y[0])) },
        fc.array(fc.oneof(fc.tuple(fc.double({ min: 4990, max: 5010, noNaN: true })), fc.tuple(fc.double({ min: 4990, max: 5010 }), fc.integer({ min: -1, max: 8 })), fc.anything()), { maxLength: 8 })),
      workers: fc.oneof(fc.constant(undefined), fc.array(fc.anything(), { maxLength: 3 })),
    }, { requiredKeys: [] });
    const seen = { refused: 0, added: 0 };
    fc.assert(fc.property(fc.oneof({ weight: 4, arbitrary: profile }, fc.anything()), (p) => {
      let r;
      try {
        r = addJsProfile(trace, p);
      } catch (e) {
        assert.equal(e.name, 'TraceError', `${e.name}: ${e.message}`);
        seen.refused++;
        return;
      }
      // What it returns reads back.
      readProfile(r.bytes);
      if (r.added) seen.added++;
    }), { numRuns: 400, seed: 24 });
    // Both ways were taken (the property is not vacuous).
    assert.ok(seen.refused > 20 && seen.added > 5, JSON.stringify(seen));
  });
});

describe('malformed profiles the order of samples used to decide (issue 38, class 12)', () => {
  const reads = (p) => () => readJsProfile(p);
  test('a sparse samples or frames array is refused at its hole, not skipped', () => {
    const samples = [...PROFILE.samples];
    delete samples[2];
    assert.throws(reads({ ...PROFILE, samples }), /sample 2 is not \[time, stack\?\]/);
    const frames = [...PROFILE.frames];
    delete frames[3];
    assert.throws(reads({ ...PROFILE, frames }), /frame 3 is not an object/);
  });

  test('a parent given as a string is refused whichever sample comes first', () => {
    const stacks = PROFILE.stacks.map((s) => [...s]);
    stacks[1] = [1, '0'];
    // Stack 0 resolved first (a sample on it), or not: the same answer.
    for (const samples of [[[5000, 0], [5001, 1]], [[5001, 1], [5002, 0]]]) {
      assert.throws(reads({ ...PROFILE, stacks, samples }), /stack 1 has a parent that is not a stack index: "0"/);
    }
  });
});
