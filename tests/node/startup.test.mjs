// The startup timeline's readers (lib/profile.mjs startupOf, lib/startup.mjs):
// hostile records are read without throwing, the coverage is exact on
// hand-computed cases, and the summary names what a reader asks for first.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startupOf } from '../../lib/profile.mjs';
import { startupCoverage, startupMoments, startupSummary, startupWaterfall } from '../../lib/startup.mjs';

const span = (name, b, e, bytes) => ({ name, kind: 'span', beginUs: b * 1000, endUs: e * 1000, ...(bytes ? { bytes } : {}) });
const instant = (name, t) => ({ name, kind: 'instant', beginUs: t * 1000, endUs: t * 1000 });

describe('startupOf', () => {
  test('reads the stats record\'s list, sorted by begin, times in microseconds', () => {
    const t = startupOf({ startup: { phases: [span('b', 20, 30), span('a', 10, 40, 512), instant('ready', 50)], dropped: 1 } });
    assert.deepEqual(t.phases.map((p) => p.name), ['a', 'b', 'ready']);
    assert.equal(t.phases[0].begin, 10000);
    assert.equal(t.phases[0].bytes, 512);
    assert.equal(t.phases[1].bytes, null);
    assert.equal(t.dropped, 1);
  });

  test('null without a timeline; malformed phases are counted, never thrown', () => {
    for (const stats of [null, undefined, 7, {}, { startup: null }, { startup: { phases: 'x' } }, { startup: [] }]) {
      assert.equal(startupOf(stats), null);
    }
    const bad = [null, 3, {}, { name: 1, kind: 'span', beginUs: 0, endUs: 1 }, { name: 'x', kind: 'bogus', beginUs: 0, endUs: 1 },
      { name: 'x', kind: 'span', beginUs: 5, endUs: 1 }, { name: 'x', kind: 'span', beginUs: NaN, endUs: 1 },
      { name: 'x', kind: 'span', beginUs: 0, endUs: Infinity }, { name: 'ok', kind: 'span', beginUs: 0, endUs: 1, bytes: -5 }];
    const t = startupOf({ startup: { phases: bad, dropped: 'many' } });
    assert.deepEqual(t.phases.map((p) => p.name), ['ok']);
    assert.equal(t.phases[0].bytes, null);
    assert.equal(t.dropped, bad.length - 1);
  });

  test('a huge list is cut, and what was cut is counted', () => {
    const phases = Array.from({ length: 5000 }, (_, i) => instant(`m${i}`, i));
    const t = startupOf({ startup: { phases, dropped: 0 } });
    assert.equal(t.phases.length, 4096);
    assert.equal(t.dropped, 5000 - 4096);
  });
});

describe('startup coverage', () => {
  const timeline = (phases) => startupOf({ startup: { phases, dropped: 0 } });

  test('is the share of [0, main()] under the union of the spans', () => {
    // 0-20 and 10-30 overlap (0-30 covered), 50-60 covered, 30-50 and 60-100 not.
    const t = timeline([span('a', 0, 20), span('b', 10, 30), span('c', 50, 60), instant('main() starts', 100)]);
    assert.equal(startupCoverage(t), 0.4);
    assert.equal(startupMoments(t).main, 100000);
  });

  test('spans after main() count only up to it; instants and notes never', () => {
    const t = timeline([span('a', 0, 150), instant('x', 10), { name: 'n', kind: 'note', beginUs: 0, endUs: 0 },
      instant('main() starts', 100)]);
    assert.equal(startupCoverage(t), 1);
    assert.equal(startupCoverage(timeline([span('a', 0, 10)])), null); // no main(): no base
  });
});

describe('startup summary and waterfall', () => {
  const t = startupOf({ startup: { phases: [
    span('fetch app.wasm', 100, 220, 250000), span('compile + instantiate (streaming)', 150, 230),
    span('worker 1 load', 90, 300), instant('worker 1 ready', 300), span('worker 2 load', 90, 390), instant('worker 2 ready', 390),
    span('wasmtrace worker load', 400, 440), instant('wasmtrace worker ready', 440), instant('main() starts', 446.4),
    instant('worker 3 ready', 900), instant('ready', 1540.2), { name: 'no PerformanceObserver', kind: 'note', beginUs: 5000, endUs: 5000 },
  ], dropped: 0 } });

  test('names the wasm fetch, the compile, the pool workers ready before main(), main() and ready', () => {
    assert.equal(startupSummary(t), 'fetch app.wasm 120 ms, compile + instantiate (streaming) 80 ms, 2 workers ready at 390 ms, ' +
      'main() at 446 ms, ready at 1,540 ms, 1 note (wasmtrace report lists them)');
    assert.equal(startupSummary(null), null);
  });

  test('draws one row per span and instant on one scale, then the notes', () => {
    const rows = startupWaterfall(t, { width: 20 });
    assert.match(rows[0], /^startup, from navigation start/);
    const fetch = rows.find((r) => r.includes('fetch app.wasm'));
    assert.match(fetch, /100-220 ms\s+120 ms\s+\[ *#+ *\]\s+fetch app\.wasm \(244\.1 KiB\)/);
    assert.match(rows.find((r) => /\]  ready$/.test(r)), /1,540 ms\s+\[ *\| *\]/);
    assert.match(rows.at(-1), /^ {2}note at 5\.0 ms: no PerformanceObserver$/);
    // The bar of a span lies where its times put it on the scale.
    const bar = fetch.slice(fetch.indexOf('[') + 1, fetch.indexOf(']'));
    assert.equal(bar.length, 20);
    assert.ok(bar.indexOf('#') <= 2 && bar.lastIndexOf('#') < 5, bar);
  });
});

describe('startup assertions (wasmtrace/playwright)', async () => {
  const { assertStartupBefore, startupAt } = await import('../../js/trace-assertions.mjs');
  const profile = {
    startup: startupOf({ startup: { phases: [span('fetch app.wasm', 100, 220), instant('main() starts', 446.4), instant('ready', 1540)], dropped: 0 } }),
  };

  test('startupAt: main() is its entry, a mark its instant, a span its end', () => {
    assert.equal(startupAt(profile, 'main()'), 446.4);
    assert.equal(startupAt(profile, 'ready'), 1540);
    assert.equal(startupAt(profile, 'fetch app.wasm'), 220);
  });

  test('assertStartupBefore passes under the bound and says how late it came otherwise', () => {
    assert.equal(assertStartupBefore(profile, 'ready', 2000), 1540);
    assert.throws(() => assertStartupBefore(profile, 'ready', 1000),
      (e) => e.code === 'assert-startup' && /expected 'ready' before 1000 ms after navigation start, it came at 1540\.0 ms/.test(e.message));
  });

  test('no timeline, or no such phase: a clear error that lists what there is', () => {
    assert.throws(() => startupAt({ startup: null }, 'ready'), (e) => e.code === 'no-startup' && /no startup timeline/.test(e.message));
    assert.throws(() => startupAt(profile, 'painted'), (e) => e.code === 'no-startup' && /phases: fetch app\.wasm, main\(\) starts, ready/.test(e.message));
  });
});

describe('reports of a trace whose timeline is empty (a session started after main())', async () => {
  const { textReport, htmlReport } = await import('../../lib/report.mjs');
  const profile = { format: 'chrome', session: null, intervalUs: 1000, stats: null, threads: [], startup: { phases: [], dropped: 2 } };

  test('say nothing of a startup', () => {
    assert.doesNotMatch(textReport(profile), /startup|null/);
    assert.doesNotMatch(htmlReport(profile), /id="startup"|>null</);
  });
});

// The recorders' readers on the Node side are one list (lib/recorders.mjs):
// readProfile fills every listed field from the stats record in every
// format, record's summary and report print each entry's lines, and no
// other module reads a recorder's member itself.
describe('lib/recorders.mjs: one list of the recorders\' readers', async () => {
  const { RECORDERS, recordedFields, recorderSummaries } = await import('../../lib/recorders.mjs');
  const { readProfile } = await import('../../lib/profile.mjs');
  const { printable } = await import('../../lib/report.mjs');
  const stats = {
    samplesTaken: 1,
    startup: { phases: [span('fetch app.wasm', 10, 40, 512), instant('main() starts', 50)], dropped: 0 },
    longTasks: { observed: true, count: 2, totalUs: 180000, longestUs: 120000, dropped: 0 },
  };
  test('readProfile carries every listed field, whatever the format', () => {
    const chrome = readProfile(JSON.stringify({ traceEvents: [{ ph: 'M', name: 'wasmtrace_stats', pid: 1, tid: 1, args: stats }] }));
    const folded = readProfile(`# wasmtrace ${JSON.stringify({ intervalUs: 1000, stats })}\nmain;f 3\n`);
    for (const p of [chrome, folded]) {
      for (const r of RECORDERS.filter((x) => x.key)) assert.deepEqual(p[r.key], r.of(stats), `${p.format}: ${r.key}`);
    }
    assert.equal(chrome.longTasks.count, 2);
    assert.equal(chrome.startup.phases.length, 2);
  });
  test('the summary has one line per recorder with something to say, in the list\'s order; hostile members say nothing', () => {
    const lines = recorderSummaries({ format: 'chrome', stats, ...recordedFields(stats) });
    assert.deepEqual(lines.map((l) => l.split(':')[0]), ['startup', 'long tasks (page main thread)']);
    for (const bad of [null, 7, 'x', [], { startup: 'x', longTasks: [], heap: 3 }]) {
      assert.deepEqual(recorderSummaries({ format: 'chrome', stats: bad, ...recordedFields(bad) }), [], JSON.stringify(bad));
    }
    const withHeap = recorderSummaries({ format: 'chrome', stats: { heap: { linked: false } } });
    assert.match(withHeap[0], /^heap: nothing recorded/);
    const reported = RECORDERS.flatMap((r) => r.report({ format: 'chrome', stats, ...recordedFields(stats) }, { printable }));
    assert.ok(reported.some((l) => /^startup: /.test(l)) && reported.some((l) => /^long tasks \(page main thread\): 2, /.test(l)), reported.join('\n'));
  });
  test('only lib/recorders.mjs (and the readers\' own modules) reads a recorder\'s member', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = new URL('../../lib/', import.meta.url);
    const files = [...readdirSync(dir).map((f) => f), ...readdirSync(new URL('commands/', dir)).map((f) => `commands/${f}`)]
      .filter((f) => f.endsWith('.mjs') && !['recorders.mjs', 'startup.mjs', 'index.mjs', 'profile.mjs'].includes(f));
    for (const f of files) {
      const text = readFileSync(new URL(f, dir), 'utf8');
      assert.doesNotMatch(text, /\b(startupOf|longTasksOf|longTaskSummary)\(/, `lib/${f} reads a recorder's member itself: add it to lib/recorders.mjs`);
    }
  });
});
