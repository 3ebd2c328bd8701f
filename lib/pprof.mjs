// wasmtrace convert --to pprof: a trace as a pprof profile (profile.proto,
// gzip-compressed, the form `go tool pprof`, Pyroscope, Parca and
// speedscope's importer read), encoded with the `pprof-format` package.
//
// CPU (any format wasmtrace writes): one pprof sample per distinct
// (thread, stack, state), values [samples count, cpu nanoseconds] (the
// count is the sample's grid weight, so missed ticks count as the views
// count them; nanoseconds = count x the session's interval). Threads are
// labels ("thread", "thread_id"), as Pyroscope's and Go's own labels are,
// so one profile holds every thread and `-tagfocus thread=main` picks one.
// wasmtrace's pseudo frames are not functions: "(waiting)" and "(partial
// stack)" become the label "state" and the sample's self time stays with
// the last real frame (as `wasmtrace report` counts it). Idle samples are
// left out (a CPU profile of what ran).
//
// Heap (a firefox trace of a session with "heap"): values [alloc_space,
// inuse_space, peak_space] in bytes per (thread, stack): allocated in
// total, live when the session stopped, live at the heap's peak (the
// default sample type: what set the tab's footprint), all estimates.
import { gzipSync } from 'node:zlib';
import { Function as PFunction, Label, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { heapView } from './heap.mjs';
import { isJsProfileThread, MARKERS, realDepth, TraceError } from './profile.mjs';

const STATE_OF = new Map([[MARKERS.waiting, 'waiting'], [MARKERS.partial, 'partial stack']]);

/** Function and location tables: one function and one location per name. */
function tables(strings) {
  const functions = [], locations = [];
  const ids = new Map();
  const idOf = (name) => {
    let id = ids.get(name);
    if (id === undefined) {
      id = ids.size + 1;
      ids.set(name, id);
      const n = strings.dedup(name);
      functions.push(new PFunction({ id, name: n, systemName: n }));
      locations.push(new Location({ id, line: [new Line({ functionId: id })] }));
    }
    return id;
  };
  return { functions, locations, idOf };
}

/** pprof wants the leaf first; our stacks are root first. */
const leafFirst = (stack, n, idOf) => {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = idOf(stack[n - 1 - i]);
  return out;
};

function threadLabels(strings, t) {
  return [
    new Label({ key: strings.dedup('thread'), str: strings.dedup(t.name) }),
    new Label({ key: strings.dedup('thread_id'), num: Number.isFinite(Number(t.tid)) ? Number(t.tid) : 0 }),
  ];
}

const sessionName = (profile) => {
  const s = profile.session?.session ?? profile.session?.name;
  return typeof s === 'string' ? s : '';
};

function timing(profile) {
  const stats = profile.stats ?? {};
  const start = Number(stats.startTimeUs), stop = Number(stats.stopTimeUs);
  return Number.isFinite(start) && Number.isFinite(stop) && stop >= start ? Math.round((stop - start) * 1000) : 0;
}

/**
 * The CPU samples of a profile read by readProfile, as an (uncompressed)
 * pprof Profile. { thread } keeps one thread (name or tid), as report does.
 * Throws TraceError when nothing would be left.
 */
export function cpuPprof(profile, { thread: only } = {}) {
  const strings = new StringTable();
  const { functions, locations, idOf } = tables(strings);
  const intervalNs = profile.intervalUs > 0 ? Math.round(profile.intervalUs * 1000) : 0;
  // Without a thread asked for, the app's threads: the JS profile's
  // ("main (JS)") are a second view of them, which pprof would add to
  // every total (-tagfocus cannot take them out of the sums). Asked for by
  // name, a JS thread is converted alone.
  const threads = profile.threads.filter((t) => (only === undefined ? !isJsProfileThread(t.name) : t.name === only || String(t.tid) === String(only)));
  if (only !== undefined && !threads.length) {
    throw new TraceError(`no thread named '${only}' (threads: ${profile.threads.map((t) => t.name).join(', ')})`);
  }
  const samples = [];
  for (const t of threads) {
    const labels = threadLabels(strings, t);
    const byKey = new Map(); // stack array (shared by equal stacks) -> state -> count
    for (const s of t.samples) {
      const n = realDepth(s.stack);
      if (!n) continue;
      let states = byKey.get(s.stack);
      if (!states) byKey.set(s.stack, (states = new Map()));
      const state = n < s.stack.length ? STATE_OF.get(s.stack[s.stack.length - 1]) ?? '' : '';
      states.set(state, (states.get(state) ?? 0) + (s.weight ?? 1));
    }
    for (const [stack, states] of byKey) {
      const locationId = leafFirst(stack, realDepth(stack), idOf);
      for (const [state, count] of states) {
        const label = state ? [...labels, new Label({ key: strings.dedup('state'), str: strings.dedup(state) })] : labels;
        samples.push(new Sample({ locationId, value: [count, count * intervalNs], label }));
      }
    }
  }
  if (!samples.length) throw new TraceError('no CPU samples to convert (every sample idle, or none recorded)');
  const vt = (type, unit) => new ValueType({ type: strings.dedup(type), unit: strings.dedup(unit) });
  return new Profile({
    sampleType: [vt('samples', 'count'), vt('cpu', 'nanoseconds')],
    sample: samples,
    location: locations,
    function: functions,
    stringTable: strings,
    periodType: vt('cpu', 'nanoseconds'),
    period: intervalNs,
    durationNanos: timing(profile),
    comment: [strings.dedup(`wasmtrace ${profile.format} trace${sessionName(profile) ? `, session '${sessionName(profile)}'` : ''}`)],
    // A trace without its interval (a folded file without its header) has
    // counts but no times: its default is the count.
    defaultSampleType: strings.dedup(intervalNs > 0 ? 'cpu' : 'samples'),
  });
}

/** The sampled heap of a profile (heapView) as an uncompressed pprof Profile. */
export function heapPprof(profile, { thread: only } = {}) {
  const view = heapView(profile); // throws TraceError with the reason when there is no heap
  const strings = new StringTable();
  const { functions, locations, idOf } = tables(strings);
  // --thread picks a thread by name or tid, as for CPU profiles.
  const picked = only === undefined ? null
    : new Set(profile.threads.filter((t) => t.name === only || String(t.tid) === String(only)).map((t) => t.name));
  if (picked && !picked.size) {
    throw new TraceError(`no thread named '${only}' (threads: ${profile.threads.map((t) => t.name).join(', ')})`);
  }
  const rows = new Map(); // thread \0 stack -> { thread, stack, values }
  const add = (thread, stack, k, bytes) => {
    if (picked && !picked.has(thread)) return;
    const key = `${thread}\u0000${stack.join('\u0001')}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { thread, stack, values: [0, 0, 0] }));
    r.values[k] += bytes;
  };
  for (const t of profile.threads) for (const a of t.allocations ?? []) if (a.bytes > 0) add(t.name, a.stack, 0, a.bytes);
  for (const b of view.blocks.live) add(b.thread, b.stack, 1, b.bytes);
  for (const b of view.blocks.peak) add(b.thread, b.stack, 2, b.bytes);
  if (!rows.size) {
    throw new TraceError(only === undefined ? 'no sampled allocation in this trace'
      : `no sampled allocation on thread '${only}' (tid ${profile.threads.find((t) => picked.has(t.name))?.tid})`);
  }
  const tidOf = new Map(profile.threads.map((t) => [t.name, t.tid]));
  const samples = [...rows.values()].map((r) => {
    const n = r.stack.length ? r.stack.length : 0;
    const locationId = n ? leafFirst(r.stack, n, idOf) : [idOf('(no stack)')];
    return new Sample({
      locationId,
      value: r.values.map((v) => Math.round(v)),
      label: threadLabels(strings, { name: r.thread, tid: tidOf.get(r.thread) }),
    });
  });
  const vt = (type, unit) => new ValueType({ type: strings.dedup(type), unit: strings.dedup(unit) });
  return new Profile({
    sampleType: [vt('alloc_space', 'bytes'), vt('inuse_space', 'bytes'), vt('peak_space', 'bytes')],
    sample: samples,
    location: locations,
    function: functions,
    stringTable: strings,
    periodType: vt('space', 'bytes'),
    period: view.interval ?? 0,
    durationNanos: timing(profile),
    comment: [strings.dedup(`wasmtrace heap samples (every ${view.interval ?? '?'} bytes on average): estimates`)],
    defaultSampleType: strings.dedup('peak_space'),
  });
}

/** The gzip-compressed pprof file of a profile: kind 'cpu' or 'heap'. */
export function toPprof(profile, { kind = 'cpu', thread } = {}) {
  const p = kind === 'heap' ? heapPprof(profile, { thread }) : cpuPprof(profile, { thread });
  // Level 1, as Go's own runtime/pprof writes its profiles (gzip.BestSpeed):
  // a 10^6-stack profile compressed in a third of the time, ~10 % larger.
  return gzipSync(p.encode(), { level: 1 });
}
