// Exact call counts (issue 40): an instrumented build counts every call of
// every instrumented function on its thread (native/src/calls.h), the
// trace carries them (rec_calls.c: the stats record's "calls", in every
// format), `record` and `report` say them, and `diff` compares them
// exactly beside the time verdict. Real recordings of real builds: the
// instrumented sample (24 passes of tokenize, each one call) and its
// variant with 27 (startup_instrumented_tok110). Counts do not depend on
// the machine's speed: the same work counts the same on a loaded box.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { callsByFunction } from '../../lib/calls.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordArgs } from '../lib/test-browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-calls-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const wasmtrace = (...args) => new Promise((ok) => {
  execFile(process.execPath, [join(root, 'bin/wasmtrace.mjs'), ...args], { maxBuffer: 16 << 20 },
    (e, stdout, stderr) => ok({ status: e ? e.code : 0, stdout, stderr, all: `${stdout}\n${stderr}` }));
});
const RECORD = ['--wait-for', 'window.sampleStartupComplete === true', '--load-timeout', '120s', '--timeout', '120s', ...recordArgs];
const app = (name) => join(wasmBuildDir, 'samples', name);
const traceOf = (dir, run, file = 'startup.json.gz') => readProfile(readFileSync(join(dir, run, file)));

describe('exact call counts of an instrumented build', () => {
  const base = join(tmp, 'base'), more = join(tmp, 'more'), ff = join(tmp, 'firefox-format');
  const recs = {};
  before(async () => {
    for (const [dir, name] of [[base, 'startup_instrumented'], [more, 'startup_instrumented_tok110']]) {
      recs[dir] = await wasmtrace('record', app(name), '--repeat', '2', '--out', dir, ...RECORD);
      assert.equal(recs[dir].status, 0, recs[dir].all);
    }
    recs[ff] = await wasmtrace('record', app('startup_instrumented'), '--format', 'firefox', '--out', ff, ...RECORD);
    assert.equal(recs[ff].status, 0, recs[ff].all);
  });

  test('the trace counts each call once: tokenize once per pass, main() once, each decoder once', () => {
    for (const run of ['run-01', 'run-02']) {
      const p = traceOf(base, run);
      assert.ok(p.calls, 'no calls in the trace');
      assert.equal(p.calls.since, 'threadStart');
      assert.equal(p.calls.malformed, 0);
      const main = p.calls.threads.find((t) => t.name === 'main');
      assert.ok(main, `threads: ${p.calls.threads.map((t) => t.name)}`);
      assert.equal(main.functions.get('tokenize'), 24);
      assert.equal(main.functions.get('__original_main') ?? main.functions.get('main'), 1);
      const decoders = p.calls.threads.filter((t) => /^asset-decoder-\d$/.test(t.name));
      assert.equal(decoders.length, 2);
      for (const d of decoders) assert.equal(d.functions.get('decode_assets'), 1, d.name);
      for (const t of p.calls.threads) assert.equal(t.notCounted, 0, t.name);
    }
    assert.equal(callsByFunction(traceOf(more, 'run-01').calls).get('tokenize'), 27);
  });

  test('two runs of one build count the same, function for function', () => {
    const [a, b] = ['run-01', 'run-02'].map((r) => callsByFunction(traceOf(base, r).calls));
    assert.ok(a.size >= 5, `only ${a.size} functions counted`);
    assert.deepEqual([...b].sort(), [...a].sort());
  });

  test('the firefox format carries the same counts', () => {
    const chrome = callsByFunction(traceOf(base, 'run-01').calls);
    const firefox = callsByFunction(readProfile(readFileSync(join(ff, 'startup.json.gz'))).calls);
    assert.deepEqual([...firefox].sort(), [...chrome].sort());
  });

  test('record and report say what was counted', async () => {
    assert.match(recs[ff].stdout, /calls counted \(exact\): [\d,]+ in \d+ functions on 3 threads/);
    const r = await wasmtrace('report', join(base, 'run-01', 'startup.json.gz'));
    assert.equal(r.status, 0, r.all);
    assert.match(r.stdout, /calls \(exact, since each thread's first instrumented call\): [\d,]+ in \d+ functions on 3 threads/);
    assert.match(r.stdout, /^ +24 +tokenize$/m);
  });

  test('diff states the changed count, with the function\'s time verdict beside it', async () => {
    const json = join(tmp, 'diff.json');
    const r = await wasmtrace('diff', base, more, '--json', json);
    assert.ok(r.status === 0 || r.status === 1, r.all);
    const res = JSON.parse(readFileSync(json, 'utf8'));
    assert.ok(res.calls, 'no call comparison');
    const tok = res.calls.rows.find((x) => x.name === 'tokenize');
    assert.deepEqual(tok, { name: 'tokenize', baseRuns: [24, 24], newRuns: [27, 27], verdict: 'changed' });
    // Only what the variant changed: tokenize's own calls.
    assert.deepEqual(res.calls.rows.filter((x) => x.verdict === 'changed').map((x) => x.name), ['tokenize']);
    assert.equal(res.calls.varies, 0);
    assert.match(r.stdout, /call counts \(exact\): 1 changed, \d+ the same, 0 vary from run to run/);
    assert.match(r.stdout, /tokenize: 24 -> 27 calls \(x1\.13\); its total time: (slower|undecided|same|faster), [+-][\d.]+ ms/);
  });

  test('an A/A diff finds no changed count', async () => {
    const json = join(tmp, 'aa.json');
    const r = await wasmtrace('diff', join(base, 'run-01'), join(base, 'run-02'), '--json', json);
    assert.ok(r.status === 0 || r.status === 1, r.all);
    const res = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(res.calls.changed, 0);
    assert.equal(res.calls.varies, 0);
  });
});
