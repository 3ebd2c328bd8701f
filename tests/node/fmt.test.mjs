// The library formats every message, name and path with its own
// wt_snprintf (native/src/fmt.c): integers and strings only, so that an app
// links no floating-point printf for wasmtrace's sake (~1.7 kB gzip'd,
// docs/BENCHMARKS.md section 14). Two ways that could silently regress,
// checked on the sources:
// - a format string with a conversion fmt.c does not have (a float, a
//   width, a flag) prints "%?" and stops at run time;
// - a call to libc's printf family pulls the float code back in.
// (wt_snprintf's output against libc's: tests/native/test_json.c.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const src = new URL('../../native/src', import.meta.url).pathname;
const files = readdirSync(src).filter((f) => /\.[ch]$/.test(f) && !/^fmt\.[ch]$/.test(f));

/** The C string literals of a source (comments removed first). */
function literals(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
  return [...code.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map((m) => m[1]);
}

/** The conversions of a literal that fmt.c cannot format. */
function unsupported(lit) {
  const bad = [];
  for (let i = lit.indexOf('%'); i >= 0; i = lit.indexOf('%', i)) {
    const m = /^%(?:%|(?:\.(?:\d+|\*))?(?:ll|l|z)?[diuxcs])/.exec(lit.slice(i));
    if (!m) bad.push(lit.slice(i, i + 6));
    i += m ? m[0].length : 1;
  }
  return bad;
}

test('the scanner finds what fmt.c cannot format (the precondition of the next test)', () => {
  assert.deepEqual(unsupported('%d %zu %llu %.40s %.*s %x %c 100%%'), []);
  assert.deepEqual(unsupported('%.17g and %5d and %-s and %f'), ['%.17g ', '%5d an', '%-s an', '%f']);
});

test('no format string of native/src has a conversion wt_snprintf lacks', () => {
  const found = [];
  for (const f of files) {
    for (const lit of literals(readFileSync(join(src, f), 'utf8'))) {
      for (const bad of unsupported(lit)) found.push(`${f}: "${lit}" (${bad})`);
    }
  }
  assert.deepEqual(found, []);
});

test("native/src calls none of libc's printf family (platform_host.c's stderr line aside: host only)", () => {
  const found = [];
  for (const f of files) {
    const code = readFileSync(join(src, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const m of code.matchAll(/(?<![\w])(v?s?n?printf|v?fprintf|v?sprintf|v?asprintf|v?dprintf)\s*\(/g)) {
      if (f === 'platform_host.c' && m[1] === 'fprintf') continue;
      found.push(`${f}: ${m[1]}(`);
    }
  }
  assert.deepEqual(found, []);
});
