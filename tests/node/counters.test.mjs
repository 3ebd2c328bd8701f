// Every counter is listed once, in native/src/stats_list.h; what C cannot
// derive from that list is checked against it here: the public struct, the
// shim's stats() keys and their order, the .d.ts, the stats record of the
// golden traces (which tests/native/test_encoders.c compares with what the
// encoders write), and the CLI's record summary and report. A counter added
// to the list and not to one of these (or the other way round) fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { paths, readList, SHOWN, statsTable } from '../lib/stats-list.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f) => readFileSync(join(root, f), 'utf8');

const list = readList();


test('the list has the counters session.stats() has always had, in their order', () => {
  // Users and readers depend on these names: the list may grow, never rename.
  assert.deepEqual(list.stats.slice(0, 16).map((s) => s.js), ['samplesTaken', 'samplesWritten', 'samplesDropped',
    'samplesDroppedBufferFull', 'samplesDroppedTornStack', 'eventsWritten', 'eventsDropped', 'ticksMissed',
    'bytesEncoded', 'bytesWritten', 'threads', 'bufferHighWaterBytes', 'threadsRefused', 'threadsLimit',
    'samplesPartial', 'samplesWaiting']);
  for (const key of ['js', 'field']) {
    const names = list.stats.map((s) => s[key]);
    assert.equal(new Set(names).size, names.length, `a ${key} name listed twice`);
  }
  const traces = [...list.stats.map((s) => s.trace).filter(Boolean), ...list.trace.map((s) => s.trace)];
  assert.equal(new Set(traces).size, traces.length, 'a trace path listed twice');
});

test("wt_session_stats (wasmtrace.h) has the list's members, in its order, with its types", () => {
  const header = read('native/include/wasmtrace/wasmtrace.h');
  const struct = /typedef struct wt_session_stats \{([\s\S]*?)\} wt_session_stats;/.exec(header);
  assert.ok(struct, 'no wt_session_stats in wasmtrace.h');
  const code = struct[1].replace(/\/\*[\s\S]*?\*\//g, '');
  const members = [...code.matchAll(/(\w+)\s+(\w+)\s*;/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(members, list.stats.map((s) => `${s.type} ${s.field}`));
});

test("the shim's stats() keys are the list's, in its order (wt_js_session_stats fills them so)", () => {
  const post = read('js/wasmtrace_post.js');
  const m = /var STAT_KEYS = \[([^\]]*)\]/.exec(post);
  assert.ok(m, 'no STAT_KEYS in js/wasmtrace_post.js');
  const keys = [...m[1].matchAll(/'(\w+)'/g)].map((k) => k[1]);
  assert.deepEqual(keys, list.stats.map((s) => s.js));
  assert.match(read('native/src/js_exports.c'), /WT_STATS\(WT_I_STAT_OUT, WT_I_STAT_NONE\)/,
    'wt_js_session_stats no longer derives its array from the list');
});

test('WasmtraceStats (js/wasmtrace.d.ts) declares exactly the listed counters', () => {
  const dts = read('js/wasmtrace.d.ts');
  const m = /export interface WasmtraceStats \{([\s\S]*?)\n\}/.exec(dts);
  assert.ok(m, 'no WasmtraceStats in js/wasmtrace.d.ts');
  const keys = [...m[1].replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/(\w+)\s*:\s*number;/g)].map((k) => k[1]);
  assert.deepEqual(keys.sort(), list.stats.map((s) => s.js).sort());
});

// The stats record of a trace: the members wt_encode_write_stats writes,
// from "samplesTaken" to the end of the object that holds them.
function statsRecord(text) {
  const at = text.indexOf('"samplesTaken":');
  assert.ok(at >= 0, 'no stats record');
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && depth-- === 0) return JSON.parse(`{${text.slice(at, i)}}`);
  }
  throw new Error('unterminated stats record');
}
const has = (obj, path) => path.split('.').reduce((o, k) => (o && typeof o === 'object' && k in o ? o[k] : undefined), obj) !== undefined;

test("every format's stats record (the golden traces) states the listed trace fields and no others", () => {
  const always = [...list.stats, ...list.trace].filter((s) => s.trace && !(s.shown & SHOWN.WT_SHOWN_SOMETIMES)).map((s) => s.trace);
  const all = new Set([...list.stats, ...list.trace].map((s) => s.trace).filter(Boolean));
  for (const file of ['tests/golden/chrome.json', 'tests/golden/firefox.json', 'tests/golden/folded.txt']) {
    const record = statsRecord(read(file));
    for (const p of always) assert.ok(has(record, p), `${file}: its stats record has no ${p}`);
    for (const p of paths(record)) assert.ok(all.has(p), `${file}: ${p} is in the stats record, not in stats_list.h`);
  }
});

// The text of one function of a file (from its declaration to the next
// top-level declaration).
function fn(text, name) {
  const at = text.search(new RegExp(`^(export )?function ${name}\\(`, 'm'));
  assert.ok(at >= 0, `no function ${name}`);
  const next = text.slice(at + 1).search(/^(export )?(async )?function |^const |^\/\*\*/m);
  return next < 0 ? text.slice(at) : text.slice(at, at + 1 + next);
}
const leaf = (path) => path.split('.').pop();

test("`wasmtrace record`'s summary prints the counters listed for it, and reads no unlisted one", () => {
  const cli = read('lib/commands/record.mjs');
  const summary = fn(cli, 'summarizeSession') + fn(cli, 'limitNotes');
  // The live stats (st, l), and the progress lines (s.stats).
  const used = new Set([...cli.matchAll(/\b(?:st|l|s\.stats)\.(\w+)/g)].map((m) => m[1]));
  for (const s of list.stats.filter((c) => c.shown & SHOWN.WT_SHOWN_RECORD)) {
    assert.ok(used.has(s.js), `lib/commands/record.mjs: the record summary does not print ${s.js}`);
  }
  const known = new Set(list.stats.map((s) => s.js));
  for (const name of [...summary.matchAll(/\b(?:st|l)\.(\w+)/g)].map((m) => m[1])) {
    assert.ok(known.has(name), `lib/commands/record.mjs reads stats().${name}, which stats_list.h does not list`);
  }
});

test('`wasmtrace report` prints the trace fields listed for it, and reads no unlisted one', () => {
  const cli = read('lib/commands/record.mjs');
  const report = fn(read('lib/report.mjs'), 'describeDrops') + fn(cli, 'limitNotes');
  const used = new Set([...report.matchAll(/\b(?:s|d)\.(\w+)/g)].map((m) => m[1]));
  const entries = [...list.stats, ...list.trace].filter((c) => c.trace);
  for (const c of entries.filter((e) => e.shown & SHOWN.WT_SHOWN_REPORT)) {
    assert.ok(used.has(leaf(c.trace)), `wasmtrace report does not print the trace's ${c.trace}`);
  }
  const known = new Set([...entries.map((c) => leaf(c.trace)), 'dropped',
    // limitNotes reads the live stats as well (l.*): their names.
    ...list.stats.map((s) => s.js)]);
  for (const name of used) assert.ok(known.has(name), `wasmtrace report reads ${name}, which stats_list.h does not list`);
});

test("docs/REFERENCE.md's table of counters is the list's (node scripts/stats-table.mjs writes it)", () => {
  const doc = read('docs/REFERENCE.md');
  const at = doc.indexOf('<!-- stats table: generated by scripts/stats-table.mjs');
  assert.ok(at >= 0, 'no stats table in docs/REFERENCE.md');
  const body = doc.slice(doc.indexOf('\n', at) + 1, doc.indexOf('<!-- end of stats table -->'));
  assert.equal(body.trimEnd(), statsTable());
});
