// One function, one name: the clone suffixes cut by the recorder
// (wasmtraceCanonicalName in js/wasmtrace_pre.js) and by the readers
// of traces (lib/names.mjs), and what neither may cut.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalFunctionName } from '../../lib/names.mjs';
import { loadNameParser } from '../fuzz/reader-fuzzers.mjs';

const recorder = loadNameParser().canonicalName;

// [as the linker or compiler wrote it, one name]: forms seen in wasm name
// sections from emcc 3.1.6 (clang 14) and 3.1.69 (clang 19), and the
// suffixes LLVM and GCC passes add.
const CLONES = [
  ['helper.1', 'helper'],
  ['helper.12', 'helper'],
  ['shelper(int).1', 'shelper(int)'],
  ['shelper(int) (.2)', 'shelper(int)'],
  ['(anonymous namespace)::step(unsigned int) (.1)', '(anonymous namespace)::step(unsigned int)'],
  ['foo.llvm.1234567890', 'foo'],
  ['ns::foo(int) (.llvm.42)', 'ns::foo(int)'],
  ['f.cold', 'f'],
  ['f.cold.1', 'f'],
  ['f.constprop.0', 'f'],
  ['f.isra.0', 'f'],
  ['f.part.3', 'f'],
  ['f.constprop.0.isra.1', 'f'],
  ['f.specialized.2', 'f'],
  ['std::vector<int>::push_back(int const&).1', 'std::vector<int>::push_back(int const&)'],
  ['h<int>.1', 'h<int>'],
];
// Names that are whole: nothing may be cut.
const WHOLE = [
  'main', 'helper', 'ns::f(int)', 'operator()(int) const', 'wasm-function[12]', 'wasm-table[3]',
  '.1', '.', 'f.', 'a..1x', 'f (.x y)', 'v1.2beta', 'f<1.5>', '(idle)', '', 'f.x',
  'legalstub$dynCall_jiji', 'é.1é',
];

describe('clone suffixes', () => {
  test('the recorder cuts every clone suffix of a function name', () => {
    for (const [raw, name] of CLONES) assert.equal(recorder(raw), name, raw);
  });

  test('the recorder leaves names that have no clone suffix whole', () => {
    for (const name of WHOLE) assert.equal(recorder(name), name, name);
  });

  test('the readers cut what the recorder cuts when told the names are functions', () => {
    for (const [raw, name] of CLONES) assert.equal(canonicalFunctionName(raw, { all: true }), name, raw);
    for (const name of WHOLE) assert.equal(canonicalFunctionName(name, { all: true }), name, name);
  });

  test('the readers leave a bare ".N" or ".cold" after a plain name alone (it may be a scope name like "phase.2")', () => {
    for (const name of ['phase.2', 'load.1', 'part.2', 'a.b.3']) assert.equal(canonicalFunctionName(name), name, name);
    // Nor a bare compiler word, which a scope name may end with too.
    for (const name of ['cache.cold', 'mesh.clone', 'file.part', 'x.retval']) assert.equal(canonicalFunctionName(name), name, name);
    // ... and still cut the forms no scope name ends with.
    for (const [raw, name] of CLONES.filter(([r]) => !/^[A-Za-z_]+\.(\d+|[a-z]+)$/.test(r))) assert.equal(canonicalFunctionName(raw), name, raw);
  });

  test('the parser merges wasm-ld\'s "<name>_<index>" into "<name>" only when "<name>" is there and the index is near', async () => {
    const { nameSection } = await import('../fuzz/reader-fuzzers.mjs');
    const parse = loadNameParser();
    // 3.1.69 (wasm-ld 19): the entry's own index; 6.0.5 (wasm-ld 21, then
    // wasm-opt): a few indices off (helper_48 at 46).
    assert.deepEqual({ ...parse(nameSection([[40, 'helper'], [42, 'helper_42'], [43, 'x_43'], [44, 'helper_7'],
      [45, 'ns::step(int)'], [46, 'ns::step(int)_48'], [47, 'sha_47'], [48, 'helper_64'], [49, 'helper_66'],
      [50, 'helper_'], [51, '_51']])) },
    { 40: 'helper', 42: 'helper', 43: 'x_43', 44: 'helper_7', 45: 'ns::step(int)', 46: 'ns::step(int)', 47: 'sha_47',
      48: 'helper', 49: 'helper_66', 50: 'helper_', 51: '_51' });
  });

  test('cutting is linear: a long run of ".1" ends quickly', () => {
    const long = 'f' + '.1'.repeat(50000);
    assert.equal(recorder(long), 'f');
    assert.equal(canonicalFunctionName(long, { all: true }), 'f');
    const notCut = 'x'.repeat(100000) + ' (.';
    assert.equal(recorder(notCut), notCut);
  });
});
