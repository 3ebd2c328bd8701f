// The readers of what wasmtrace's recorders (native/src/recorders.c) write
// beside the samples: one entry per kind of data, the one place that lists
// them on the Node side. Each entry:
//   key          its field of readProfile()'s result (and of index.d.ts's
//                Profile), or null when the profile carries none of its own
//   of(stats)    reads its member of the trace's stats record (any JSON
//                value: a hostile trace is read as none), or absent
//   summary(p)   one line for `record`'s summary, or null
//   report(p, o) the lines `report` prints, or [] (o.printable cleans names)
// readProfile, `record` and `report` loop over this list: a new kind of data
// is its reader module and one entry here.
import { callReport, callSummary, callsOf } from './calls.mjs';
import { heapNote } from './heap.mjs';
import { longTasksOf, longTaskSummary, startupOf, startupSummary, startupWaterfall } from './startup.mjs';

const LONG_TASKS = 'long tasks (page main thread)';

export const RECORDERS = [
  // Sampled allocations: the profile's heap comes from the trace's events
  // (lib/heap.mjs reads them); the stats member says what the session kept.
  { key: null, summary: (p) => heapNote(p), report: () => [] },
  {
    key: 'startup',
    of: startupOf,
    summary: (p) => {
      const s = startupSummary(p?.startup);
      return s ? `startup: ${s}` : null;
    },
    report: (p, { printable }) => (p.startup?.phases.length
      ? ['', `startup: ${startupSummary(p.startup)}`, ...startupWaterfall(p.startup, { printable })]
      : []),
  },
  {
    key: 'longTasks',
    of: longTasksOf,
    summary: (p) => {
      const s = longTaskSummary(p?.longTasks ?? null);
      return s ? `${LONG_TASKS}: ${s}` : null;
    },
    report: (p, { printable }) => {
      const s = longTaskSummary(p.longTasks ?? null);
      return s ? [`${LONG_TASKS}: ${printable(s)}`] : [];
    },
  },
  {
    key: 'calls',
    of: callsOf,
    summary: (p) => {
      const s = callSummary(p?.calls ?? null);
      return s ? `calls counted (exact): ${s}` : null;
    },
    report: (p, { printable }) => callReport(p.calls ?? null, { printable }),
  },
];

/** Every recorder's field of a profile, read from its stats record. */
export function recordedFields(stats) {
  const out = {};
  for (const r of RECORDERS) if (r.key && r.of) out[r.key] = r.of(stats);
  return out;
}

/** The summary lines of every recorder that has something to say. */
export function recorderSummaries(profile) {
  return RECORDERS.map((r) => r.summary(profile)).filter((l) => typeof l === 'string' && l);
}
