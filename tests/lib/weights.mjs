// How time-weighted readers (speedscope on Chrome traces, DevTools'
// Bottom-Up) weigh our samples, and how to compare their rankings with ours.
// Shared by readers.test.mjs and formats.test.mjs.
import assert from 'node:assert/strict';

export const isIdle = (name) => name === '(idle)' || name === '(root)';

/**
 * Self time per leaf function the way a time-weighted reader computes it
 * from our samples: each sample lasts until the next one of its thread (the
 * last one weighs 0), idle samples count for nobody. Descending.
 */
export function timeWeightedSelf(thread) {
  const self = new Map();
  const s = thread.samples;
  for (let i = 0; i + 1 < s.length; i++) {
    const leaf = s[i].stack.at(-1);
    if (!leaf || isIdle(leaf)) continue;
    self.set(leaf, (self.get(leaf) || 0) + (s[i + 1].ts - s[i].ts));
  }
  return [...self.entries()].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1]);
}

/**
 * The reader's top names must be ours, in order: ours' top n that stand out
 * of the reader's noise (value > tol), where functions whose values in
 * `ours` differ by at most `tol` may trade places. Both lists: [name, value]
 * descending, same unit.
 */
export function assertSameTop(reader, ours, n, tol, label) {
  const ov = new Map(ours);
  const o = ours.filter(([k, v]) => !isIdle(k) && v > tol).slice(0, n);
  const r = reader.filter(([k]) => !isIdle(k)).slice(0, o.length);
  const show = (l) => l.map(([k, v]) => `${k}=${Math.round(v)}`).join(', ');
  const msg = `${label}: reader top [${show(reader.slice(0, n))}] vs ours [${show(ours.slice(0, n))}] (tolerance ${Math.round(tol)})`;
  assert.ok(o.length > 0, `${msg}: no function stands out`);
  assert.equal(r.length, o.length, msg);
  r.forEach(([name], i) => {
    assert.ok(ov.has(name), `${msg}: ${name} is not one of our functions`);
    assert.ok(Math.abs(ov.get(name) - o[i][1]) <= tol, `${msg}: place ${i + 1}`);
  });
}

/**
 * What DevTools' Bottom-Up view must show for one thread of a chrome-format
 * trace, computed from the file alone: self time in us per function name
 * and per trace-event name. It is deterministic given the file (no load can
 * change it once the file is written), so a test compares the engine's
 * figures with it exactly, to floating-point rounding.
 *
 * The rules, as the Performance panel's engine (@paulirish/trace_engine:
 * SamplesIntegrator, TraceTree's BottomUpRootNode) applies them to a trace
 * like ours, where every sample is outside any JS invocation event:
 *  - each sample opens one call per frame of its stack (root first); a frame
 *    equal (same name) at the same depth as the previous sample's continues
 *    that call, which then lasts until the sample; calls above the first
 *    difference end at the sample; an idle sample (root node) ends them all;
 *  - a trace event's start and its end end every open call (the engine
 *    truncates the JS stack there), so the time from a scope's start to the
 *    first sample inside it, and from its end to the next sample, belongs to
 *    the innermost open trace event (or to nobody);
 *  - the last calls end at the last such boundary or sample: a sample after
 *    every event weighs 0;
 *  - entries nest in the order the engine lists them: the trace events
 *    sorted (start ascending, end descending), the calls in the order they
 *    were opened, merged as two sorted lists (a call before a trace event
 *    with the very same start and end, which then nests inside the call and
 *    takes its time); the calls' order is not always sorted where two
 *    samples share a time, and the merge then puts an event first. Each
 *    entry's self time is its duration minus its children's;
 *  - a sample's time is the engine's: us summed, to ms and back.
 * Order of processing (trace events and samples): by start, longer first, a
 * sample before a zero-length trace event at its time; an event ends before
 * anything that starts at or after its end.
 *
 * @param {object[]} events the trace's events (parseTrace)
 * @param {number} tid the thread's id in the trace (pid 1)
 * @returns {{functions: Map<string, number>, events: Map<string, number>}}
 */
export function devtoolsBottomUp(events, tid) {
  // The thread's CPU profile, as the engine's Samples handler joins it.
  const nodes = new Map();
  const sampleIds = [];
  const deltas = [];
  let start = 0;
  let root = null;
  for (const e of events) {
    if (e.tid !== tid || e.ph !== 'P') continue;
    const data = e.args?.data ?? {};
    if (e.name === 'Profile') start = e.ts;
    if (e.name !== 'ProfileChunk') continue;
    for (const n of data.cpuProfile?.nodes ?? []) {
      if (root === null) root = n.id;
      nodes.set(n.id, n);
    }
    sampleIds.push(...(data.cpuProfile?.samples ?? []));
    deltas.push(...(data.timeDeltas ?? []));
  }
  const meta = new Set(['(idle)', '(program)', '(garbage collector)']);
  const frames = (id) => {
    const out = [];
    for (let n = nodes.get(id); n && n.id !== root; n = nodes.get(n.parent)) out.push(n.callFrame.functionName);
    return out.reverse();
  };
  // The engine adds up the deltas in us, then keeps milliseconds and turns
  // them back into us (CPUProfileDataModel, SamplesIntegrator): a sample's
  // time can be off the trace events' by a rounding step, and it decides
  // what comes first.
  let sum = start;
  const samples = sampleIds.map((id, i) => {
    const ts = ((sum += deltas[i]) / 1000) * 1000;
    return { kind: 'sample', ts, end: ts, frames: frames(id) };
  });
  samples.sort((a, b) => a.ts - b.ts);
  // The thread's trace events with a duration (instants take no time and
  // end no call).
  const spans = events.filter((e) => e.tid === tid && e.ph === 'X' && typeof e.dur === 'number')
    .map((e) => ({ kind: 'event', name: e.name, ts: e.ts, end: e.ts + e.dur }));
  const order = (a, b) => a.ts - b.ts || b.end - a.end ||
    (a.kind === b.kind ? 0 : a.kind === 'sample' ? -1 : 1);
  spans.sort(order);
  const timeline = [...spans, ...samples].sort(order);

  // The calls the samples open, with their ends.
  const calls = [];
  let open = []; // the calls of the current stack, root first
  const endAll = (t) => {
    for (const c of open) c.end = t;
    open = [];
  };
  const stack = [];
  for (const x of timeline) {
    while (stack.length && x.ts >= stack.at(-1).end) endAll(stack.pop().end);
    if (x.kind === 'event') {
      endAll(x.ts);
      stack.push(x);
      continue;
    }
    let i = 0;
    while (i < open.length && i < x.frames.length && open[i].name === x.frames[i]) i++;
    for (const c of open) c.end = x.ts;
    open.length = i;
    for (; i < x.frames.length; i++) {
      // The profile's (idle), (program) and (garbage collector) nodes open
      // no call (the engine takes the first root child of each name).
      if (i === 0 && meta.has(x.frames[0])) continue;
      const c = { kind: 'call', name: x.frames[i], ts: x.ts, end: x.ts };
      calls.push(c);
      open.push(c);
    }
  }
  while (stack.length) endAll(stack.pop().end);

  // Self time: walk the entries in the engine's order. It merges its calls,
  // in the order it made them, into the sorted trace events the way two
  // sorted lists merge (Helpers.Trace.mergeEventsInOrder: a call before an
  // event with the very same start and end). The calls are not always in
  // sorted order: at two samples with one timestamp, a call the second one
  // ends at once comes before the longer calls it opens, and then an event
  // that starts there goes before them all and becomes their parent.
  const before = (a, b) => a.ts - b.ts || b.end - a.end || (a.kind === b.kind ? 0 : a.kind === 'call' ? -1 : 1);
  const entries = [];
  let j = 0;
  for (const e of spans) {
    while (j < calls.length && before(calls[j], e) < 0) entries.push(calls[j++]);
    entries.push(e);
  }
  entries.push(...calls.slice(j));
  const functions = new Map();
  const named = new Map();
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  const walk = [];
  const close = (top) => add(top.e.kind === 'call' ? functions : named, top.e.name, top.self);
  for (const e of entries) {
    while (walk.length && walk.at(-1).e.end <= e.ts) close(walk.pop());
    const dur = e.end - e.ts;
    if (!dur) continue;
    if (walk.length) walk.at(-1).self -= dur;
    walk.push({ e, self: dur });
  }
  while (walk.length) close(walk.pop());
  return { functions, events: named };
}

/**
 * Asserts that DevTools' Bottom-Up for a thread (tests/lib/devtools.mjs:
 * functionSelfMs, eventSelfMs) is exactly what the trace makes it show
 * (devtoolsBottomUp), to floating-point rounding: the same functions and
 * events, the same self times. Returns the expected figures, in us.
 */
export function assertDevToolsBottomUp(d, events, tid, label) {
  const want = devtoolsBottomUp(events, tid);
  const NS = 1e-3; // us: the engine works in ms floats
  const compare = (got, exp, what) => {
    const g = new Map(got.map(([k, ms]) => [k, ms * 1000]));
    const diffs = [];
    for (const k of new Set([...g.keys(), ...exp.keys()])) {
      // The view leaves out what has no self time.
      const a = g.get(k) ?? 0;
      const b = exp.get(k) ?? 0;
      if (Math.abs(a - b) > NS) diffs.push(`${k}: DevTools ${(a / 1000).toFixed(4)} ms, the trace ${(b / 1000).toFixed(4)} ms`);
    }
    // The differences go into the message's first line: a test summary
    // shows that line only.
    assert.ok(diffs.length === 0, `${label}: ${what} self time in DevTools' Bottom-Up vs what the trace makes it show: ` +
      `${diffs.length} differ: ${diffs.slice(0, 6).join('; ')}`);
  };
  compare(d.functionSelfMs, want.functions, 'function');
  compare(d.eventSelfMs, want.events, 'event');
  return want;
}
