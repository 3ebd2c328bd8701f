// The page main thread's long tasks (native/src/rec_longtask.c, the
// observer in js/wasmtrace_startup.js), recorded with `wasmtrace record` in the
// browser under test. In Chromium: the sample's main() (tokenize, ~1 s of
// the main thread) runs in one task, so a long task must enclose the
// timeline's main() span; the tasks are markers on the main thread in the
// firefox trace and X events of category "longtask" on a track of their own
// in the chrome trace (the sample's own "startup" scope begins inside
// main()'s task and ends in a later one: on the main thread's track,
// DevTools would drop one of the two, tests/browser/readers.test.mjs), as
// many as the stats record counts, and `record`'s summary and `report` say
// them. In Firefox, which gives no longtask entries, the stats record and
// the summary say so.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readProfile } from '../../lib/profile.mjs';
import { buildSuffix, wasmBuildDir } from '../lib/build-dir.mjs';
import { listedPaths, paths } from '../lib/stats-list.mjs';
import { browserSuffix, inFirefox, recordArgs, testBrowser } from '../lib/test-browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/wasmtrace.mjs');
const out = join(root, `build/longtask${buildSuffix}${browserSuffix}`);

function cli(...args) {
  return new Promise((ok) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => ok({ status: error ? error.code ?? 1 : 0, stdout, stderr, all: `${stdout}\n${stderr}` }));
  });
}
const record = (...args) => cli('record', ...args, ...recordArgs);

const json = (file) => JSON.parse(gunzipSync(readFileSync(file)).toString('utf8'));

describe(`long tasks of the page's main thread in ${testBrowser} (${wasmBuildDir})`, () => {
  let r, chrome, firefox, chromeEvents, ff;
  before(async () => {
    const config = JSON.stringify({ sessions: [
      { name: 'lt-chrome', durationMs: 60000, format: 'chrome' },
      { name: 'lt-firefox', durationMs: 60000, format: 'firefox' },
    ] });
    r = await record(join(wasmBuildDir, 'samples/startup'), '--config', config, '--wait-for',
      'window.sampleStartupComplete === true', '--out', out, '--load-timeout', '120s', '--timeout', '120s');
    assert.equal(r.status, 0, r.all);
    chromeEvents = json(join(out, 'lt-chrome.json.gz'));
    chrome = readProfile(readFileSync(join(out, 'lt-chrome.json.gz')));
    ff = json(join(out, 'lt-firefox.json.gz'));
    firefox = readProfile(readFileSync(join(out, 'lt-firefox.json.gz')));
  });

  // Counters from one list: the recorders' members of a real trace (the
  // startup timeline's, the long tasks') are in native/src/stats_list.h.
  // (The chrome trace's wasmtrace_stats is the record alone; the firefox
  // format's meta.wasmtrace has the session's settings beside it.)
  test('every member of the stats record is listed in stats_list.h', () => {
    const listed = listedPaths();
    // (a listed member that is an object, e.g. recordedWith.prefs, covers its keys)
    const covered = (path) => path.split('.').some((_, i, parts) => listed.has(parts.slice(0, i + 1).join('.')));
    for (const path of paths(chrome.stats)) assert.ok(covered(path), `${path} is not in stats_list.h`);
  });

  if (inFirefox) {
    test('the stats record and the summary say that Firefox gives none', () => {
      for (const p of [chrome, firefox]) {
        assert.equal(p.longTasks?.observed, false, JSON.stringify(p.stats?.longTasks));
        assert.match(p.longTasks.reason, /no longtask entries/);
      }
      assert.match(r.stdout, /session 'lt-chrome'(.*\n)*? {2}long tasks \(page main thread\): not observed: this browser gives no longtask entries/);
      assert.ok(!chromeEvents.some((e) => e.cat === 'longtask'), 'no long task spans');
    });
    return;
  }

  test('a long task encloses main(), and the stats record counts every task the trace has', () => {
    for (const p of [chrome, firefox]) {
      const lt = p.longTasks;
      assert.ok(lt?.observed, `${p.format}: ${JSON.stringify(p.stats?.longTasks)}`);
      assert.ok(lt.count >= 1 && lt.longestUs >= 50000 && lt.totalUs >= lt.longestUs, JSON.stringify(lt));
      assert.equal(lt.dropped, 0);
    }
    assert.deepEqual(firefox.longTasks, chrome.longTasks, 'both sessions saw the same tasks');
    const main = chrome.startup?.phases.find((x) => x.kind === 'span' && x.name === 'main()');
    assert.ok(main, 'the timeline has main()');
    const tasks = chromeEvents.filter((e) => e.ph === 'X' && e.cat === 'longtask');
    assert.equal(tasks.length, chrome.longTasks.count);
    // (a long task's duration is whole milliseconds: its end may be up to 1 ms early)
    assert.ok(tasks.some((e) => e.ts <= main.begin + 1000 && e.ts + e.dur >= main.end - 1000),
      `no long task encloses main() (${main.begin}-${main.end} us): ${JSON.stringify(tasks.map((e) => [e.ts, e.dur]))}`);
  });

  test('they are markers on the main thread in the firefox format, a track of their own in the chrome format, not scopes', () => {
    const names = new Map(chromeEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, e.args.name]));
    for (const e of chromeEvents.filter((x) => x.cat === 'longtask')) {
      assert.equal(names.get(e.tid), 'Long tasks (main thread)', `a long task on tid ${e.tid} (${names.get(e.tid)})`);
      assert.equal(e.name, 'long task');
    }
    const thread = ff.threads.find((t) => t.name === 'main');
    const m = thread.markers;
    const lt = ff.meta.categories.findIndex((c) => c.name === 'Long tasks (main thread)');
    const marked = m.data.filter((d, i) => d?.category === 'longtask' && m.category[i] === lt && m.phase[i] === 1);
    assert.equal(marked.length, chrome.longTasks.count);
    assert.ok(ff.threads.every((t) => t === thread || !t.markers.data.some((d) => d?.category === 'longtask')), 'on the main thread only');
    for (const p of [chrome, firefox]) {
      assert.ok(!p.threads.some((t) => t.scopes.some((s) => s.cat === 'longtask' || s.name === 'long task')), 'read as scopes');
    }
  });

  test("record's summary and report say them", async () => {
    const { count } = chrome.longTasks;
    assert.match(r.stdout, new RegExp(`session 'lt-chrome'(.*\\n)*? {2}long tasks \\(page main thread\\): ${count}, [\\d.,]+ ms in all, longest [\\d.,]+ ms`));
    const rep = await cli('report', join(out, 'lt-firefox.json.gz'));
    assert.equal(rep.status, 0, rep.all);
    assert.match(rep.stdout, new RegExp(`\\nlong tasks \\(page main thread\\): ${count}, [\\d.,]+ ms in all, longest [\\d.,]+ ms\\n`));
  });
});
