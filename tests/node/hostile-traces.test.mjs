// Crafted trace files (issue 12, class 6) against `wasmtrace report` and the
// package's readers: each used to crash node (V8 fatal error, out of
// memory), hang, or die in a stack overflow. Now each is read or refused
// with one line. The report runs in a child process, so a V8 fatal error
// fails a test instead of killing the runner; the deadlines are hang guards
// only (they used to take minutes or all the memory).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as wasmtrace from '../../lib/index.mjs';
import { readProfile, TraceError } from '../../lib/profile.mjs';
import {
  chromeDeepChain, chromeParentCycle, firefoxBillionSamples, firefoxDeepChain, firefoxPrefixCycle, firefoxSelfPrefix, gzipBomb,
} from '../fuzz/hostile-traces.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-hostile-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

// `wasmtrace report <file>` in a child node; `node` options first.
function report(name, content, { nodeArgs = [], args = [] } = {}) {
  const file = join(tmp, name);
  writeFileSync(file, content);
  const r = spawnSync(process.execPath, [...nodeArgs, join(root, 'bin/wasmtrace.mjs'), 'report', file, ...args], {
    encoding: 'utf8', timeout: 60000, maxBuffer: 64 << 20,
  });
  return { file, status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

// Refused: exit status 2 (bad input) and exactly one line on stderr, naming the problem.
function assertRefused(r, pattern) {
  const detail = `status ${r.status}, signal ${r.signal}, stderr:\n${r.stderr.slice(0, 2000)}`;
  assert.equal(r.signal, null, `report was killed (hang or crash): ${detail}`);
  assert.equal(r.status, 2, detail);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line expected: ${detail}`);
  assert.match(lines[0], new RegExp(`^wasmtrace report: cannot read ${r.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  assert.match(lines[0], pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at |FATAL|Maximum call stack/);
}

describe('wasmtrace report on crafted files', () => {
  test('a 2 MB gzip bomb is refused at the inflation limit, not inflated to 2 GB', () => {
    const bomb = gzipBomb(2);
    assert.ok(bomb.length < 3 << 20);
    assertRefused(report('bomb.json.gz', bomb), /trace inflates past 256 MiB .*WASMTRACE_MAX_TRACE_MB/);
  });

  test('the inflation limit is the WASMTRACE_MAX_TRACE_MB environment variable or the maxBytes option', () => {
    const big = gzipSync(Buffer.from(`main;a 1\n`.repeat(300000)));
    assert.throws(() => readProfile(big, { maxBytes: 1 << 20 }), (e) => e instanceof TraceError && /^trace inflates past 1 MiB/.test(e.message));
    assert.throws(() => readProfile(Buffer.alloc(3 << 20, 0x20), { maxBytes: 2 << 20 }), /^TraceError: trace is larger than 2 MiB/);
    assert.equal(readProfile(big, { maxBytes: 4 << 20 }).threads[0].samples.length, 300000);
    const env = process.env.WASMTRACE_MAX_TRACE_MB;
    process.env.WASMTRACE_MAX_TRACE_MB = '1';
    try {
      assert.throws(() => readProfile(big), /inflates past 1 MiB/);
    } finally {
      if (env === undefined) delete process.env.WASMTRACE_MAX_TRACE_MB;
      else process.env.WASMTRACE_MAX_TRACE_MB = env;
    }
  });

  test('a firefox profile whose stack prefixes form a cycle is refused', () => {
    const file = firefoxPrefixCycle();
    assert.ok(file.length < 300);
    assertRefused(report('cycle.json', file), /stackTable: the parent chain of \d+ has a cycle/);
  });

  test('a firefox profile whose stack is its own prefix is refused', () => {
    assertRefused(report('self.json', firefoxSelfPrefix()), /stackTable: the parent chain of 0 has a cycle/);
  });

  test('a firefox profile claiming a billion samples with one present is refused', () => {
    const file = firefoxBillionSamples();
    assert.ok(file.length < 300);
    assertRefused(report('billion.json', file), /samples\.length says 1000000000 but samples\.stack has 1 entries/);
  });

  test('a chrome trace whose profile nodes are each other\'s parents is refused', () => {
    assertRefused(report('chrome-cycle.json', chromeParentCycle()), /the parent chain of \d+ has a cycle/);
  });

  test('JSON that would take more heap than the process has is refused before parsing', () => {
    // 24 MB of empty objects: over 0.5 GB of V8 heap, in a 96 MB heap.
    const file = `{"traceEvents":[${'{},'.repeat(8e6)}{}]}`;
    assertRefused(report('objects.json', file, { nodeArgs: ['--max-old-space-size=96'] }),
      /trace needs more JS heap to read \(its JSON\) than this process has free .*--max-old-space-size=/);
  });

  for (const [format, make] of [['firefox', firefoxDeepChain], ['chrome', chromeDeepChain]]) {
    test(`a 100,000-deep ${format} stack reads in linear time, and its report and HTML flame graph are written`, () => {
      const r = report(`deep-${format}.json`, make(100000), { args: ['--html', join(tmp, `deep-${format}.html`)] });
      assert.equal(r.signal, null, r.stderr);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /2 samples/);
      const p = readProfile(make(100000));
      const stack = p.threads[0].samples[0].stack;
      assert.equal(stack.length, format === 'firefox' ? 100000 : 100000);
      // Samples of one stack share one array: memory is the depth, once.
      assert.equal(p.threads[0].samples[1].stack, stack);
      const tree = wasmtrace.callTree(p.threads[0]);
      let depth = 0;
      for (let n = tree; n.children.length; n = n.children[0]) depth++;
      assert.equal(depth, 100000);
      assert.equal(wasmtrace.reportData(p).threads[0].tree.length, 4 * 100001);
    });
  }

  test('a sampling interval that overflows is unknown, not Infinity (found by the firefox-json fuzzer)', () => {
    assert.equal(readProfile('{"meta": {"interval": 1e308}, "threads": []}').intervalUs, null);
  });

  test('every refusal is a TraceError (exported by the package) with a one-line message', () => {
    assert.equal(wasmtrace.TraceError, TraceError);
    for (const make of [firefoxPrefixCycle, firefoxSelfPrefix, firefoxBillionSamples, chromeParentCycle]) {
      assert.throws(() => readProfile(make()), (e) => e instanceof TraceError && e.code === 'WASMTRACE_BAD_TRACE' && !e.message.includes('\n'));
    }
    const bad = [
      'null', '[null, 1, "x"]', '{"traceEvents": 5}', '{"threads": [null]}', '{"threads": [{}]}',
      '{"threads": [{"stringArray": [], "samples": {"stack": [7]}}]}',
      '{"threads": [{"stringArray": [], "samples": {"length": 1, "stack": [0], "time": ["x"]}, "stackTable": {"frame": [0], "prefix": [null]}, "frameTable": {"func": [0]}, "funcTable": {"name": [5]}}]}',
      '[{"ph": "P", "name": "ProfileChunk", "tid": 1, "args": {"data": {"cpuProfile": {"nodes": [{"id": 1}], "samples": [2]}, "timeDeltas": [1]}}}]',
      '[{"ph": "P", "name": "ProfileChunk", "tid": 1, "args": {"data": {"cpuProfile": {"nodes": [{"id": 1}], "samples": [{"toString": null}]}, "timeDeltas": [1]}}}]',
      'main;a 1e999999', 'main;a 99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999',
    ];
    for (const text of bad) {
      let result;
      try {
        result = readProfile(text);
      } catch (e) {
        assert.ok(e instanceof TraceError, `${text}: ${e.stack}`);
        assert.ok(!e.message.includes('\n'));
        continue;
      }
      assert.ok(Array.isArray(result.threads), text);
    }
  });
});

describe('folded stacks and U+2028/U+2029 (issue 12, class 8)', () => {
  // The encoder (native/src/encoder_folded.c) rewrites only ';' and control
  // characters: U+2028 and U+2029 reach the file as they are, in UTF-8.
  test('a scope name with U+2028 or U+2029 reads back as the encoder wrote it', () => {
    const text = 'main;parse\u2028line;lex\u2029para 3\nmain;(idle) 1\n# wasmtrace {"session":"s","intervalUs":1000,"stats":{}}\n';
    const p = readProfile(Buffer.from(text, 'utf8'));
    assert.equal(p.format, 'folded');
    assert.deepEqual(p.threads[0].samples[0].stack, ['parse\u2028line', 'lex\u2029para']);
    assert.equal(p.threads[0].samples[0].weight, 3);
    assert.equal(p.intervalUs, 1000);
  });

  test('a name that ends in spaces keeps them: the count is after the last space, as flamegraph.pl reads it', () => {
    // The encoder turns a trailing newline into a space: "tab\t" -> "tab ".
    const p = readProfile('main;tab  2\n');
    assert.deepEqual(p.threads[0].samples[0].stack, ['tab ']);
    assert.equal(p.threads[0].samples[0].weight, 2);
  });
});

describe('numbers a reader hands on are finite and in range (issue 38, class 7)', () => {
  const golden = (f) => readFileSync(join(root, 'tests/golden', f), 'utf8');
  const refused = (text, pattern) => assert.throws(() => readProfile(Buffer.from(text)), (e) => e instanceof TraceError && pattern.test(e.message) && !e.message.includes('\n'));

  test('a folded count past 2^32 periods is refused, not added up to Infinity or printed as 1e+23', () => {
    refused('main;a 99999999999999999999999\nmain;b 1\n', /thread "main": a sample weight .* 1e\+23 is out of range/);
    refused('main;a -3\n', /line 1 is not "frame;frame;... count"/);
    assert.equal(readProfile('main;a 4294967296\n').threads[0].samples[0].weight, 2 ** 32);
    // What report prints (one line, not a table of 1e+23 samples).
    const r = report('huge.folded', 'main;a 99999999999999999999999\nmain;b 1\n');
    assertRefused(r, /a sample weight .* is out of range/);
  });

  test('a firefox sample weight, allocation size or time out of range is refused', () => {
    const ff = JSON.parse(golden('firefox.json'));
    const main = ff.threads.find((t) => t.name === 'main');
    const withWeight = structuredClone(ff);
    const s = withWeight.threads.find((t) => t.name === 'main').samples;
    s.weight = s.weight ? s.weight.map(() => 1e308) : Array.from({ length: s.length }, () => 1e308);
    s.weightType = 'samples';
    refused(JSON.stringify(withWeight), /thread "main": a sample weight .* is out of range/);
    // Allocations: a whole non-zero number of bytes (a weight of 0 is
    // neither an allocation nor a free), below 2^48.
    for (const [bytes, pattern] of [[0, /allocation's bytes .* 0 is out of range/], [1e300, /allocation's bytes .* 1e\+300 is out of range/], [1.5, /allocation's bytes .* 1\.5 is out of range/]]) {
      const heap = structuredClone(ff);
      const t = heap.threads.find((x) => x.name === 'main');
      t.nativeAllocations = { length: 1, time: [5001], weight: [bytes], stack: [null], memoryAddress: [4096] };
      refused(JSON.stringify(heap), pattern);
    }
    assert.ok(main, 'the golden firefox trace has a thread main');
  });

  test('a chrome thread id that is not a safe integer, or a scope time past 2^53 us, is refused', () => {
    refused(golden('chrome.json').replace(/"tid":1,/g, '"tid":1e24,'), /thread id 1e\+24 is out of range/);
    refused(golden('chrome.json').replace('"ts":5000010,"dur":2490', '"ts":5000010,"dur":1e300'), /scope "parse": a time/);
  });

  test('a JS profile whose times overflow the trace clock is refused, not written as null', () => {
    const profile = { reason: '', intervalMs: 10, startMs: 0, stopMs: 10, frames: [{ name: 'f', resource: -1, line: -1, column: -1 }], stacks: [[0]], samples: [[1e306, 0]], resources: [] };
    assert.throws(() => wasmtrace.addJsProfile(Buffer.from(golden('chrome.json')), profile), (e) => e instanceof TraceError && /time out of range/.test(e.message));
  });
});

describe('heap columns are read whole or refused (issue 38, class 11)', () => {
  const golden = (f) => readFileSync(join(root, 'tests/golden', f), 'utf8');
  const withAllocations = (na) => {
    const ff = JSON.parse(golden('firefox.json'));
    ff.threads.find((t) => t.name === 'main').nativeAllocations = { length: 2, time: [5001, 5002], weight: [64, -64], stack: [null, null], ...na };
    return JSON.stringify(ff);
  };
  const refused = (text, pattern) => assert.throws(() => readProfile(Buffer.from(text)), (e) => e instanceof TraceError && pattern.test(e.message));

  test('a memoryAddress column shorter than the table, or with addresses as strings, is refused by name', () => {
    refused(withAllocations({ memoryAddress: [4096] }), /nativeAllocations.length says 2 but nativeAllocations.memoryAddress is 1 entries long/);
    refused(withAllocations({ memoryAddress: ['4096', '4096'] }), /nativeAllocations.memoryAddress\[0\] = "4096" is not an address/);
    refused(withAllocations({ memoryAddress: [4096, -1] }), /memoryAddress\[1\] = -1 is not an address/);
    refused(withAllocations({ memoryAddress: { 0: 4096 } }), /memoryAddress is not an array/);
  });

  test('a whole column reads: the free matches its allocation by address; no column means no addresses', () => {
    const main = (p) => p.threads.find((t) => t.name === 'main');
    assert.deepEqual(main(readProfile(withAllocations({ memoryAddress: [4096, 4096] }))).allocations.map((a) => a.address), [4096, 4096]);
    assert.deepEqual(main(readProfile(withAllocations({}))).allocations.map((a) => a.address), [null, null]);
  });
});

describe('the JS-profile import inflates within the readers\' limit (issue 38, class 2)', () => {
  test('a gzip bomb given as the trace is refused at the limit, not inflated', () => {
    const profile = { reason: '', intervalMs: 10, startMs: 0, stopMs: 10, frames: [], stacks: [], samples: [], resources: [] };
    const env = process.env.WASMTRACE_MAX_TRACE_MB;
    process.env.WASMTRACE_MAX_TRACE_MB = '1';
    try {
      assert.throws(() => wasmtrace.addJsProfile(gzipBomb(2), profile), (e) => e instanceof TraceError && /inflates past 1 MiB/.test(e.message));
    } finally {
      if (env === undefined) delete process.env.WASMTRACE_MAX_TRACE_MB;
      else process.env.WASMTRACE_MAX_TRACE_MB = env;
    }
  });
});
