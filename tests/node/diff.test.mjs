// wasmtrace diff (lib/diff.mjs) on made-up runs with known differences and
// known noise: what it flags, what it calls the same, what it cannot
// decide yet, and the bad input it refuses. (The false-alarm and power
// figures on real recordings of real builds are in tests/browser.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { main } from '../../lib/cli.mjs';
import { compare, DiffError, diffStatus, markdownDiff, parseThreshold, textDiff } from '../../lib/diff.mjs';
import { seededRandom } from '../../lib/stats.mjs';

const rng = seededRandom;

// One run: `ms` per function (self time, 1 ms samples at 1 kHz) on main
// under main -> run -> <fn>, each scaled by a run-wide factor (the
// machine's run-to-run noise) and shuffled in time.
function run(ms, { random, noise = 0.03, session = 'startup', threads = { main: ms } } = {}) {
  const factor = 1 + noise * (2 * random() - 1);
  const out = [];
  for (const [name, fns] of Object.entries(threads)) {
    const samples = [];
    for (const [fn, t] of Object.entries(fns)) {
      const stack = fn === '(idle)' ? [] : ['main', 'run', fn];
      const n = Math.round(t * factor * (1 + 0.01 * (2 * random() - 1)));
      for (let i = 0; i < n; i++) samples.push({ stack, weight: 1 });
    }
    for (let i = samples.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [samples[i], samples[j]] = [samples[j], samples[i]];
    }
    samples.forEach((s, i) => { s.ts = i * 1000; });
    out.push({ tid: out.length, name, samples, scopes: [] });
  }
  return { file: `run-${Math.floor(random() * 1e9)}.json`, profile: { format: 'chrome', session: { session }, intervalUs: 1000, stats: null, threads: out } };
}
const runs = (n, ms, seed, o = {}) => { const random = rng(seed); return Array.from({ length: n }, () => run(ms, { random, ...o })); };
const BASE = { parse: 400, layout: 300, paint: 200, decode: 100, 'helper.constprop.0': 20, '(idle)': 500 };
const row = (res, kind, name) => res.rows.find((r) => r.kind === kind && r.name === name);

// Runs recorded in turns on a drifting machine: pair i of base and new
// share a factor that moves from pair to pair by up to +-25 %.
function pairedRuns(n, baseMs, newMs, seed) {
  const random = rng(seed);
  const base = [], next = [];
  for (let i = 0; i < n; i++) {
    const drift = 1 + 0.25 * (2 * random() - 1);
    const scale = (ms) => Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, k === '(idle)' ? v : v * drift]));
    base.push(run(scale(baseMs), { random, noise: 0.01 }));
    next.push(run(scale(newMs), { random, noise: 0.01 }));
  }
  return [base, next];
}

describe('wasmtrace diff --paired: runs recorded in turns', () => {
  // Long runs (sampling noise, sqrt(samples), well under the change).
  const LONG = Object.fromEntries(Object.entries(BASE).map(([k, v]) => [k, 4 * v]));
  test('drift shared by a pair cancels: a 10 % change is found that unpaired runs leave undecided', () => {
    const [base, next] = pairedRuns(5, LONG, { ...LONG, layout: 1320 }, 7);
    const unpaired = compare(base, next);
    assert.notEqual(row(unpaired, 'self', 'layout').verdict, 'slower', 'Welch over drifting runs should not see it');
    const res = compare(base, next, { paired: true });
    assert.equal(res.paired, true);
    const r = row(res, 'self', 'layout');
    assert.equal(r.verdict, 'slower');
    assert.ok(r.lo < 120 * 1.25 && r.hi > 120 * 0.75, `${r.lo}..${r.hi}`);
    for (const fn of ['parse', 'paint', 'decode']) assert.notEqual(row(res, 'self', fn).verdict, 'slower', fn);
    assert.match(textDiff(res), /paired: base run i against new run i \(5 pairs/);
  });

  test('an A/A comparison in turns flags nothing in 20 of 20 seeds', () => {
    for (let seed = 100; seed < 120; seed++) {
      const [base, next] = pairedRuns(5, LONG, LONG, seed);
      const res = compare(base, next, { paired: true });
      assert.deepEqual(res.rows.filter((r) => r.verdict === 'slower' || r.verdict === 'faster').map((r) => r.key), [], `seed ${seed}`);
    }
  });

  test('unequal sides or a single pair are refused, saying why', () => {
    assert.throws(() => compare(runs(3, BASE, 1), runs(4, BASE, 2), { paired: true }), /--paired: 3 base runs and 4 new: pairs need as many runs on each side/);
    assert.throws(() => compare(runs(1, BASE, 1), runs(1, BASE, 2), { paired: true }), /--paired: one run a side makes one pair/);
  });
});

describe('wasmtrace diff on runs with known differences', () => {
  test('a function 20 % slower is flagged slower, by name, with its interval around the truth', () => {
    const res = compare(runs(5, BASE, 1), runs(5, { ...BASE, layout: 360 }, 2));
    const r = row(res, 'self', 'layout');
    assert.equal(r.verdict, 'slower');
    assert.ok(r.lo < 60 && 60 < r.hi, `${r.lo}..${r.hi}`);
    assert.equal(res.verdict, 'slower');
    assert.equal(diffStatus(res), 1);
    // The others did not change: none of them is flagged.
    for (const fn of ['parse', 'paint', 'decode']) assert.notEqual(row(res, 'self', fn).verdict, 'slower', fn);
    assert.match(textDiff(res), /verdict: SLOWER[\s\S]*slower +self +layout/);
  });

  test('faster is faster, and the exit status does not fail', () => {
    const res = compare(runs(5, BASE, 3), runs(5, { ...BASE, parse: 300 }, 4));
    assert.equal(row(res, 'self', 'parse').verdict, 'faster');
    assert.equal(res.verdict, 'faster');
    assert.equal(diffStatus(res), 0);
  });

  test('A/A: the same build on both sides flags nothing, in 20 of 20 comparisons with 3 % run noise', () => {
    let flagged = 0;
    for (let k = 0; k < 20; k++) {
      const res = compare(runs(5, BASE, 100 + k), runs(5, BASE, 200 + k));
      if (res.rows.some((r) => r.verdict === 'slower' || r.verdict === 'faster')) flagged++;
    }
    assert.ok(flagged <= 1, `${flagged} of 20 comparisons flagged something`);
  });

  test('a small change hidden in noise is undecided, with how many runs would settle it', () => {
    const res = compare(runs(3, BASE, 5, { noise: 0.15 }), runs(3, { ...BASE, paint: 215 }, 6, { noise: 0.15 }));
    const r = row(res, 'self', 'paint');
    assert.equal(r.verdict, 'undecided');
    assert.ok(r.runsNeeded > 3, String(r.runsNeeded));
  });

  test('the whole window and each thread are compared; a thread on one side only is reported, not compared', () => {
    const a = runs(4, BASE, 7, { threads: { main: BASE, decoder: { decode: 200 } } });
    const b = runs(4, BASE, 8, { threads: { main: BASE, worker: { decode: 200 } } });
    const res = compare(a, b);
    assert.deepEqual(res.threadsOnlyIn, { base: ['decoder'], new: ['worker'] });
    assert.equal(row(res, 'thread', 'decoder'), undefined);
    assert.ok(row(res, 'thread', 'main'));
    assert.ok(res.window);
    assert.match(textDiff(res), /threads only in base \(not compared\): decoder/);
  });

  test('clone suffixes are merged, and functions on one side only are listed', () => {
    const res = compare(runs(3, BASE, 9), runs(3, { ...BASE, 'helper.constprop.0': 0, helper: 20, fresh: 30 }, 10));
    assert.ok(row(res, 'self', 'helper'));
    assert.equal(row(res, 'self', 'helper.constprop.0'), undefined);
    assert.deepEqual(res.functions.added, ['fresh']);
    assert.deepEqual(res.functions.removed, []);
  });

  test('one run a side: it still answers, from slices of the runs, and says so', () => {
    const res = compare(runs(1, BASE, 11), runs(1, { ...BASE, layout: 600 }, 12));
    assert.equal(res.single, true);
    assert.equal(row(res, 'self', 'layout').verdict, 'slower');
    assert.match(textDiff(res), /one run on a side: the intervals cover the sampling noise within the runs/);
  });

  test('below the threshold a real difference is not a verdict', () => {
    const res = compare(runs(5, BASE, 13, { noise: 0 }), runs(5, { ...BASE, parse: 404 }, 14, { noise: 0 }), { threshold: parseThreshold('2%') });
    assert.notEqual(row(res, 'self', 'parse').verdict, 'slower');
  });

  test('the Markdown has the verdict and a table', () => {
    const md = markdownDiff(compare(runs(5, BASE, 1), runs(5, { ...BASE, layout: 360 }, 2)));
    assert.match(md, /^### wasmtrace diff: 🔴 slower/);
    assert.match(md, /\n\| verdict \| what \| name \|/);
    assert.match(md, /\| slower \| self \| layout \|/);
  });
});

describe('bad input: one line, never a verdict', () => {
  test('traces of different sessions', () => {
    assert.throws(() => compare(runs(2, BASE, 1), runs(2, BASE, 2, { session: 'other' })), (e) => e instanceof DiffError && /traces of different sessions: 'startup'.*'other'/.test(e.message));
  });
  test('traces of different apps', () => {
    assert.throws(() => compare(runs(2, BASE, 1), runs(2, { x: 500, y: 200 }, 2)), /look like different apps/);
  });
  test('a threshold that is not one', () => {
    assert.throws(() => parseThreshold('fast'), /--threshold: 'fast' is not a percentage or a time/);
    assert.deepEqual(parseThreshold('5%,2ms'), { pct: 5, ms: 2 });
    // Issue 38, class 10: nothing, a lone comma, one kind twice, 400 digits.
    assert.throws(() => parseThreshold(''), /--threshold: '' is not a percentage, a time, or one of each/);
    assert.throws(() => parseThreshold(','), /--threshold: ',' is not a percentage, a time, or one of each/);
    assert.throws(() => parseThreshold('2%,5%'), /--threshold: '2%,5%' gives a percentage twice/);
    assert.throws(() => parseThreshold(`${'9'.repeat(400)}%`), /--threshold: '9{40}' is not a percentage or a time/);
    assert.throws(() => parseThreshold('2000%'), /more than 1000 %/);
  });
});

describe('wasmtrace diff, the command', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-diff-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const cli = async (...args) => {
    const lines = [];
    const status = await main(['diff', ...args], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    return { status, text: lines.join('\n') };
  };
  // Folded runs (sample counts, no header): the base and a new build whose sort is slower.
  const write = (dir, i, sort) => {
    writeFileSync(join(dir, `run${i}.folded`), `main;main;parse ${1000 + (i % 3) * 7}\nmain;main;sort ${sort + (i % 2) * 9}\nmain;(idle) 300\n`);
  };
  const base = join(tmp, 'base'), next = join(tmp, 'new');
  for (const d of [base, next]) rmSync(d, { recursive: true, force: true });
  test('directories of runs: the table, the files, exit 1 on slower', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(base); mkdirSync(next);
    for (let i = 0; i < 5; i++) { write(base, i, 500); write(next, i, 700); }
    const md = join(tmp, 'diff.md'), json = join(tmp, 'diff.json');
    const r = await cli(base, next, '--markdown', md, '--json', json);
    assert.equal(r.status, 1, r.text);
    assert.match(r.text, /verdict: SLOWER \(5 base runs, 5 new;/);
    assert.match(r.text, /slower +self +sort/);
    const { readFileSync } = await import('node:fs');
    assert.match(readFileSync(md, 'utf8'), /\| slower \| self \| sort \|/);
    const j = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(j.verdict, 'slower');
    assert.deepEqual(j.rows.find((x) => x.kind === 'self' && x.name === 'sort').newRuns, [700, 709, 700, 709, 700]);
  });
  test('--html: a differential flame graph of the new runs, each function coloured by its verdict', async () => {
    const html = join(tmp, 'diff.html');
    const r = await cli(base, next, '--html', html);
    assert.equal(r.status, 1, r.text);
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(html, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="wasmtrace-data">([\s\S]*?)<\/script>/.exec(page)[1]);
    assert.equal(data.colours.sort, '#e0524a'); // slower: red
    assert.equal(data.colours.parse, '#cfcfd4'); // no difference: grey
    assert.match(data.legend, /^SLOWER: the new build's 5 run\(s\) merged/);
    // The new side's runs merged: main's tree holds all 5 runs' samples.
    const main = data.threads.find((t) => t.name === 'main');
    assert.equal(main.total, 5 * (1000 + 300) + 700 * 3 + 709 * 2 + 7 * (0 + 1 + 2 + 0 + 1));
  });
  test('the same runs on both sides: nothing flagged, exit 0', async () => {
    const r = await cli(base, base);
    assert.equal(r.status, 0, r.text);
    // Not "same" at 5 runs: a count of ~500 samples varies by ~22 from
    // sampling alone (Poisson), wider than the 2 % threshold.
    assert.match(r.text, /verdict: UNDECIDED/);
    assert.doesNotMatch(r.text, /\n {2}(slower|faster) {2,}/);
  });
  test('a difference within a threshold as wide as the noise: same', async () => {
    const r = await cli(base, base, '--threshold', '20%');
    assert.equal(r.status, 0, r.text);
    assert.match(r.text, /verdict: SAME/);
  });
  test('--help has a section for diff, and the next section still has its heading', async () => {
    const lines = [];
    assert.equal(await main(['--help'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }), 0);
    const help = lines.join('\n');
    assert.match(help, /\n {2}wasmtrace diff <base traces> <new traces> \[options\]\n/);
    assert.match(help, /\ndiff: did the new build get slower\?[\s\S]*--session <name>[\s\S]*\ndiagnostic server \(docs\/GUIDE\.md/);
  });
  test('bad input: exit 2 and one line', async () => {
    for (const [args, msg] of [
      [[join(tmp, 'nothing'), next], /^wasmtrace diff: base: no file or directory '.*nothing'$/],
      [[tmp, next, '--threshold', 'x'], /^wasmtrace diff: --threshold: 'x'/],
      [[join(base, 'run0.folded'), join(next, 'run0.folded')], /^wasmtrace diff: one run on a side: .* has no sample times \(a folded trace\)/],
    ]) {
      const r = await cli(...args);
      assert.equal(r.status, 2, r.text);
      assert.match(r.text, msg);
    }
    writeFileSync(join(tmp, 'junk.json'), '{"not": "a trace"');
    const r = await cli('--base', join(tmp, 'junk.json'), '--base', join(base, 'run0.folded'), '--new', join(next, 'run0.folded'), '--new', join(next, 'run1.folded'));
    assert.equal(r.status, 2, r.text);
    assert.match(r.text, /^wasmtrace diff: base: .*junk\.json: /);
    const u = await cli(base);
    assert.equal(u.status, 2);
    assert.match(u.text, /diff: give the base and the new traces/);
  });

  // Issue 38, class 1: a run reached twice is one run. Two runs of one
  // build, each given three times (or reached again through links), made
  // a false SLOWER verdict with 50 functions at q < 0.05.
  test('a trace given twice, or reached again through a link, counts once; a copy is said and counts once', async () => {
    const { cpSync, linkSync, mkdirSync, symlinkSync } = await import('node:fs');
    const one = join(tmp, 'one');
    mkdirSync(one);
    write(one, 0, 500);
    write(one, 1, 500);
    const a = join(one, 'run0.folded'), b = join(one, 'run1.folded');
    // Each file three times on the command line: still 2 runs a side.
    const thrice = await cli('--base', a, '--base', a, '--base', b, '--base', b, '--new', b, '--new', a, '--new', b);
    assert.match(thrice.text, /\(2 base runs, 2 new;/);
    // Links in a run directory: run-00 -> ., latest -> run-01, a hard link, a copy.
    const runs = join(tmp, 'runs');
    mkdirSync(join(runs, 'run-01'), { recursive: true });
    write(join(runs, 'run-01'), 0, 500);
    write(runs, 1, 500);
    symlinkSync('.', join(runs, 'run-00'));
    symlinkSync('run-01', join(runs, 'latest'));
    linkSync(join(runs, 'run1.folded'), join(runs, 'hard.folded'));
    cpSync(join(runs, 'run1.folded'), join(runs, 'copy.folded'));
    const r = await cli(runs, one);
    assert.match(r.text, /\(2 base runs, 2 new;/, r.text);
    assert.match(r.text, /wasmtrace diff: base: .*\.folded has the same content as .*\.folded: counted once/);
  });

  // Class 4: names reach neither the terminal nor the Markdown table raw.
  test('function names with control characters are escaped in the text and the Markdown', async () => {
    const { mkdirSync, readFileSync } = await import('node:fs');
    const [b, n] = [join(tmp, 'esc-base'), join(tmp, 'esc-new')];
    mkdirSync(b); mkdirSync(n);
    const evil = 'sort\u001b[2J\u0007\r|slower|'; // (no ';': the folded separator)
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(b, `r${i}.folded`), `main;parse ${1000 + i * 7}\nmain;${evil} ${500 + (i % 2) * 9}\n`);
      writeFileSync(join(n, `r${i}.folded`), `main;parse ${1000 + i * 7}\nmain;${evil} ${800 + (i % 2) * 9}\n`);
    }
    const md = join(tmp, 'esc.md');
    const r = await cli(b, n, '--markdown', md);
    assert.equal(r.status, 1, r.text);
    assert.doesNotMatch(r.text, /[\u0000-\u0009\u000b-\u001f\u007f]/);
    assert.match(r.text, /sort\\x1b\[2J\\x07\\r\|slower\|/);
    const table = readFileSync(md, 'utf8').split('\n').filter((l) => l.startsWith('| slower'));
    assert.ok(table.length >= 1, readFileSync(md, 'utf8'));
    // Every row has the header's 9 cells: the name's '|' are escaped.
    for (const row of table) assert.equal(row.split(/(?<!\\)\|/).length - 2, 9, row);
    assert.doesNotMatch(readFileSync(md, 'utf8'), /[\u0000-\u0009\u000b-\u001f\u007f]/);
  });

  // Class 9: only regular files (a FIFO named *.json blocked forever);
  // class 6: a link to nothing is bad input (2), never "slower" (1).
  test('a FIFO in a run directory is not read; a broken link is named, exit 2', async () => {
    const { mkdirSync, symlinkSync } = await import('node:fs');
    const { execFileSync } = await import('node:child_process');
    const d = join(tmp, 'fifo');
    mkdirSync(d);
    write(d, 0, 500);
    write(d, 1, 500);
    execFileSync('mkfifo', [join(d, 'pipe.json')]);
    const r = await cli(d, d);
    assert.equal(r.status, 0, r.text);
    assert.match(r.text, /\(2 base runs, 2 new;/);
    symlinkSync(join(tmp, 'gone'), join(d, 'broken.folded'));
    const b = await cli(d, d);
    assert.equal(b.status, 2, b.text);
    assert.match(b.text, /^wasmtrace diff: base: '.*broken\.folded': a link to nothing$/);
  });

  // Class 3: an output never overwrites a trace read, whatever name
  // reaches it; class 6: an output that cannot be written is exit 2.
  test('an output path that is an input (or a link to one) is refused; an unwritable one is exit 2', async () => {
    const { readFileSync, symlinkSync } = await import('node:fs');
    const input = join(base, 'run0.folded');
    const before = readFileSync(input, 'utf8');
    const link = join(tmp, 'link-to-run0.json');
    symlinkSync(input, link);
    for (const o of ['--json', '--markdown', '--html']) {
      for (const target of [input, link]) {
        const r = await cli(base, next, o, target);
        assert.equal(r.status, 2, r.text);
        assert.match(r.text, new RegExp(`^wasmtrace diff: ${o}: '.*' is one of the traces read: it is never overwritten$`));
      }
    }
    assert.equal(readFileSync(input, 'utf8'), before);
    const w = await cli(base, next, '--json', join(tmp, 'no-such-dir', 'x.json'));
    assert.equal(w.status, 2, w.text);
    assert.match(w.text, /ENOENT/);
  });
});

describe('the Playwright helper: compare() and assertNotSlower()', () => {
  test('compares collected traces, with the text and Markdown of the command', async () => {
    const { compare: helperCompare, assertNotSlower, WasmtraceError } = await import('../../js/playwright.mjs');
    const slower = helperCompare(runs(5, BASE, 1), runs(5, { ...BASE, layout: 360 }, 2));
    assert.equal(slower.verdict, 'slower');
    assert.match(slower.text, /verdict: SLOWER/);
    assert.match(slower.markdown, /^### wasmtrace diff: 🔴 slower/);
    assert.throws(() => assertNotSlower(slower), (e) => e instanceof WasmtraceError && e.code === 'slower' && /slower +self +layout/.test(e.message));
    // Profiles as readProfile returns them will do too.
    const same = helperCompare(runs(5, BASE, 3).map((r) => r.profile), runs(5, BASE, 4).map((r) => r.profile), { threshold: '20%' });
    assert.doesNotThrow(() => assertNotSlower(same));
  });
  test('bad input is a WasmtraceError with code diff', async () => {
    const { compare: helperCompare, WasmtraceError } = await import('../../js/playwright.mjs');
    assert.throws(() => helperCompare([{ nope: 1 }], runs(2, BASE, 1)), (e) => e instanceof WasmtraceError && e.code === 'diff' && /base\[0\]: not a trace/.test(e.message));
    assert.throws(() => helperCompare('/nonexistent/dir', '/nonexistent/dir2'), (e) => e.code === 'diff' && /no file or directory/.test(e.message));
  });
});

describe('the JS profile\'s threads are their own rows, never in a total (issue 38, class 5)', () => {
  test('"main (JS)" is compared as a thread but adds nothing to the window or to a function', async () => {
    const { runTimes } = await import('../../lib/diff.mjs');
    const { readProfile } = await import('../../lib/profile.mjs');
    // The app's main thread busy 30 samples in parse; the browser's view of
    // the same thread (the JS profile) saw it too, and some JS.
    const p = readProfile('main;parse 30\nmain;(idle) 10\nmain (JS);callMain;parse 28\nmain (JS);js 5\n');
    const { times, threads } = runTimes(p);
    assert.deepEqual(threads, ['main', 'main (JS)']);
    assert.equal(times.get('window'), 30);
    assert.equal(times.get('total\u0000parse'), 30);
    assert.equal(times.get('self\u0000js'), undefined);
    assert.equal(times.get('thread\u0000main'), 30);
    assert.equal(times.get('thread\u0000main (JS)'), 33);
  });
});

describe('a run with too many distinct functions is refused, named (issue 38, class 2)', () => {
  test('past WASMTRACE_DIFF_MAX_FUNCTIONS: one DiffError; under it, compared; untested rows carry no statistics', async () => {
    const { readProfile } = await import('../../lib/profile.mjs');
    const run = (n, k) => ({ file: `r${k}`, profile: readProfile(`${Array.from({ length: n }, (_, i) => `main;f${i} ${1 + ((i + k) % 3)}`).join('\n')}\nmain;hot 5000\n`) });
    const env = process.env.WASMTRACE_DIFF_MAX_FUNCTIONS;
    process.env.WASMTRACE_DIFF_MAX_FUNCTIONS = '100';
    try {
      assert.throws(() => compare([run(150, 0), run(150, 1)], [run(150, 2), run(150, 3)]),
        (e) => e instanceof DiffError && /a run has more than 100 distinct functions/.test(e.message));
      const res = compare([run(50, 0), run(50, 1)], [run(50, 2), run(50, 3)]);
      const untested = res.rows.filter((r) => !r.tested);
      assert.ok(untested.length >= 50, `${untested.length} untested rows`);
      for (const r of untested) assert.deepEqual([r.lo, r.hi, r.p, r.verdict], [null, null, null, 'untested']);
      assert.ok(res.rows.some((r) => r.tested && r.name === 'hot' && Number.isFinite(r.lo)));
      assert.doesNotThrow(() => textDiff(res));
    } finally {
      if (env === undefined) delete process.env.WASMTRACE_DIFF_MAX_FUNCTIONS;
      else process.env.WASMTRACE_DIFF_MAX_FUNCTIONS = env;
    }
  });
});
