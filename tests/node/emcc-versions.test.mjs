// An emcc outside what wasmtrace supports and tests is told so, once, by
// `wasmtrace flags` (lib/native.mjs) and at configure time (CMakeLists.txt),
// from the one list in cmake/emscripten-versions.txt.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { emccVersionNote, packageRoot } from '../../lib/native.mjs';

const list = readFileSync(`${packageRoot}/cmake/emscripten-versions.txt`, 'utf8');
const tested = /^tested (.+)$/m.exec(list)[1].split(' ');

test('the tested versions and everything between say nothing', () => {
  for (const v of [...tested, '3.1.7', '3.1.70', '4.0.0', '5.0.1', '6.9.99']) assert.equal(emccVersionNote(v), null, v);
});

test('an emcc older than the oldest supported is told so, naming the tested versions', () => {
  assert.match(emccVersionNote('3.1.5'), /^emcc 3\.1\.5 is older than 3\.1\.6, the oldest wasmtrace supports \(tested: 3\.1\.6, 3\.1\.69, 6\.0\.5\)/);
  assert.match(emccVersionNote('2.0.34'), /older than 3\.1\.6/);
});

test('an emcc of a newer major than the newest tested is told so, with how to check it', () => {
  assert.match(emccVersionNote('7.0.0'), /^emcc 7\.0\.0 is newer than the newest major wasmtrace is tested on \(6\.x; tested: .*\); it may work: check it with scripts\/test\.sh toolchain/);
});

test('CMakeLists.txt reads the same list (no second copy of the versions)', () => {
  const cmake = readFileSync(`${packageRoot}/CMakeLists.txt`, 'utf8');
  assert.match(cmake, /cmake\/emscripten-versions\.txt/);
  for (const v of tested) assert.ok(!cmake.includes(`"${v}"`), `CMakeLists.txt spells out ${v}`);
});
