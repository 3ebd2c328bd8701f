// Exact call counts (native/src/calls.h, rec_calls.c): what an instrumented
// build counted, per thread and function, as the "calls" member of the
// trace's stats record. A count has no noise: two runs of the same work
// count the same. So `diff` compares counts exactly, beside the time
// verdict: a count that is the same in every base run, the same in every
// new run and differs between them is a change, stated with no statistics;
// a count that differs between runs of one side is work that is not the
// same from run to run (a frame loop, a timer), and says nothing.
import { canonicalFunctionName } from './names.mjs';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null);
// A hostile trace cannot make a reader hold more than this.
const MAX_THREADS = 256;
const MAX_FUNCTIONS = 1 << 17;

/**
 * The counts of a stats record, or null when it has none (a build without
 * -finstrument-functions, a trace from before counts): { since, threads:
 * [{ name, functions: Map(name -> calls), notCounted }] }. Entries that
 * are not a name and a count are left out (and counted in `malformed`).
 */
export function callsOf(stats) {
  const c = isObject(stats) ? stats.calls : undefined;
  if (!isObject(c) || !Array.isArray(c.threads)) return null;
  let malformed = 0;
  let functions = 0;
  const threads = [];
  for (const t of c.threads.slice(0, MAX_THREADS)) {
    if (!isObject(t) || typeof t.name !== 'string' || !Array.isArray(t.functions)) {
      malformed++;
      continue;
    }
    const byName = new Map();
    for (const f of t.functions) {
      if (functions >= MAX_FUNCTIONS) break;
      if (!Array.isArray(f) || typeof f[0] !== 'string' || count(f[1]) === null) {
        malformed++;
        continue;
      }
      functions++;
      const name = canonicalFunctionName(f[0]);
      byName.set(name, (byName.get(name) ?? 0) + f[1]);
    }
    threads.push({ name: t.name.slice(0, 200), functions: byName, notCounted: count(t.notCounted) ?? 0 });
  }
  return { since: typeof c.since === 'string' ? c.since.slice(0, 40) : 'threadStart', threads, malformed };
}

/** Calls per function, summed over the threads. */
export function callsByFunction(calls) {
  const out = new Map();
  for (const t of calls?.threads ?? []) for (const [name, n] of t.functions) out.set(name, (out.get(name) ?? 0) + n);
  return out;
}

const int = (n) => n.toLocaleString('en-US');

/** One line for `record`'s summary, or null. */
export function callSummary(calls) {
  if (!calls) return null;
  const by = callsByFunction(calls);
  let total = 0;
  for (const n of by.values()) total += n;
  const lost = calls.threads.reduce((s, t) => s + t.notCounted, 0);
  return `${int(total)} in ${int(by.size)} function${by.size === 1 ? '' : 's'} on ${calls.threads.length} thread${calls.threads.length === 1 ? '' : 's'}` +
    `${lost ? `; ${int(lost)} not counted (table past its limit or refused)` : ''}`;
}

/** `report`'s lines: the most called functions. */
export function callReport(calls, { printable, top = 10 }) {
  if (!calls) return [];
  const rows = [...callsByFunction(calls)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, top);
  if (!rows.length) return [];
  const w = Math.max(...rows.map(([, n]) => int(n).length));
  return ['', `calls (exact, since each thread's first instrumented call): ${callSummary(calls)}`,
    ...rows.map(([name, n]) => `  ${int(n).padStart(w)}  ${printable(name)}`)];
}

/**
 * Counts of two sides' runs, per function (summed over threads):
 * null when a run of either side has no counts. Each row: { name,
 * baseRuns, newRuns, verdict }: 'changed' (each side the same in all its
 * runs, the sides different), 'same', or 'varies' (runs of a side differ).
 * A function a run did not count has 0 calls there.
 */
export function compareCalls(baseProfiles, newProfiles) {
  const sides = [baseProfiles, newProfiles].map((ps) => ps.map((p) => (p.calls ? callsByFunction(p.calls) : null)));
  if (sides.some((runs) => !runs.length || runs.some((r) => r === null))) return null;
  const names = new Set();
  for (const runs of sides) for (const r of runs) for (const name of r.keys()) names.add(name);
  const rows = [];
  const same = (xs) => xs.every((x) => x === xs[0]);
  for (const name of names) {
    const [baseRuns, newRuns] = sides.map((runs) => runs.map((r) => r.get(name) ?? 0));
    const verdict = !same(baseRuns) || !same(newRuns) ? 'varies' : baseRuns[0] === newRuns[0] ? 'same' : 'changed';
    rows.push({ name, baseRuns, newRuns, verdict });
  }
  const order = { changed: 0, varies: 1, same: 2 };
  rows.sort((a, b) => order[a.verdict] - order[b.verdict] || Math.abs(b.newRuns[0] - b.baseRuns[0]) - Math.abs(a.newRuns[0] - a.baseRuns[0]) || (a.name < b.name ? -1 : 1));
  const n = (v) => rows.filter((r) => r.verdict === v).length;
  return { rows, changed: n('changed'), same: n('same'), varies: n('varies') };
}

/**
 * diff's lines on the counts: how many changed, and the changed ones
 * beside their time verdict (`timeOf(name)`: the total-time row, or null).
 */
export function callDiffLines(cmp, { printable, timeOf, top = 10 }) {
  if (!cmp) return [];
  const lines = [`  call counts (exact): ${cmp.changed} changed, ${cmp.same} the same, ${cmp.varies} vary from run to run (not compared)`];
  for (const r of cmp.rows.filter((x) => x.verdict === 'changed').slice(0, top)) {
    const [a, b] = [r.baseRuns[0], r.newRuns[0]];
    const ratio = a ? ` (x${(b / a).toFixed(2)})` : '';
    const t = timeOf(r.name);
    lines.push(`    ${printable(r.name)}: ${int(a)} -> ${int(b)} calls${ratio}${t ? `; its total time: ${t}` : ''}`);
  }
  return lines;
}
