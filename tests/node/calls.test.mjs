// The readers of exact call counts (lib/calls.mjs): a hostile stats record
// read as none or with its bad entries left out and counted; diff's exact
// comparison: changed only when each side agrees with itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callDiffLines, callReport, callSummary, callsByFunction, callsOf, compareCalls } from '../../lib/calls.mjs';
import { printable } from '../../lib/trace.mjs';

const stats = (threads) => ({ calls: { since: 'threadStart', threads } });

test('callsOf reads a stats record and sums a function over its clones\' names per thread', () => {
  const c = callsOf(stats([{ name: 'main', functions: [['tokenize', 24], ['main', 1]], notCounted: 0 },
    { name: 'w', functions: [['tokenize', 3]], notCounted: 2 }]));
  assert.equal(c.since, 'threadStart');
  assert.equal(c.malformed, 0);
  assert.deepEqual(c.threads.map((t) => [t.name, [...t.functions], t.notCounted]),
    [['main', [['tokenize', 24], ['main', 1]], 0], ['w', [['tokenize', 3]], 2]]);
  assert.deepEqual([...callsByFunction(c)], [['tokenize', 27], ['main', 1]]);
  assert.equal(callSummary(c), '28 in 2 functions on 2 threads; 2 not counted (table past its limit or refused)');
});

test('callsOf reads any other value as no counts, and leaves out what is not a name and a count', () => {
  for (const bad of [null, undefined, 1, 'x', [], {}, { calls: null }, { calls: [] }, { calls: { threads: {} } }]) {
    assert.equal(callsOf(bad), null, JSON.stringify(bad));
  }
  const c = callsOf(stats([7, { name: 3, functions: [] }, { name: 'main', functions: [
    ['ok', 2], ['neg', -1], ['frac', 1.5], ['big', 2 ** 60], [5, 1], 'x', ['nan', NaN], ['ok', 3]] }]));
  assert.equal(c.threads.length, 1);
  assert.deepEqual([...c.threads[0].functions], [['ok', 5]]);
  assert.equal(c.malformed, 2 + 6);
  assert.equal(c.threads[0].notCounted, 0);
});

test('callsOf holds no more than its limits of a hostile record', () => {
  const many = Array.from({ length: 300 }, (_, i) => ({ name: `t${i}`, functions: [['f', 1]] }));
  assert.equal(callsOf(stats(many)).threads.length, 256);
  const huge = [{ name: 'main', functions: Array.from({ length: (1 << 17) + 5 }, (_, i) => [`f${i}`, 1]) }];
  assert.equal(callsByFunction(callsOf(stats(huge))).size, 1 << 17);
});

const run = (fns) => ({ calls: callsOf(stats([{ name: 'main', functions: Object.entries(fns) }])) });

test('compareCalls: changed when each side agrees with itself, varies when a side does not, 0 where a run has none', () => {
  const cmp = compareCalls([run({ a: 24, b: 5, c: 1 }), run({ a: 24, b: 6, c: 1 })], [run({ a: 27, b: 5, c: 1, d: 2 }), run({ a: 27, b: 5, c: 1, d: 2 })]);
  const by = Object.fromEntries(cmp.rows.map((r) => [r.name, r]));
  assert.equal(by.a.verdict, 'changed');
  assert.deepEqual([by.a.baseRuns, by.a.newRuns], [[24, 24], [27, 27]]);
  assert.equal(by.b.verdict, 'varies');
  assert.equal(by.c.verdict, 'same');
  assert.equal(by.d.verdict, 'changed');
  assert.deepEqual(by.d.baseRuns, [0, 0]);
  assert.deepEqual([cmp.changed, cmp.same, cmp.varies], [2, 1, 1]);
  assert.deepEqual(cmp.rows.map((r) => r.name), ['a', 'd', 'b', 'c']); // changed (largest first), varies, same
  // A run of either side without counts: nothing to compare.
  assert.equal(compareCalls([run({ a: 1 }), { calls: null }], [run({ a: 1 })]), null);
  assert.equal(compareCalls([run({ a: 1 })], []), null);
});

test('diff\'s lines name the changed functions with their total-time verdict; report lists the most called', () => {
  const cmp = compareCalls([run({ tokenize: 24, 'evil\u001b[2J': 1 })], [run({ tokenize: 27, 'evil\u001b[2J': 2 })]);
  const lines = callDiffLines(cmp, { printable, timeOf: (n) => (n === 'tokenize' ? 'slower, +12.0 ms (+10.1 %)' : null) });
  assert.equal(lines[0], '  call counts (exact): 2 changed, 0 the same, 0 vary from run to run (not compared)');
  assert.ok(lines.includes('    tokenize: 24 -> 27 calls (x1.13); its total time: slower, +12.0 ms (+10.1 %)'), lines.join('\n'));
  assert.ok(lines.every((l) => !l.includes('\u001b')), 'a name printed raw');
  assert.deepEqual(callDiffLines(null, { printable, timeOf: () => null }), []);
  const report = callReport(run({ tokenize: 24, main: 1, cmp: 31240954 }).calls, { printable });
  assert.deepEqual(report.slice(2), ['  31,240,954  cmp', '          24  tokenize', '           1  main']);
});
