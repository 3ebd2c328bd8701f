// Property-based fuzzers (fast-check) for every reader of the package and
// the wasm name-section parser of js/wasmtrace_pre.js. Each fuzzer is
// { name, arbitrary, check(input) }: check throws (an assertion) when the
// reader broke its contract:
//   readProfile returns a valid Profile (and the report views run on it)
//   or throws a TraceError with a one-line message, nothing else.
//   wasmtraceParseNames (js/wasmtrace_pre.js) returns { index: string } for any bytes, never
//   throws, and reads back every name of a well-formed section.
// Run briefly by tests/node/fuzz-readers.test.mjs (npm test), for millions
// of executions by scripts/fuzz.sh (npm run fuzz).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { loadNameParser } from '../../lib/names.mjs';
import { readProfile, TraceError } from '../../lib/profile.mjs';
import { reportData, textReport } from '../../lib/report.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const golden = (name) => readFileSync(join(root, 'tests/golden', name), 'utf8');
const SEEDS = { chrome: golden('chrome.json'), firefox: golden('firefox.json'), folded: golden('folded.txt') };

// ---- the contract ----------------------------------------------------------------

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/** Throws unless p is a Profile as lib/index.d.ts describes it. */
export function assertProfile(p) {
  assert.ok(['chrome', 'firefox', 'folded'].includes(p.format), `format ${p.format}`);
  assert.ok(p.session === null || isObj(p.session), 'session');
  assert.ok(p.intervalUs === null || finite(p.intervalUs), `intervalUs ${p.intervalUs}`);
  assert.ok(p.stats === null || isObj(p.stats), 'stats');
  assert.ok(Array.isArray(p.threads), 'threads');
  for (const t of p.threads) {
    assert.ok(typeof t.tid === 'number' || typeof t.tid === 'string', `tid ${t.tid}`);
    assert.equal(typeof t.name, 'string');
    for (const s of t.samples) {
      assert.ok(s.ts === null || finite(s.ts), `ts ${s.ts}`);
      assert.ok(finite(s.weight), `weight ${s.weight}`);
      assert.ok(Array.isArray(s.stack));
      for (const f of s.stack) assert.equal(typeof f, 'string');
    }
    for (const s of t.scopes) {
      assert.equal(typeof s.name, 'string');
      assert.equal(typeof s.cat, 'string');
      assert.ok(finite(s.ts) && finite(s.dur), `scope times ${s.ts} ${s.dur}`);
    }
  }
}

/** The reader contract on one input (bytes or text). */
export function checkReader(input, options) {
  let p;
  try {
    p = readProfile(input, options);
  } catch (e) {
    if (!(e instanceof TraceError)) throw new Error(`not a TraceError: ${e?.stack ?? e}`);
    assert.ok(e.message && !e.message.includes('\n'), `a TraceError of more than one line: ${e.message}`);
    return;
  }
  assertProfile(p);
  // What `wasmtrace report` does with it must not throw either.
  textReport(p);
  JSON.stringify(reportData(p));
}

// ---- mutations -------------------------------------------------------------------

const special = fc.constantFrom(-1, 0, 1, 2, 3, 7, 1e9, 2 ** 31, 2 ** 53, -0.5, 1.5, 1e308, -1e308, '', '0', 'x', null, true, [], {},
  [null], [0], [-1], [1e9], '(root)', '(idle)', 'a;b', 'a\u2028b', '\ud800')
  .map((v) => structuredClone(v)); // never share one [] between inputs
const leaf = fc.oneof({ weight: 3, arbitrary: special }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
// A mutation: a walk into the JSON (child number at each level, modulo
// its size), then what to do there.
const mutation = fc.record({
  walk: fc.array(fc.nat(1000), { minLength: 1, maxLength: 8 }),
  op: fc.constantFrom('replace', 'replace', 'delete', 'duplicate', 'truncate'),
  value: leaf,
});

function applyMutation(rootValue, { walk, op, value }) {
  let parent = null;
  let key = null;
  let cur = rootValue;
  for (const step of walk) {
    if (cur === null || typeof cur !== 'object') break;
    const keys = Object.keys(cur);
    if (!keys.length) break;
    parent = cur;
    key = Array.isArray(cur) ? step % cur.length : keys[step % keys.length];
    cur = cur[key];
  }
  if (!parent) return value;
  if (op === 'replace') parent[key] = value;
  else if (op === 'delete') {
    if (Array.isArray(parent)) parent.splice(key, 1);
    else delete parent[key];
  } else if (op === 'duplicate') {
    if (Array.isArray(parent)) parent.splice(key, 0, structuredClone(cur));
    else if (Array.isArray(cur)) parent[key] = cur.concat(cur);
  } else if (op === 'truncate' && Array.isArray(cur)) cur.length = walk.length % (cur.length + 1);
  return rootValue;
}

const byteEdit = fc.record({ pos: fc.nat(), op: fc.constantFrom('flip', 'set', 'insert', 'delete'), byte: fc.integer({ min: 0, max: 255 }) });

function applyBytes(buf, edits) {
  let b = Buffer.from(buf);
  for (const { pos, op, byte } of edits) {
    if (!b.length) break;
    const i = pos % b.length;
    if (op === 'flip') b[i] ^= 1 << (byte & 7);
    else if (op === 'set') b[i] = byte;
    else if (op === 'insert') b = Buffer.concat([b.subarray(0, i), Buffer.from([byte]), b.subarray(i)]);
    else b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
  }
  return b;
}

const jsonMutated = (seed) => fc.array(mutation, { minLength: 1, maxLength: 6 })
  .map((ms) => JSON.stringify(ms.reduce(applyMutation, JSON.parse(seed))));

// ---- crafted structures ------------------------------------------------------------

const idx = (n) => fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: Math.max(0, n - 1) }) },
  { weight: 1, arbitrary: fc.constantFrom(null, -1, n, n + 1, 1.5, '0', 1e9) });

const firefoxCrafted = fc.integer({ min: 0, max: 12 }).chain((n) => fc.record({
  prefix: fc.array(fc.oneof(fc.constant(null), idx(n)), { minLength: n, maxLength: n }),
  frame: fc.array(idx(4), { minLength: n, maxLength: n }),
  func: fc.array(idx(3), { minLength: 4, maxLength: 4 }),
  name: fc.array(idx(3), { minLength: 3, maxLength: 3 }),
  strings: fc.array(fc.oneof(fc.string(), special), { minLength: 3, maxLength: 3 }),
  stack: fc.array(fc.oneof(fc.constant(null), idx(n)), { maxLength: 10 }),
  length: fc.oneof(fc.constant(undefined), fc.integer({ min: -1, max: 12 }), fc.constant(1e9)),
  time: fc.oneof(fc.constant(undefined), fc.array(fc.oneof(fc.double(), special), { maxLength: 12 })),
  weight: fc.oneof(fc.constant(null), fc.array(fc.oneof(fc.integer(), special), { maxLength: 12 })),
})).map((c) => JSON.stringify({
  meta: { interval: 1 },
  threads: [{
    name: 't', tid: 1, stringArray: c.strings,
    funcTable: { name: c.name }, frameTable: { func: c.func },
    stackTable: { frame: c.frame, prefix: c.prefix },
    samples: { length: c.length, stack: c.stack, time: c.time ?? c.stack.map((_, i) => i), weight: c.weight },
  }],
}));

const chromeCrafted = fc.array(fc.record({
  id: fc.oneof(fc.integer({ min: 0, max: 10 }), special),
  parent: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 10 }), special),
  name: fc.oneof(fc.string(), special),
}), { maxLength: 12 }).chain((nodes) => fc.record({
  samples: fc.array(fc.oneof(fc.integer({ min: 0, max: 11 }), special), { maxLength: 10 }),
  deltas: fc.array(fc.oneof(fc.double(), special), { maxLength: 10 }),
  nodes: fc.constant(nodes),
})).map(({ nodes, samples, deltas }) => JSON.stringify({ traceEvents: [
  { ph: 'M', name: 'thread_name', tid: 1, args: { name: 'main' } },
  { ph: 'P', name: 'ProfileChunk', tid: 1, args: { data: {
    cpuProfile: { nodes: nodes.map((n) => ({ id: n.id, parent: n.parent, callFrame: { functionName: n.name } })), samples },
    timeDeltas: deltas,
  } } },
] }));

const foldedChar = fc.constantFrom(';', ' ', '\t', '\r', '\n', '\u2028', '\u2029', '#', '0', '1', '9', '.', 'a', 'é', '{', '}', '"');
const foldedCrafted = fc.array(fc.oneof(
  fc.string({ unit: foldedChar, maxLength: 30 }),
  fc.tuple(fc.array(fc.string({ unit: foldedChar, maxLength: 6 }), { minLength: 1, maxLength: 5 }), fc.oneof(fc.nat(), special))
    .map(([frames, n]) => `${frames.join(';')} ${n}`),
  fc.jsonValue({ maxDepth: 2 }).map((v) => `# wasmtrace ${JSON.stringify(v)}`),
), { maxLength: 8 }).map((lines) => lines.join('\n'));

// ---- the name-section parser ----------------------------------------------------------

// wasmtraceParseNames from js/wasmtrace_pre.js, evaluated in Node
// (lib/names.mjs; `raw: true` leaves the names as the linker wrote them).
export { loadNameParser };

function leb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** A name section: module name (subsection 0), function names (1), locals (2). */
export function nameSection(entries) {
  const enc = new TextEncoder();
  const funcs = [...leb(entries.length)];
  for (const [index, name] of entries) {
    const b = enc.encode(name);
    funcs.push(...leb(index), ...leb(b.length), ...b);
  }
  const mod = [...leb(3), 0x61, 0x70, 0x70];
  const locals = [...leb(0)];
  return Uint8Array.from([0, ...leb(mod.length), ...mod, 1, ...leb(funcs.length), ...funcs, 2, ...leb(locals.length), ...locals]);
}

// Names: any graphemes, or C/C++-like names with clone suffixes.
const cloneName = fc.tuple(fc.constantFrom('f', 'ns::g(int)', 'h<int>', 'a.b', '', 'x)'),
  fc.array(fc.constantFrom('.1', '.42', '.llvm.7', '.cold', ' (.3)', ' (.llvm.123)', '.', ' (', ')', '.x', '_1', '_0', '_7'), { maxLength: 4 }))
  .map(([base, tail]) => base + tail.join(''));
const nameEntries = fc.uniqueArray(fc.tuple(fc.oneof(fc.nat(2 ** 32 - 1), fc.nat(8)), fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), cloneName)),
  { selector: ([i]) => i, maxLength: 8 });

// ---- the fuzzers -------------------------------------------------------------------

export function fuzzers() {
  const parseNames = loadNameParser();
  const checkNames = (bytes) => {
    const names = parseNames(bytes);
    assert.ok(names && typeof names === 'object');
    for (const [k, v] of Object.entries(names)) {
      assert.ok(/^\d+$/.test(k) && Number(k) <= 0xffffffff, `index ${k}`);
      assert.equal(typeof v, 'string');
    }
    return names;
  };
  return [
    { name: 'chrome-json', arbitrary: jsonMutated(SEEDS.chrome), check: (t) => checkReader(t) },
    { name: 'firefox-json', arbitrary: jsonMutated(SEEDS.firefox), check: (t) => checkReader(t) },
    { name: 'chrome-crafted', arbitrary: chromeCrafted, check: (t) => checkReader(t) },
    { name: 'firefox-crafted', arbitrary: firefoxCrafted, check: (t) => checkReader(t) },
    { name: 'folded-crafted', arbitrary: foldedCrafted, check: (t) => checkReader(t) },
    {
      name: 'bytes',
      // Byte edits of every golden file, plain and gzip, read as bytes.
      arbitrary: fc.tuple(fc.constantFrom('chrome', 'firefox', 'folded'), fc.boolean(), fc.array(byteEdit, { minLength: 1, maxLength: 8 }))
        .map(([seed, gz, edits]) => applyBytes(gz ? gzipSync(SEEDS[seed]) : Buffer.from(SEEDS[seed]), edits)),
      check: (b) => checkReader(b, { maxBytes: 1 << 20 }),
    },
    {
      name: 'wasm-names',
      arbitrary: fc.oneof(
        fc.uint8Array({ maxLength: 64 }),
        fc.tuple(nameEntries, fc.array(byteEdit, { maxLength: 4 })).map(([e, edits]) => ({ entries: e, edits })),
      ),
      check: (input) => {
        if (input instanceof Uint8Array) return void checkNames(input);
        const bytes = nameSection(input.entries);
        if (!input.edits.length) {
          // A well-formed section reads back exactly.
          // A well-formed section reads back exactly, each name without
          // its clone suffixes; cutting them is idempotent and cuts only a
          // tail that starts with '.' or ' (.'.
          const canonical = parseNames.canonicalName;
          const expected = Object.fromEntries(input.entries.map(([i, n]) => [String(i), canonical(n)]));
          // wasm-ld's "<name>_<N>" beside a "<name>", N within 16 of the
          // entry's index (19: the index; 21 then wasm-opt: a few off): one name.
          const present = new Set(Object.values(expected));
          for (const [i, n] of Object.entries(expected)) {
            const m = /^(.+)_([0-9]{1,10})$/s.exec(n);
            if (m && Math.abs(Number(m[2]) - Number(i)) <= 16 && present.has(m[1])) expected[i] = m[1];
          }
          assert.deepEqual({ ...checkNames(bytes) }, expected);
          for (const [, n] of input.entries) {
            const c = canonical(n);
            assert.equal(canonical(c), c);
            assert.ok(n.startsWith(c) && (c === n || /^(\.| \(\.)/.test(n.slice(c.length))), `${JSON.stringify(n)} -> ${JSON.stringify(c)}`);
          }
        } else {
          checkNames(new Uint8Array(applyBytes(bytes, input.edits)));
        }
      },
    },
  ];
}

// A single input that takes longer than this is a finding (a hang, or
// work far from linear in the input): the inputs are a few KB at most.
const HANG_GUARD_MS = 10000;

/**
 * Runs one fuzzer for `numRuns` inputs (or until `timeLimitMs`); throws
 * (with fast-check's seed and counterexample) on a finding. Returns the
 * number of inputs run.
 */
export function runFuzzer(f, { numRuns, seed, timeLimitMs }) {
  let runs = 0;
  const params = { numRuns, seed, endOnFailure: true };
  if (timeLimitMs) Object.assign(params, { interruptAfterTimeLimit: timeLimitMs, markInterruptAsFailure: false });
  fc.assert(fc.property(f.arbitrary, (input) => {
    runs++;
    const start = performance.now();
    f.check(input);
    const ms = performance.now() - start;
    if (ms > HANG_GUARD_MS) throw new Error(`one input took ${Math.round(ms)} ms (hang guard ${HANG_GUARD_MS} ms)`);
  }), params);
  return runs;
}
