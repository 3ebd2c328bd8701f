// Reading traces of every format into one model, and the report views on
// top of it. The golden files are what the encoders write for one fixed
// session (tests/native/test_encoders.c): the three formats must read back
// the same. Small hand-written files cover what the goldens do not (other
// string-table layouts, gzip, recursion, bad input).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { callTree, detectFormat, functionTable, readProfile, threadTotals, weightOf } from '../../lib/profile.mjs';
import { htmlReport, printable, reportData, textReport } from '../../lib/report.mjs';
import { assertRan, assertTimeBelow, samplesIn, timeIn } from '../../js/playwright.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const golden = (name) => readFileSync(join(root, 'tests/golden', name));

// What a reader should see of a profile, independent of the format.
function shape(p) {
  return p.threads.map((t) => ({
    name: t.name,
    totals: threadTotals(t),
    functions: functionTable(t).map((r) => [r.name, r.self, r.total]),
  }));
}

describe('reading the formats wasmtrace writes', () => {
  const chrome = readProfile(golden('chrome.json'));
  const firefox = readProfile(golden('firefox.json'));
  const folded = readProfile(golden('folded.txt'));

  test('each golden file is detected as its own format', () => {
    assert.equal(chrome.format, 'chrome');
    assert.equal(firefox.format, 'firefox');
    assert.equal(folded.format, 'folded');
    assert.equal(detectFormat('main;a 3\n'), 'folded');
  });

  test('the chrome and firefox files read back the same threads, stacks and counts', () => {
    assert.deepEqual(shape(firefox), shape(chrome));
  });

  test('the folded file reads back the same counts (its names have ";" and newlines replaced)', () => {
    const clean = (s) => s.replace(/[;\n\t\x7f]/g, '?');
    const norm = (p) => shape(p).map((t) => ({ ...t, name: clean(t.name),
      functions: t.functions.map(([n, a, b]) => [clean(n).replace(/[^\x20-\x7e]/g, '?'), a, b]) }));
    const a = norm(chrome);
    const b = norm(folded);
    assert.equal(b.length, a.length);
    for (let i = 0; i < a.length; i++) {
      assert.deepEqual(b[i].totals, a[i].totals);
      assert.deepEqual(b[i].functions.map((f) => f.slice(1)), a[i].functions.map((f) => f.slice(1)));
    }
  });

  test('a name with U+2028 and U+2029 reads back as the encoder wrote it, in every format', () => {
    // JSON keeps them; folded writes them as spaces (speedscope ends lines there).
    const name = 'utf8 \u00e9 \u2713 \u2028 \u2029';
    for (const p of [chrome, firefox, folded]) {
      const names = p.threads.flatMap((t) => functionTable(t).map((r) => r.name));
      const want = p === folded ? name.replace(/[\u2028\u2029]/g, ' ') : name;
      assert.ok(names.includes(want), `${p.format}: ${JSON.stringify(names)}`);
    }
  });

  test('session, interval and drop counts come from each format\'s metadata', () => {
    for (const p of [chrome, firefox, folded]) {
      assert.equal(p.intervalUs, 1000, p.format);
      assert.equal(p.stats.samplesTaken, 11, p.format);
      assert.equal(p.stats.samplesDropped, 1, p.format);
      assert.equal(p.stats.waiting, 1, p.format);
      assert.equal(p.stats.dropped.tornStack, 1, p.format);
    }
    assert.equal(chrome.session.session, 'golden-chrome');
    assert.equal(firefox.session.session, 'golden-firefox');
    assert.equal(folded.session.session, 'golden-folded');
  });

  test('an idle sample has an empty stack in every format', () => {
    for (const p of [chrome, firefox, folded]) {
      assert.equal(threadTotals(p.threads[0]).idle, 1, p.format);
    }
  });

  test('a waiting sample keeps the stack it waits in, ends in "(waiting)" and gives its self time to that frame as waiting, in every format', () => {
    for (const p of [chrome, firefox, folded]) {
      const waiting = p.threads[1].samples.filter((s) => s.stack.at(-1) === '(waiting)');
      assert.equal(waiting.length, 1, p.format);
      assert.equal(waiting[0].stack.length, 3, p.format);
      assert.deepEqual(threadTotals(p.threads[1]), { total: 5, idle: 0, busy: 5, partial: 0, waiting: 1 }, p.format);
      const rows = functionTable(p.threads[1]);
      assert.ok(!rows.some((r) => r.name === '(waiting)'), p.format);
      const leaf = rows.find((r) => r.waiting);
      assert.equal(leaf.name, waiting[0].stack[1], p.format);
      assert.deepEqual([leaf.self, leaf.waiting], [3, 1], p.format);
      // The call tree draws it as a "(waiting)" child of that frame.
      const tree = callTree(p.threads[1]);
      const path = waiting[0].stack.slice(0, 2).reduce((n, name) => n.children.find((c) => c.name === name), tree);
      assert.deepEqual(path.children.map((c) => [c.name, c.value]), [['(waiting)', 1]], p.format);
    }
  });

  test('scopes come back as intervals in microseconds from chrome and firefox', () => {
    const scope = (p) => p.threads[0].scopes.find((s) => s.name === 'parse');
    assert.ok(scope(chrome), 'chrome scope');
    assert.ok(scope(firefox), 'firefox scope');
    assert.equal(Math.round(scope(firefox).dur), Math.round(scope(chrome).dur));
  });

  test('gzip input is read the same as plain input', () => {
    assert.deepEqual(shape(readProfile(gzipSync(golden('firefox.json')))), shape(firefox));
    assert.deepEqual(shape(readProfile(gzipSync(golden('folded.txt')))), shape(folded));
  });
});

describe('hand-written files', () => {
  // A processed profile with the string table per thread (older layout)
  // and sample times as deltas.
  const perThreadStrings = {
    meta: { interval: 0.5, version: 24 },
    threads: [{
      name: 'worker', tid: 7,
      stringArray: ['root', 'leaf', 'other'],
      funcTable: { length: 3, name: [0, 1, 2] },
      frameTable: { length: 3, func: [0, 1, 2] },
      stackTable: { length: 3, frame: [0, 1, 2], prefix: [null, 0, 0] },
      samples: { length: 4, stack: [1, 1, 2, null], timeDeltas: [0, 0.5, 0.5, 0.5] },
      markers: { length: 1, name: [0], startTime: [0], endTime: [1.5], phase: [1], category: [0] },
    }],
  };

  test('a firefox profile with per-thread strings and time deltas', () => {
    const p = readProfile(JSON.stringify(perThreadStrings));
    assert.equal(p.format, 'firefox');
    assert.equal(p.intervalUs, 500);
    const t = p.threads[0];
    assert.equal(t.name, 'worker');
    assert.deepEqual(t.samples.map((s) => s.stack), [['root', 'leaf'], ['root', 'leaf'], ['root', 'other'], []]);
    assert.deepEqual(t.samples.map((s) => s.ts), [0, 500, 1000, 1500]);
    assert.deepEqual(t.scopes, [{ name: 'root', ts: 0, dur: 1500, cat: '' }]);
  });

  test('folded stacks without a metadata line: counts, no interval', () => {
    const p = readProfile('main;a;b 3\nmain;a 2\nworker;c 5\nworker 1\n');
    assert.equal(p.intervalUs, null);
    assert.deepEqual(p.threads.map((t) => [t.name, threadTotals(t)]), [
      ['main', { total: 5, idle: 0, busy: 5, partial: 0, waiting: 0 }],
      ['worker', { total: 6, idle: 1, busy: 5, partial: 0, waiting: 0 }],
    ]);
    assert.match(textReport(p), /self samples/);
  });

  test('folded stacks with the stats record: session, interval and stats from its JSON; other comments ignored', () => {
    const record = { version: '0.1.0', session: 's1', format: 'folded', intervalUs: 250,
      stats: { samplesTaken: 4, samplesWritten: 3, samplesDropped: 1, dropped: { bufferFull: 1, tornStack: 0 }, ticksMissed: 2 } };
    const p = readProfile(`# made by hand\nmain;a 2\nmain 1\n# wasmtrace ${JSON.stringify(record)}\n`);
    assert.equal(p.intervalUs, 250);
    assert.equal(p.session.session, 's1');
    assert.equal(p.session.stats, undefined, 'the stats are not part of the session');
    assert.deepEqual(p.stats, record.stats);
    assert.deepEqual(p.threads.map((t) => [t.name, threadTotals(t)]), [['main', { total: 3, idle: 1, busy: 2, partial: 0, waiting: 0 }]]);
  });

  test('a "(partial stack)" marker gives its self time to the frame above it and is counted on its own', () => {
    const record = { intervalUs: 1000, stats: { samplesTaken: 7, samplesWritten: 7, samplesDropped: 0,
      dropped: { bufferFull: 0, tornStack: 0 }, partialStack: 3 } };
    const p = readProfile('main;a;b 3\nmain;a;(partial stack) 2\nmain;(partial stack) 1\nmain 1\n' +
      `# wasmtrace ${JSON.stringify(record)}\n`);
    const [t] = p.threads;
    assert.deepEqual(threadTotals(t), { total: 7, idle: 1, busy: 6, partial: 3, waiting: 0 });
    assert.deepEqual(functionTable(t), [{ name: 'b', self: 3, total: 3, waiting: 0 }, { name: 'a', self: 2, total: 5, waiting: 0 }]);
    assert.equal(weightOf(t, 'a', { self: true }), 2);
    // The flame graph keeps the marker: the time is busy, in frames that moved.
    const tree = callTree(t);
    assert.deepEqual(tree.children.map((c) => [c.name, c.value]), [['a', 5], ['(partial stack)', 1]]);
    const report = textReport(p);
    assert.match(report, /3 partial stack \(42\.9%\)/);
    assert.match(report, /partial stack 3 \(kept\)/);
    assert.doesNotMatch(report.split('by self time:')[1], /\(partial stack\)/);
  });

  test('a malformed stats record is a one-line error that names its line', () => {
    for (const bad of ['# wasmtrace {"intervalUs": 1000', '# wasmtrace {"stats": 3}', `# wasmtrace {"x":"${'y'.repeat(1 << 20)}"}`]) {
      assert.throws(() => readProfile(`main;a 1\n${bad}\n`), (e) => /^folded stacks: line 2: the '# wasmtrace' stats record /.test(e.message) &&
        !e.message.includes('\n') && e.message.length < 200);
    }
  });

  test('a line that is not "stack count" is an error that names the line', () => {
    assert.throws(() => readProfile('main;a 3\nnot a count\n'), /line 2/);
  });

  test('JSON that is no trace is an error', () => {
    assert.throws(() => readProfile('{"hello": 1}'), /not a trace/);
  });
});

describe('views', () => {
  const thread = {
    name: 't',
    tid: 1,
    scopes: [],
    samples: [
      { stack: ['main', 'walk', 'walk', 'visit'], weight: 1 },
      { stack: ['main', 'walk', 'walk'], weight: 2 },
      { stack: ['main', 'other'], weight: 1 },
      { stack: [], weight: 4 },
    ],
  };

  test('total time counts a recursive function once per sample', () => {
    const rows = Object.fromEntries(functionTable(thread).map((r) => [r.name, r]));
    assert.deepEqual(rows.walk, { name: 'walk', self: 2, waiting: 0, total: 3 });
    assert.deepEqual(rows.main, { name: 'main', self: 0, waiting: 0, total: 4 });
    assert.equal(rows['(idle)'], undefined);
  });

  test('the call tree merges equal paths and sorts children by weight', () => {
    const tree = callTree(thread);
    assert.equal(tree.value, 4);
    const main = tree.children[0];
    assert.deepEqual(main.children.map((c) => [c.name, c.value]), [['walk', 3], ['other', 1]]);
    assert.equal(main.children[0].children[0].children[0].name, 'visit');
  });

  test('printable escapes control characters for the terminal', () => {
    assert.equal(printable('a\nb\tc\x01'), 'a\\nb\\tc\\x01');
  });

  test('the HTML report is self-contained and its data cannot close the script element', () => {
    const p = { format: 'folded', session: null, intervalUs: 1000, stats: null,
      threads: [{ ...thread, samples: [...thread.samples, { stack: ['</script><img src=x>'], weight: 1 }] }] };
    const html = htmlReport(p, { title: 'x' });
    assert.ok(!/<script[^>]+src=/i.test(html), 'no external scripts');
    assert.ok(!/<link[^>]+href=/i.test(html), 'no external styles');
    assert.ok(!/https?:\/\/(?!www\.w3\.org\/2000\/svg)/.test(html), 'no URLs but the SVG namespace');
    assert.equal(html.match(/<\/script>/g).length, 2, 'only the two script elements close');
    assert.equal(reportData(p).strings.includes('</script><img src=x>'), true);
  });
});

describe('assertion helpers', () => {
  const p = readProfile(golden('chrome.json'));

  test('assertRan passes for a sampled function and explains a miss', () => {
    assert.equal(assertRan(p, 'parse', { thread: 'main' }), 4);
    assert.throws(() => assertRan(p, 'nowhere'), (e) => e.code === 'assert-ran' && /top self functions/.test(e.message));
    assert.throws(() => assertRan(p, 'parse', { thread: 'nope' }), (e) => e.code === 'no-thread');
  });

  test('timeIn uses scope durations when the trace has them, else samples', () => {
    assert.equal(timeIn(p, 'parse').source, 'scopes');
    assert.deepEqual(timeIn(p, 'function[7]'), { ms: 3, source: 'samples' });
    assert.equal(samplesIn(p, 'function[7]', { self: true }), 3);
  });

  test('assertTimeBelow passes under the bound and fails over it with the measurement', () => {
    assert.equal(assertTimeBelow(p, 'function[7]', 10).ms, 3);
    assert.throws(() => assertTimeBelow(p, 'function[7]', 2), /measured 3\.0 ms \(from samples\)/);
  });
});

describe('sample weights (the sampling periods a sample stands for)', () => {
  const golden = () => JSON.parse(readFileSync(join(root, 'tests/golden/chrome.json'), 'utf8'));
  const mainWeights = (events) => readProfile(Buffer.from(JSON.stringify(events))).threads.find((t) => t.name === 'main').samples.map((s) => s.weight);
  // main's last sample 3 periods later than in the golden file: the
  // sampler missed 3 ticks before it.
  const withGap = () => {
    const events = golden();
    const chunks = events.filter((e) => e.name === 'ProfileChunk' && e.tid === 1);
    chunks.at(-1).args.data.timeDeltas[chunks.at(-1).args.data.timeDeltas.length - 1] += 3000;
    return events;
  };
  const session = (events) => events.find((e) => e.name === 'wasmtrace_session').args;

  test('chrome: a sample after k missed ticks weighs k + 1 (from its timestamp on the session grid)', () => {
    assert.deepEqual(mainWeights(golden()), [1, 1, 1, 1, 1]);
    assert.deepEqual(mainWeights(withGap()), [1, 1, 1, 1, 4]);
    const p = readProfile(Buffer.from(JSON.stringify(withGap())));
    assert.equal(threadTotals(p.threads.find((t) => t.name === 'main')).total, 8);
    // The report counts samples and says what they stand for.
    assert.match(textReport(p), /thread 'main' \(tid 1\): 5 samples \(8 sampling periods\) = 8\.0 ms sampled/);
    assert.match(textReport(readProfile(Buffer.from(JSON.stringify(golden())))), /thread 'main' \(tid 1\): 5 samples = 5\.0 ms sampled/);
  });

  test('chrome: without a usable session interval every sample weighs 1', () => {
    for (const bad of [undefined, 'abc', -1000, 0, 1e-320, Infinity]) {
      const events = withGap();
      if (bad === undefined) delete session(events).intervalUs;
      else session(events).intervalUs = bad;
      assert.deepEqual(mainWeights(events), [1, 1, 1, 1, 1], `intervalUs ${bad}`);
    }
  });

  test('firefox: the weight column is read; a negative weight or one of another weight type is not a sample count', () => {
    const p = JSON.parse(readFileSync(join(root, 'tests/golden/firefox.json'), 'utf8'));
    const main = p.threads.find((t) => t.name === 'main');
    main.samples.weight = main.samples.stack.map((_, i) => (i === 0 ? 5 : 1));
    const read = (x) => readProfile(Buffer.from(JSON.stringify(x))).threads.find((t) => t.name === 'main').samples.map((s) => s.weight);
    assert.deepEqual(read(p), [5, 1, 1, 1, 1]);
    main.samples.weightType = 'tracing-ms';
    assert.deepEqual(read(p), [1, 1, 1, 1, 1]);
    main.samples.weightType = 'samples';
    main.samples.weight[1] = -2;
    assert.throws(() => read(p), /samples\.weight\[1\] is not a number of samples/);
  });
});
