// Reading wasmtrace's Chrome Trace Event files: gunzip, parse, and rebuild
// each thread's CPU profile from its Profile/ProfileChunk events, the way
// DevTools and speedscope do. Used by profile.mjs (all formats) and the tests.
//
// Trace files are untrusted input (docs/INTERNALS.md, "Reading untrusted trace
// files"): every reader bounds what it inflates and allocates, checks every
// index and reference before use, walks stacks iteratively with cycle
// detection, and fails with one TraceError line instead of a crash.
import { nameCanonicalizer } from './names.mjs';
import { constants as bufferConstants } from 'node:buffer';
import { getHeapStatistics } from 'node:v8';
import { constants, gunzipSync } from 'node:zlib';

/**
 * A trace file wasmtrace cannot read: one line that names the problem (the
 * field, the index, the limit) and, where there is one, what to do.
 */
export class TraceError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TraceError';
    this.code = 'WASMTRACE_BAD_TRACE';
  }
}

/** Default limit of a trace's (inflated) size: 256 MiB. */
export const DEFAULT_MAX_TRACE_MB = 256;

/**
 * The size limit in bytes: options.maxBytes, else the environment's
 * WASMTRACE_MAX_TRACE_MB, else 256 MiB; never past the longest string the
 * JS engine can hold (a trace is read as text).
 */
export function traceSizeLimit(maxBytes) {
  let limit = maxBytes;
  if (limit === undefined || limit === null) {
    const env = Number(process.env.WASMTRACE_MAX_TRACE_MB);
    limit = (env > 0 ? env : DEFAULT_MAX_TRACE_MB) * 1024 * 1024;
  }
  if (!(limit > 0)) throw new TypeError('maxBytes must be a positive number');
  return Math.min(Math.floor(limit), bufferConstants.MAX_STRING_LENGTH);
}

const mib = (bytes) => Math.ceil(bytes / (1024 * 1024));

/**
 * A trace file's bytes, gunzipped when they are gzip. The one place that
 * inflates: with Z_SYNC_FLUSH as the finishing flush, a file cut short after
 * one of the encoder's sync-flush points (a session still running, a crashed
 * page) inflates up to that point instead of failing. Inflation stops at the
 * size limit (traceSizeLimit): a gzip bomb is refused, not inflated.
 * @param {Uint8Array} bytes
 * @param {{maxBytes?: number}} [options]
 */
export function decompress(bytes, { maxBytes } = {}) {
  const buf = Buffer.isBuffer(bytes) ? bytes
    : ArrayBuffer.isView(bytes) ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.from(bytes);
  const limit = traceSizeLimit(maxBytes);
  if (buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      return gunzipSync(buf, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: limit });
    } catch (e) {
      if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
        throw new TraceError(`trace inflates past ${mib(limit)} MiB (the readers' limit: raise it with WASMTRACE_MAX_TRACE_MB or the maxBytes option if the file is yours)`);
      }
      throw new TraceError(`not a readable gzip file: ${String(e.message).split('\n')[0]}`);
    }
  }
  if (buf.length > limit) {
    throw new TraceError(`trace is larger than ${mib(limit)} MiB (the readers' limit: raise it with WASMTRACE_MAX_TRACE_MB or the maxBytes option if the file is yours)`);
  }
  return buf;
}

/**
 * The JS heap a read may take: a share of what this process has free. Every
 * reader charges what it is about to allocate (parsed JSON, samples, stack
 * frames) and fails with a TraceError before V8 would abort the process.
 */
export class HeapBudget {
  constructor(share = 0.6) {
    const h = getHeapStatistics();
    this.free = Math.max(0, h.heap_size_limit - h.used_heap_size);
    this.left = this.free * share;
  }

  charge(bytes, what) {
    this.left -= bytes;
    if (this.left < 0) {
      const suggest = Math.max(4096, 2 * mib(getHeapStatistics().heap_size_limit));
      throw new TraceError(`trace needs more JS heap to read (${what}) than this process has free ` +
        `(${mib(this.free)} MiB): run node with a larger heap, e.g. NODE_OPTIONS=--max-old-space-size=${suggest}`);
    }
  }
}

// What V8 takes, at least, for parsed JSON: per object or array ~64 bytes,
// per element or member ~8 bytes (more for doubles and strings, which the
// text's own size covers). Measured on Node 20: 256 MiB of "{}," needs
// over 4 GiB; 170 MiB of "0," 0.85 GiB.
function jsonHeapEstimate(text) {
  let containers = 0;
  let commas = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) containers++;
    else if (c === 0x2c) commas++;
  }
  return containers * 64 + commas * 8 + text.length;
}

/**
 * JSON.parse for trace text: the heap it would take is checked first, and
 * a syntax error is a TraceError. (V8's JSON.parse is not recursive: deep
 * nesting is not a stack overflow.)
 */
export function parseJson(text, budget = new HeapBudget()) {
  budget.charge(jsonHeapEstimate(text), 'its JSON');
  try {
    return JSON.parse(text);
  } catch (e) {
    if (e instanceof SyntaxError) throw new TraceError(`not valid JSON: ${String(e.message).split('\n')[0].slice(0, 200)}`);
    if (e instanceof RangeError) throw new TraceError(`JSON too deeply nested or too large to parse: ${e.message}`);
    throw e;
  }
}

/** Parses a trace file's bytes (gzip or plain JSON, array or object form). */
export function parseTrace(bytes, { maxBytes, budget = new HeapBudget() } = {}) {
  return chromeEvents(parseJson(chromeText(decompress(bytes, { maxBytes }).toString('utf8')), budget));
}

/** The array form may lack its closing bracket when a trace was cut short. */
export function chromeText(text) {
  text = text.trim();
  if (text.startsWith('[') && !text.endsWith(']')) text = text.replace(/,\s*$/, '') + ']';
  return text;
}

/** The events of a parsed chrome trace (array form or {traceEvents}). */
export function chromeEvents(json) {
  if (Array.isArray(json)) return json;
  if (json && typeof json === 'object' && Array.isArray(json.traceEvents)) return json.traceEvents;
  throw new TraceError('chrome trace: neither an array of events nor an object with a "traceEvents" array');
}

/**
 * Any JSON value as text, for names and labels read from a file: String()
 * throws on an object with its own "toString" member ({"toString": 1}).
 */
export function textOf(v) {
  if (typeof v === 'string') return v;
  if (v === null || typeof v !== 'object') return String(v);
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/** A name safe to print on a terminal: control characters as escapes. */
export function printable(name) {
  return textOf(name).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) =>
    ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * Stacks from a table of parent links, root first, built without recursion
 * in time linear in what they hold: a stack is walked up to the first
 * ancestor already built (or the root) and only the stacks asked for are
 * kept, so a 100,000-deep chain costs its depth, not its square. A chain
 * longer than the table has a cycle (or a self-reference): TraceError.
 * Every frame built is charged to the budget.
 *   parentOf(id) -> id | null   (validated by the caller)
 *   nameOf(id)   -> string, or undefined for a node that is no frame (a root)
 */
export function stackBuilder({ size, parentOf, nameOf, budget, where }) {
  const memo = new Map();
  return (id) => {
    const known = memo.get(id);
    if (known) return known;
    const chain = [];
    let base = null;
    for (let cur = id; cur !== null; cur = parentOf(cur)) {
      const m = memo.get(cur);
      if (m) {
        base = m;
        break;
      }
      chain.push(cur);
      if (chain.length > size) throw new TraceError(`${where}: the parent chain of ${id} has a cycle (it passes ${cur} again)`);
    }
    const depth = (base ? base.length : 0) + chain.length;
    budget.charge(depth * 8 + 64, 'its stacks');
    const out = base ? base.slice() : [];
    for (let i = chain.length - 1; i >= 0; i--) {
      const name = nameOf(chain[i]);
      if (name !== undefined) out.push(name);
    }
    memo.set(id, out);
    return out;
  };
}

/**
 * Rebuilds what a reader sees: per thread, its name, samples (each with its
 * stack of function names, root first, and its duration) and scopes.
 * Malformed events the model has no use for (a scope without numeric times)
 * are skipped; a reference that does not resolve (a sample's node, a node's
 * parent) or counts that disagree are a TraceError.
 */
export function analyzeTrace(events, budget = new HeapBudget()) {
  if (!Array.isArray(events)) throw new TraceError('chrome trace: the events are not an array');
  // Traces from before names were merged: one function, one name.
  const canonical = nameCanonicalizer();
  const threads = new Map(); // tid -> thread
  const thread = (tid) => {
    if (typeof tid !== 'number' && typeof tid !== 'string') tid = 0;
    if (!threads.has(tid)) {
      threads.set(tid, { tid, name: null, nodes: new Map(), samples: [], scopes: [], startTime: null, timeDeltas: [], sampleIds: [] });
    }
    return threads.get(tid);
  };
  let session = null;
  let stats = null;
  for (let k = 0; k < events.length; k++) {
    const e = events[k];
    if (!isObject(e)) continue;
    const args = isObject(e.args) ? e.args : {};
    const data = isObject(args.data) ? args.data : {};
    if (e.ph === 'M' && e.name === 'thread_name') {
      if (typeof args.name === 'string') thread(e.tid).name = args.name;
    } else if (e.ph === 'M' && e.name === 'wasmtrace_session') session = isObject(e.args) ? e.args : null;
    else if (e.ph === 'M' && e.name === 'wasmtrace_stats') stats = isObject(e.args) ? e.args : null;
    else if (e.ph === 'P' && e.name === 'Profile') {
      if (isNum(data.startTime)) thread(e.tid).startTime = data.startTime;
    } else if (e.ph === 'P' && e.name === 'ProfileChunk') {
      const t = thread(e.tid);
      const cp = isObject(data.cpuProfile) ? data.cpuProfile : {};
      const where = `chrome trace: event ${k} (ProfileChunk of thread ${t.tid})`;
      const nodes = cp.nodes ?? [];
      const samples = cp.samples ?? [];
      const deltas = data.timeDeltas ?? [];
      if (!Array.isArray(nodes) || !Array.isArray(samples) || !Array.isArray(deltas)) {
        throw new TraceError(`${where}: cpuProfile.nodes, cpuProfile.samples and timeDeltas must be arrays`);
      }
      budget.charge(nodes.length * 16 + (samples.length + deltas.length) * 8, 'its profile nodes');
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i];
        if (!isObject(n) || !isNum(n.id)) throw new TraceError(`${where}: node ${i} has no numeric id`);
        if (n.parent !== undefined && n.parent !== null && !isNum(n.parent)) throw new TraceError(`${where}: node ${n.id} has a parent that is not a number`);
        t.nodes.set(n.id, n);
      }
      // push(...x) would overflow the stack on a long chunk: one by one.
      for (let i = 0; i < samples.length; i++) {
        if (!isNum(samples[i])) throw new TraceError(`${where}: cpuProfile.samples[${i}] is not a node id`);
        t.sampleIds.push(samples[i]);
      }
      for (let i = 0; i < deltas.length; i++) {
        if (!isNum(deltas[i])) throw new TraceError(`${where}: timeDeltas[${i}] is not a number`);
        t.timeDeltas.push(deltas[i]);
      }
    } else if (e.ph === 'X' && e.cat !== 'wasmtrace' && e.cat !== 'startup' && e.cat !== 'longtask') {
      // (the startup timeline's tracks and the main thread's long tasks are
      // read from the stats record: the recorders' readers, lib/recorders.mjs)
      if (typeof e.name === 'string' && isNum(e.ts) && isNum(e.dur)) {
        budget.charge(96, 'its scopes');
        thread(e.tid).scopes.push({ name: e.name, ts: e.ts, dur: e.dur, cat: typeof e.cat === 'string' ? e.cat : '' });
      }
    }
  }
  for (const t of threads.values()) {
    if (t.sampleIds.length !== t.timeDeltas.length) {
      throw new TraceError(`thread ${t.tid}: ${t.sampleIds.length} samples but ${t.timeDeltas.length} timeDeltas`);
    }
    const where = `chrome trace: thread ${t.tid}`;
    const node = (id) => {
      const n = t.nodes.get(id);
      if (!n) throw new TraceError(`${where}: a sample or node refers to unknown node ${id}`);
      return n;
    };
    // The root node (no parent) is no frame: its stack is [] (idle).
    const stack = stackBuilder({
      size: t.nodes.size,
      parentOf: (id) => (node(id).parent ? node(id).parent : null),
      nameOf: (id) => {
        const n = node(id);
        if (!n.parent) return undefined;
        const name = isObject(n.callFrame) ? n.callFrame.functionName : undefined;
        return canonical(textOf(name ?? ''));
      },
      budget,
      where,
    });
    budget.charge(t.sampleIds.length * 64, 'its samples');
    let ts = t.startTime ?? 0;
    t.samples = t.sampleIds.map((id, i) => {
      ts += t.timeDeltas[i];
      if (!Number.isFinite(ts)) throw new TraceError(`${where}: the time of sample ${i} overflows`);
      node(id);
      return { ts, stack: stack(id) };
    });
    delete t.sampleIds;
  }
  return { threads: [...threads.values()].sort((a, b) => (a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0)), session, stats };
}
