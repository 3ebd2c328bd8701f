// Reading wasmtrace's Chrome Trace Event files: gunzip, parse, and rebuild
// each thread's CPU profile from its Profile/ProfileChunk events, the way
// DevTools and speedscope do. Used by profile.mjs (all formats) and the tests.
import { constants, gunzipSync } from 'node:zlib';

/**
 * A trace file's bytes, gunzipped when they are gzip. The one place that
 * inflates: with Z_SYNC_FLUSH as the finishing flush, a file cut short after
 * one of the encoder's sync-flush points (a session still running, a crashed
 * page) inflates up to that point instead of failing.
 */
export function decompress(bytes) {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  if (buf[0] === 0x1f && buf[1] === 0x8b) return gunzipSync(buf, { finishFlush: constants.Z_SYNC_FLUSH });
  return buf;
}

/** Parses a trace file's bytes (gzip or plain JSON, array or object form). */
export function parseTrace(bytes) {
  let text = decompress(bytes).toString('utf8').trim();
  // The array form may lack its closing bracket when a trace was cut short.
  if (text.startsWith('[') && !text.endsWith(']')) text = text.replace(/,\s*$/, '') + ']';
  const json = JSON.parse(text);
  return Array.isArray(json) ? json : json.traceEvents;
}

/**
 * Rebuilds what a reader sees: per thread, its name, samples (each with its
 * stack of function names, root first, and its duration) and scopes.
 */
export function analyzeTrace(events) {
  const threads = new Map(); // tid -> thread
  const thread = (tid) => {
    if (!threads.has(tid)) {
      threads.set(tid, { tid, name: null, nodes: new Map(), samples: [], scopes: [], startTime: null, timeDeltas: [], sampleIds: [] });
    }
    return threads.get(tid);
  };
  let session = null;
  let stats = null;
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') thread(e.tid).name = e.args.name;
    else if (e.ph === 'M' && e.name === 'wasmtrace_session') session = e.args;
    else if (e.ph === 'M' && e.name === 'wasmtrace_stats') stats = e.args;
    else if (e.ph === 'P' && e.name === 'Profile') thread(e.tid).startTime = e.args.data.startTime;
    else if (e.ph === 'P' && e.name === 'ProfileChunk') {
      const t = thread(e.tid);
      const cp = e.args.data.cpuProfile || {};
      for (const n of cp.nodes || []) t.nodes.set(n.id, n);
      t.sampleIds.push(...(cp.samples || []));
      t.timeDeltas.push(...(e.args.data.timeDeltas || []));
    } else if (e.ph === 'X' && e.cat !== 'wasmtrace') {
      thread(e.tid).scopes.push({ name: e.name, ts: e.ts, dur: e.dur, cat: e.cat });
    }
  }
  for (const t of threads.values()) {
    if (t.sampleIds.length !== t.timeDeltas.length) {
      throw new Error(`thread ${t.tid}: ${t.sampleIds.length} samples but ${t.timeDeltas.length} timeDeltas`);
    }
    const stackOf = new Map();
    const stack = (id) => {
      if (stackOf.has(id)) return stackOf.get(id);
      const n = t.nodes.get(id);
      if (!n) throw new Error(`thread ${t.tid}: sample refers to unknown node ${id}`);
      const s = n.parent ? [...stack(n.parent), n.callFrame.functionName] : [];
      stackOf.set(id, s);
      return s;
    };
    let ts = t.startTime ?? 0;
    t.samples = t.sampleIds.map((id, i) => {
      ts += t.timeDeltas[i];
      return { ts, stack: stack(id) };
    });
    delete t.sampleIds;
  }
  return { threads: [...threads.values()].sort((a, b) => a.tid - b.tid), session, stats };
}
