// The offline symbolicator: names wasm-function[N] frames from an
// `emcc --emit-symbol-map` file and leaves everything else alone.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';
import { parseSymbolMap } from '../../scripts/symbolicate.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const frame = (functionName) => ({ functionName, scriptId: 0, url: '', lineNumber: -1, columnNumber: -1 });

test('symbol map lines parse as index:name, names may contain colons', () => {
  const map = parseSymbolMap('0:main\n17:ns::Level::load(int)\nnot a line\n');
  assert.equal(map.get(0), 'main');
  assert.equal(map.get(17), 'ns::Level::load(int)');
  assert.equal(map.size, 2);
});

test('the CLI names mapped frames, keeps unknown ones, and the output still reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-sym-'));
  const trace = [
    { ph: 'M', cat: '__metadata', name: 'thread_name', pid: 1, tid: 1, ts: 0, args: { name: 'main' } },
    { ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', name: 'Profile', id: '0x1', pid: 1, tid: 1, ts: 10, args: { data: { startTime: 10 } } },
    { ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', name: 'ProfileChunk', id: '0x1', pid: 1, tid: 1, ts: 12, args: { data: {
      cpuProfile: { nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, parent: 1, callFrame: frame('wasm-function[5]') },
        { id: 3, parent: 2, callFrame: frame('wasm-function[9]') },
      ], samples: [2, 3, 3] }, timeDeltas: [0, 1000, 1000] } } },
  ];
  writeFileSync(join(dir, 't.json.gz'), gzipSync(JSON.stringify(trace)));
  writeFileSync(join(dir, 'app.js.symbols'), '5:load_level\n7:unused\n');
  const out = execFileSync('node', [join(root, 'scripts/symbolicate.mjs'), join(dir, 't.json.gz'), join(dir, 'app.js.symbols')], { encoding: 'utf8' });
  assert.match(out, /1 frames named/);
  const a = analyzeTrace(parseTrace(readFileSync(join(dir, 't.symbolicated.json.gz'))));
  assert.deepEqual(a.threads[0].samples.map((s) => s.stack), [['load_level'], ['load_level', 'wasm-function[9]'], ['load_level', 'wasm-function[9]']]);
});
