// One version: package.json's. The C library's WT_VERSION_STRING (which the
// JS shim reports as Module.wasmtrace.version, checked in a real page by
// tests/browser/startup.test.mjs) and the CMake project's VERSION must say
// the same.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f) => readFileSync(join(root, f), 'utf8');

test("the C header's and CMake's versions are package.json's", () => {
  const pkg = JSON.parse(read('package.json')).version;
  assert.match(pkg, /^\d+\.\d+\.\d+$/);
  const header = /^#define\s+WT_VERSION_STRING\s+"([^"]+)"/m.exec(read('native/include/wasmtrace/wasmtrace.h'));
  assert.ok(header, 'no WT_VERSION_STRING in native/include/wasmtrace/wasmtrace.h');
  const cmake = /^project\(wasmtrace\s+VERSION\s+(\S+)/m.exec(read('CMakeLists.txt'));
  assert.ok(cmake, 'no project(wasmtrace VERSION ...) in CMakeLists.txt');
  assert.equal(header[1], pkg, 'WT_VERSION_STRING');
  assert.equal(cmake[1], pkg, 'CMake project VERSION');
});

test('the JS shim hard-codes no version: it asks the C library', () => {
  const post = read('js/wasmtrace_post.js');
  assert.match(post, /_wt_js_version/);
  assert.doesNotMatch(post, /['"]\d+\.\d+\.\d+['"]/);
});
