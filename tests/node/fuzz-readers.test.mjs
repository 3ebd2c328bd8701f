// The reader fuzzers of tests/fuzz/reader-fuzzers.mjs, briefly: each with a
// fixed seed (the same inputs every run), then for about two seconds with
// a random seed that a failure prints (re-run it with
// `node tests/fuzz/run-readers.mjs --seed <seed> --only <fuzzer>`).
// `npm run fuzz` (scripts/fuzz.sh) runs them for millions of executions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fuzzers, runFuzzer } from '../fuzz/reader-fuzzers.mjs';

const FIXED_SEED = 12;
const FIXED_RUNS = 500;

describe('reader fuzzers: a valid profile or one TraceError line, whatever the input', () => {
  for (const f of fuzzers()) {
    test(`${f.name}: ${FIXED_RUNS} inputs of seed ${FIXED_SEED}, then ~2 s of a random seed`, { timeout: 120000 }, () => {
      runFuzzer(f, { numRuns: FIXED_RUNS, seed: FIXED_SEED });
      const seed = Math.floor(Math.random() * 2 ** 31);
      try {
        runFuzzer(f, { numRuns: 1e9, seed, timeLimitMs: 2000 });
      } catch (e) {
        e.message = `fuzzer ${f.name}, random seed ${seed}: ${e.message}`;
        throw e;
      }
    });
  }
});

describe('the wasm name-section parser of js/wasmtrace_pre.js', () => {
  test('reads a well-formed section, and stops at once on lengths past the end or LEB128s too long', async () => {
    const { loadNameParser, nameSection } = await import('../fuzz/reader-fuzzers.mjs');
    const parse = loadNameParser();
    assert.deepEqual({ ...parse(nameSection([[0, 'main'], [7, 'ns::f(int)'], [4294967295, 'é\u2028']])) },
      { 0: 'main', 7: 'ns::f(int)', 4294967295: 'é\u2028' });
    // Sizes claiming 2^49 bytes (the old parser walked up to them), a LEB
    // that never ends, a name longer than its section: all end at once.
    for (const bytes of [[1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], [1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80],
      [1, 5, 1, 0, 0x7f, 0x61, 0x62], [1, 3, 0xff, 0xff, 0xff]]) {
      assert.deepEqual({ ...parse(Uint8Array.from(bytes)) }, {});
    }
  });
});
