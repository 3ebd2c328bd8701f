// The wasm tier a trace was recorded in (issue 40, lib/tier.mjs): record
// --tier stamps it into the stats record of each format, the readers hand
// it on, and diff refuses to compare two modes. The golden traces are the
// native encoders' own output (tests/golden).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { main } from '../../lib/cli.mjs';
import { compare, DiffError, readSide } from '../../lib/diff.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { mergeJsFlags, stampTrace, tierOptions, traceTier } from '../../lib/tier.mjs';

const golden = resolve(dirname(fileURLToPath(import.meta.url)), '../golden');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-tier-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const STAMP = { tier: 'optimized', browser: 'chromium', version: 'Chromium 156', args: ['--js-flags=--no-liftoff'], prefs: {} };

describe('the stamp in every format', () => {
  for (const f of ['chrome.json', 'firefox.json', 'folded.txt']) {
    test(`${f}: stamped, read back, everything else the same`, () => {
      const bytes = readFileSync(join(golden, f));
      const before = readProfile(bytes);
      assert.equal(traceTier(before), 'default', 'an unstamped trace counts as the default mode');
      const after = readProfile(stampTrace(bytes, STAMP));
      assert.deepEqual(after.stats.recordedWith, STAMP);
      assert.equal(traceTier(after), 'optimized');
      const { recordedWith, ...rest } = after.stats;
      assert.deepEqual(rest, before.stats);
      assert.deepEqual(after.threads, before.threads);
      // gzip in, gzip out
      const gz = stampTrace(gzipSync(bytes), STAMP);
      assert.deepEqual(readProfile(gunzipSync(gz)).stats.recordedWith, STAMP);
    });
  }

  test('a file that is no wasmtrace trace is refused, named', () => {
    assert.throws(() => stampTrace(Buffer.from('{"traceEvents":[]}'), STAMP), /no wasmtrace stats record/);
  });
});

describe('the browser options of each mode', () => {
  test('optimized: V8 without Liftoff, Firefox without its baseline compiler; default: nothing', () => {
    assert.deepEqual(tierOptions('optimized', 'chromium'), { args: ['--js-flags=--no-liftoff'], prefs: {} });
    assert.deepEqual(tierOptions('optimized', 'firefox').prefs, { 'javascript.options.wasm_baselinejit': false, 'javascript.options.wasm_optimizingjit': true });
    assert.deepEqual(tierOptions('default', 'chromium'), { args: [], prefs: {} });
    assert.throws(() => tierOptions('fast', 'chromium'), /tier 'fast'/);
  });

  test("Chromium's one --js-flags: the mode's and the user's merged", () => {
    assert.deepEqual(mergeJsFlags(['--js-flags=--no-liftoff', '--foo', '--js-flags=--max-lazy']), ['--foo', '--js-flags=--no-liftoff --max-lazy']);
    assert.deepEqual(mergeJsFlags(['--foo']), ['--foo']);
  });
});

describe('diff compares one mode', () => {
  const write = (name, bytes) => {
    const f = join(tmp, name);
    writeFileSync(f, bytes);
    return f;
  };
  const bytes = readFileSync(join(golden, 'chrome.json'));
  // Two runs a side, each a copy that differs (the stamp's version) so that none is counted twice.
  const side = (tier, tag) => [1, 2].map((i) => write(`${tag}-${i}.json`, stampTrace(bytes, { ...STAMP, tier, version: `${tag} ${i}` })));

  test('two modes: refused, naming both and a file of each', () => {
    const base = readSide(side('default', 'base'), 'base'), next = readSide(side('optimized', 'new'), 'new');
    assert.throws(() => compare(base, next), (e) => e instanceof DiffError &&
      /traces recorded in different modes: 'default' \(.*base-1\.json, base\) and 'optimized' \(.*new-1\.json, new\)/.test(e.message));
  });

  test('one mode: compared, and said', () => {
    const res = compare(readSide(side('optimized', 'a'), 'base'), readSide(side('optimized', 'b'), 'new'));
    assert.equal(res.tier, 'optimized');
  });

  test('the CLI: exit status 2 and one line', async () => {
    const err = [];
    const args = [...side('default', 'c').flatMap((f) => ['--base', f]), ...side('optimized', 'd').flatMap((f) => ['--new', f])];
    const status = await main(['diff', ...args], { out: () => {}, err: (l) => err.push(l) });
    assert.equal(status, 2);
    assert.equal(err.length, 1);
    assert.match(err[0], /different modes/);
  });
});

test('record --tier takes default or optimized only', async () => {
  const err = [];
  const status = await main(['record', tmp, '--tier', 'turbo'], { out: () => {}, err: (l) => err.push(l) });
  assert.equal(status, 2);
  assert.match(err[0], /--tier: 'turbo' is not default or optimized/);
});

test("the Playwright helper's tierLaunchOptions: what record --tier launches with, and the stamp for collectTraces", async () => {
  const { tierLaunchOptions } = await import('../../js/playwright.mjs');
  const c = tierLaunchOptions('optimized', 'chromium');
  assert.deepEqual(c.args, ['--js-flags=--no-liftoff']);
  assert.equal(c.recordedWith.tier, 'optimized');
  const f = tierLaunchOptions('optimized', 'firefox');
  assert.deepEqual(f.args, []);
  assert.equal(f.firefoxUserPrefs['javascript.options.wasm_baselinejit'], false);
  assert.throws(() => tierLaunchOptions('fastest'), /tier 'fastest'/);
});
