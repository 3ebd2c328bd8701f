// native/src/stats_list.h read from JS (a header JS cannot include): every
// counter of session.stats() and every path of the trace's stats record,
// for the tests that check the shim, the .d.ts, the CLI and real traces
// against it (tests/node/counters.test.mjs, tests/browser/longtask.test.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const SHOWN = { WT_SHOWN_RECORD: 1, WT_SHOWN_REPORT: 2, WT_SHOWN_SOMETIMES: 4 };
const flags = (text) => text.split('|').map((t) => t.trim()).reduce((f, t) => {
  if (t === '0') return f;
  assert.ok(t in SHOWN, `stats_list.h: unknown flag ${t}`);
  return f | SHOWN[t];
}, 0);

/** Adjacent C string literals ("a" "b") as one string, escapes undone. */
const cString = (text) => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1')).join('');

/** The list: {stats: [{field, type, js, trace, shown, doc}], trace: [{trace, shown, doc}]}. */
export function readList() {
  const text = readFileSync(join(root, 'native/src/stats_list.h'), 'utf8');
  const start = text.indexOf('#define WT_STATS(');
  assert.ok(start >= 0, 'no WT_STATS list in native/src/stats_list.h');
  let body = '';
  for (const line of text.slice(start).split('\n').slice(1)) {
    body += line.replace(/\\\s*$/, '') + '\n';
    if (!/\\\s*$/.test(line)) break;
  }
  const str = '((?:"(?:[^"\\\\]|\\\\.)*"\\s*)+)';
  const stats = [...body.matchAll(new RegExp(`\\bWT_STAT\\(\\s*(\\w+),\\s*(\\w+),\\s*"(\\w+)",\\s*"([\\w.]*)",\\s*([\\w|\\s]+?),\\s*${str}\\)`, 'g'))]
    .map((m) => ({ field: m[1], type: m[2], js: m[3], trace: m[4], shown: flags(m[5]), doc: cString(m[6]) }));
  const trace = [...body.matchAll(new RegExp(`\\bWT_TRACE_STAT\\(\\s*"([\\w.]+)",\\s*([\\w|\\s]+?),\\s*${str}\\)`, 'g'))]
    .map((m) => ({ trace: m[1], shown: flags(m[2]), doc: cString(m[3]) }));
  // Every entry was read (a malformed one would silently vanish).
  assert.equal(stats.length, (body.match(/\bWT_STAT\(/g) || []).length, 'an unreadable WT_STAT entry');
  assert.equal(trace.length, (body.match(/\bWT_TRACE_STAT\(/g) || []).length, 'an unreadable WT_TRACE_STAT entry');
  return { stats, trace };
}


/** Every trace path the list has (a stats record's member, "a.b" for nested ones). */
export function listedPaths() {
  const list = readList();
  return new Set([...list.stats, ...list.trace].map((s) => s.trace).filter(Boolean));
}

/** The paths of a stats record's members: "a.b" for nested objects, arrays as leaves. */
export const paths = (obj, prefix = '') => Object.entries(obj).flatMap(([k, v]) =>
  (v && typeof v === 'object' && !Array.isArray(v) ? paths(v, `${prefix}${k}.`) : [`${prefix}${k}`]));

/**
 * The docs' table of every counter and stats-record member, generated from
 * the list (docs/REFERENCE.md holds it between its two markers;
 * `node scripts/stats-table.mjs` prints it).
 */
export function statsTable() {
  const list = readList();
  const cell = (t) => t.replace(/\|/g, '\\|');
  const rows = [
    ...list.stats.map((s) => `| \`${s.js}\` | ${s.trace ? `\`${s.trace}\`` : '-'} | ${cell(s.doc)} |`),
    ...list.trace.map((s) => `| - | \`${s.trace}\` | ${cell(s.doc)} |`),
  ];
  return ['| `stats()` key | stats record | what it counts |', '|---|---|---|', ...rows].join('\n');
}
