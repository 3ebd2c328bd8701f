// Reading any trace wasmtrace writes into one model, whatever the format:
//   chrome   Chrome Trace Event JSON (Profile/ProfileChunk CPU samples)
//   firefox  Firefox Profiler processed profile (threads[].samples,
//            stackTable, frameTable, funcTable, string array)
//   folded   collapsed stacks, "thread;outer;inner count" per line
// gzip or not. The model (see index.d.ts, Profile):
//   { format, session, intervalUs, stats, threads: [{ tid, name,
//     samples: [{ ts, stack, weight }], scopes: [{ name, ts, dur, cat }] }],
//     startup: { phases: [{ name, kind, begin, end, bytes }], dropped } | null,
//     longTasks: { observed, count, totalUs, longestUs, dropped, reason } | null }
// with stacks root first, [] for an idle sample, times in microseconds.
// Then the two views a profiler shows: a function table (self and total)
// and a call tree (what a flame graph draws).
import { nameCanonicalizer } from './names.mjs';
import { recordedFields } from './recorders.mjs';
import { longTasksOf, startupOf } from './startup.mjs';
import { analyzeTrace, chromeEvents, chromeText, decompress, HeapBudget, parseJson, stackBuilder, textOf, traceSizeLimit, TraceError } from './trace.mjs';

export { TraceError, longTasksOf, startupOf };

/** Names a sample may carry instead of an empty stack when the thread was idle. */
const IDLE_NAMES = new Set(['(idle)', '(root)']);

/**
 * Pseudo frames wasmtrace puts at the leaf end of a sample's stack; they are
 * not functions. "(partial stack)": the stack moved while the sampler copied
 * it, and only the frames above the marker (callers, root first) are known;
 * "(waiting)": the thread was blocked in a wait, where the frames above it
 * say. A sample's self time goes to the last real frame before them, and the
 * views count each marker on its own (threadTotals).
 */
export const MARKERS = Object.freeze({ partial: '(partial stack)', waiting: '(waiting)' });
const MARKER_NAMES = new Set(Object.values(MARKERS));

/** How many frames of a stack are real functions: markers at its leaf end are not. */
export function realDepth(stack) {
  let n = stack.length;
  while (n > 0 && MARKER_NAMES.has(stack[n - 1])) n--;
  return n;
}

/** 'chrome' | 'firefox' | 'folded' for a trace's text. */
export function detectFormat(text) {
  const head = text.trimStart().slice(0, 4096);
  if (head.startsWith('[')) return 'chrome';
  if (head.startsWith('{')) {
    if (/"traceEvents"\s*:/.test(head)) return 'chrome';
    if (/"(meta|threads|shared|libs)"\s*:/.test(head)) return 'firefox';
    // Large object: decide after parsing.
    return 'json';
  }
  return 'folded';
}

const FORMATS = ['chrome', 'firefox', 'folded'];

/**
 * Reads a trace file's bytes (any format wasmtrace writes, gzip or not).
 * The input is untrusted: whatever it holds, this returns a valid Profile
 * or throws a TraceError (one line), within the size limit (options.maxBytes,
 * else WASMTRACE_MAX_TRACE_MB, else 256 MiB of inflated text) and the JS
 * heap this process has free.
 * @param {Uint8Array|Buffer|string} input
 * @param {{format?: string, maxBytes?: number}} [options] force a format instead of detecting it
 * @returns {import('./index.js').Profile}
 */
export function readProfile(input, { format, maxBytes } = {}) {
  if (format !== undefined && format !== null && !FORMATS.includes(format)) {
    throw new TraceError(`unknown trace format '${format}' (known: ${FORMATS.join(', ')})`);
  }
  let text;
  if (typeof input === 'string') {
    const limit = traceSizeLimit(maxBytes);
    if (input.length > limit) throw new TraceError(`trace is larger than ${Math.ceil(limit / 1048576)} MiB (the readers' limit: raise it with WASMTRACE_MAX_TRACE_MB or the maxBytes option if the file is yours)`);
    text = input;
  } else if (input instanceof Uint8Array || input instanceof ArrayBuffer) {
    text = decompress(input instanceof ArrayBuffer ? new Uint8Array(input) : input, { maxBytes }).toString('utf8');
  } else {
    throw new TypeError('readProfile: input must be a Uint8Array, a Buffer, an ArrayBuffer or a string');
  }
  // Nothing to read is no format: an empty file would otherwise read as
  // folded stacks with no lines (and be named so in summaries).
  if (!text.trim()) throw new TraceError(`an empty trace (${text.length ? 'only white space' : 'no bytes'}): nothing to read`);
  const budget = new HeapBudget();
  let kind = format || detectFormat(text);
  let json;
  if (kind === 'json') {
    json = parseJson(text, budget);
    kind = Array.isArray(json) || json?.traceEvents ? 'chrome' : json?.threads ? 'firefox' : null;
    if (!kind) throw new TraceError('not a trace wasmtrace can read: a JSON object without traceEvents or threads');
  }
  if (kind === 'chrome') return checkedNumbers(readChrome(chromeEvents(json ?? parseJson(chromeText(text), budget)), budget));
  if (kind === 'firefox') return checkedNumbers(readFirefox(json ?? parseJson(text, budget), budget));
  return checkedNumbers(readFolded(text, budget));
}

// Every number a reader hands on is one its users can add up, print and
// encode (pprof's int64) without Infinity, NaN or a wrap: the one check of
// every format, after reading. A sample stands for at most 2^32 sampling
// periods (the encoders write at most 65,535), times and durations are
// within 2^53 us (285 years) of the clock's origin, an allocation is a
// whole, non-zero number of bytes below 2^48 either way (a free is
// negative), a thread id is a safe integer or a short string. Totals of
// what passes stay exact: the readers' budget bounds the samples to far
// fewer than 2^21 of 2^32.
const MAX_SAMPLE_WEIGHT = 2 ** 32;
const MAX_TIME_US = 2 ** 53;
const MAX_ALLOCATION_BYTES = 2 ** 48;
function checkedNumbers(profile) {
  const bad = (t, what, v) => new TraceError(`thread ${JSON.stringify(String(t.name).slice(0, 60))}: ${what} ${String(v).slice(0, 40)} is out of range`);
  const time = (v) => v === null || v === undefined || (isNum(v) && Math.abs(v) <= MAX_TIME_US);
  for (const t of profile.threads) {
    if (typeof t.tid === 'number' ? !Number.isSafeInteger(t.tid) : typeof t.tid === 'string' && t.tid.length > 64) throw bad(t, 'thread id', t.tid);
    for (const x of t.samples) {
      if (!(isNum(x.weight) && x.weight >= 0 && x.weight <= MAX_SAMPLE_WEIGHT)) throw bad(t, 'a sample weight (0 to 2^32 periods)', x.weight);
      if (!time(x.ts)) throw bad(t, 'a sample time (us)', x.ts);
    }
    for (const x of t.scopes) {
      if (!time(x.ts) || !time(x.dur) || !time(x.ts + x.dur)) throw bad(t, `scope ${JSON.stringify(String(x.name).slice(0, 40))}: a time (us)`, `${x.ts} + ${x.dur}`);
    }
    for (const x of t.allocations ?? []) {
      if (!(Number.isInteger(x.bytes) && x.bytes !== 0 && Math.abs(x.bytes) < MAX_ALLOCATION_BYTES)) {
        throw bad(t, 'an allocation\'s bytes (a whole number, not 0: a free is negative)', x.bytes);
      }
      if (!time(x.ts)) throw bad(t, 'an allocation time (us)', x.ts);
    }
  }
  return profile;
}

function isIdle(stack) {
  return stack.length === 0 || (stack.length === 1 && IDLE_NAMES.has(stack[0]));
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/** A thread the JS-profile import added ("main (JS)", "worker N (JS)",
 * lib/jsprofile.mjs): the browser's second view of threads the trace has
 * already, so never part of a total over "all threads". */
export const isJsProfileThread = (name) => typeof name === 'string' && / \(JS\)$/.test(name);

// ---- chrome ------------------------------------------------------------------

// A sample's weight: the sampling periods it stands for. wasmtrace stamps
// samples with their tick time on the session's grid of multiples of the
// interval P, so a sample after k missed ticks is k + 1 grid points after
// the thread's previous one: weight = floor(ts / P) - floor(prev / P), as
// the encoder computes it for the firefox weight column and folded counts
// (native/src/encoder.h). Without a known interval, or for a thread's
// first sample, 1.
export function gridWeights(samples, intervalUs) {
  return samples.map((s, i) => {
    if (!(intervalUs > 0) || i === 0 || !isNum(s.ts) || !isNum(samples[i - 1].ts)) return 1;
    const periods = Math.floor(s.ts / intervalUs) - Math.floor(samples[i - 1].ts / intervalUs);
    return periods >= 1 ? Math.min(periods, 65535) : 1;
  });
}

function readChrome(events, budget) {
  const a = analyzeTrace(events, budget);
  const sessionInterval = isNum(a.session?.intervalUs) ? a.session.intervalUs : null;
  const threads = a.threads
    .filter((t) => t.samples.length || t.scopes.length)
    .map((t) => {
      const weights = gridWeights(t.samples, sessionInterval);
      return {
        tid: t.tid,
        name: t.name ?? `tid ${t.tid}`,
        samples: t.samples.map((s, i) => ({ ts: s.ts, stack: isIdle(s.stack) ? [] : s.stack, weight: weights[i] })),
        scopes: t.scopes,
      };
    });
  return {
    format: 'chrome',
    session: a.session,
    intervalUs: isNum(a.session?.intervalUs) ? a.session.intervalUs : inferInterval(threads),
    stats: a.stats,
    threads,
    ...recordedFields(a.stats),
  };
}

/** Median gap between samples, for traces without session metadata. */
function inferInterval(threads) {
  const gaps = [];
  for (const t of threads) {
    for (let i = 1; i < t.samples.length && gaps.length < 5000; i++) {
      const d = t.samples[i].ts - t.samples[i - 1].ts;
      if (d > 0 && Number.isFinite(d)) gaps.push(d);
    }
  }
  if (!gaps.length) return null;
  gaps.sort((x, y) => x - y);
  return gaps[gaps.length >> 1];
}

// ---- firefox (processed profile) ----------------------------------------------

// Checks every table, column and index of a processed profile's thread
// before use; `where` names the thread in messages.
function firefoxTables(th, where, sharedStrings) {
  const strings = th.stringArray ?? th.stringTable ?? sharedStrings;
  if (!Array.isArray(strings)) throw new TraceError(`${where}: no string array`);
  const column = (tname, cname) => {
    const t = th[tname];
    if (!isObject(t)) throw new TraceError(`${where}: no ${tname}`);
    const c = t[cname];
    if (!Array.isArray(c)) throw new TraceError(`${where}: ${tname}.${cname} is ${c === undefined || c === null ? 'missing' : 'not an array'}`);
    return c;
  };
  const index = (v, len, what) => {
    if (!Number.isInteger(v) || v < 0 || v >= len) throw new TraceError(`${where}: ${what} = ${JSON.stringify(v)?.slice(0, 40)} is not an index below ${len}`);
    return v;
  };
  return { strings, column, index };
}

function readFirefox(p, budget) {
  if (!isObject(p) || !Array.isArray(p.threads)) throw new TraceError('Firefox profile without a threads array');
  const meta = isObject(p.meta) ? p.meta : {};
  const sharedStrings = isObject(p.shared) ? p.shared.stringArray ?? p.shared.stringTable ?? null : null;
  const intervalMs = isNum(meta.interval) && meta.interval > 0 && isNum(meta.interval * 1000) ? meta.interval : null;
  // Traces from before names were merged: one function, one name.
  const canonical = nameCanonicalizer();
  const categories = Array.isArray(meta.categories) ? meta.categories : [];
  // Times in a processed profile are ms since meta.startTime.
  const threads = p.threads.map((th, index) => {
    const where = `Firefox profile thread ${index}`;
    if (!isObject(th)) throw new TraceError(`${where} is not an object`);
    const { strings, column, index: checkIndex } = firefoxTables(th, where, sharedStrings);
    const str = (i, what) => {
      if (i === null || i === undefined) return '';
      const s = strings[checkIndex(i, strings.length, what)];
      return textOf(s ?? '');
    };
    const sm = isObject(th.samples) ? th.samples : {};
    const stackCol = sm.stack ?? [];
    if (!Array.isArray(stackCol)) throw new TraceError(`${where}: samples.stack is not an array`);
    // The claimed count must be present in every column it indexes.
    const n = sm.length ?? stackCol.length;
    if (!Number.isInteger(n) || n < 0) throw new TraceError(`${where}: samples.length is not a count`);
    const cols = { stack: stackCol, time: sm.time, timeDeltas: sm.timeDeltas, weight: sm.weight };
    for (const [name, col] of Object.entries(cols)) {
      if (col === undefined || col === null) continue;
      if (!Array.isArray(col)) throw new TraceError(`${where}: samples.${name} is not an array`);
      if (col.length < n) throw new TraceError(`${where}: samples.length says ${n} but samples.${name} has ${col.length} entries`);
    }
    const samples = [];
    let stackOfBuilt = null;
    const stackTable = () => {
      if (stackOfBuilt) return stackOfBuilt;
      const prefix = column('stackTable', 'prefix');
      const stackFrame = column('stackTable', 'frame');
      const frameFunc = column('frameTable', 'func');
      const funcName = column('funcTable', 'name');
      const size = stackFrame.length;
      const stackOf = stackBuilder({
        size,
        parentOf: (s) => {
          const q = prefix[s];
          return q === null || q === undefined ? null : checkIndex(q, size, `stackTable.prefix[${s}]`);
        },
        nameOf: (s) => {
          const f = checkIndex(stackFrame[s], frameFunc.length, `stackTable.frame[${s}]`);
          const fn = checkIndex(frameFunc[f], funcName.length, `frameTable.func[${f}]`);
          return canonical(str(funcName[fn], `funcTable.name[${fn}]`));
        },
        budget,
        where: `${where}: stackTable`,
      });
      stackOfBuilt = { stackOf, size };
      return stackOfBuilt;
    };
    if (n) {
      const { stackOf, size } = stackTable();
      budget.charge(n * 64, 'its samples');
      let t = 0;
      for (let i = 0; i < n; i++) {
        if (sm.time) t = sm.time[i];
        else if (sm.timeDeltas) t += sm.timeDeltas[i];
        if (!isNum(t) || !isNum(t * 1000)) throw new TraceError(`${where}: the time of sample ${i} is not a number (or overflows)`);
        const s = stackCol[i];
        const stack = s === null || s === undefined ? [] : stackOf(checkIndex(s, size, `samples.stack[${i}]`));
        // Weights count samples (weightType "samples", the default); a
        // profile weighted by time or bytes counts each sample once here.
        const weight = sm.weight && (sm.weightType ?? 'samples') === 'samples' ? sm.weight[i] : 1;
        if (!isNum(weight) || weight < 0) throw new TraceError(`${where}: samples.weight[${i}] is not a number of samples (0 or more)`);
        samples.push({ ts: t * 1000, stack: isIdle(stack) ? [] : stack, weight });
      }
    }
    const scopes = [];
    const mk = th.markers;
    if (isObject(mk) && mk.length) {
      const m = Number.isInteger(mk.length) && mk.length > 0 ? mk.length : 0;
      const col = (name) => (Array.isArray(mk[name]) ? mk[name] : null);
      const names = col('name');
      const startTime = col('startTime');
      const endTime = col('endTime');
      const phase = col('phase');
      const data = col('data');
      const category = col('category');
      if (m && (!names || !startTime || !endTime)) throw new TraceError(`${where}: markers without name, startTime and endTime arrays`);
      for (const [name, c] of [['name', names], ['startTime', startTime], ['endTime', endTime], ['phase', phase]]) {
        if (c && c.length < m) throw new TraceError(`${where}: markers.length says ${m} but markers.${name} has ${c.length} entries`);
      }
      for (let i = 0; i < m; i++) {
        const start = startTime[i];
        const end = endTime[i];
        // phase 1 = interval; older profiles have no phase but both times.
        const interval = phase ? phase[i] === 1 : true;
        if (!interval || !isNum(start) || !isNum(end) || !isNum(start * 1000) || !isNum(end * 1000) || !isNum((end - start) * 1000)) continue;
        const d = data?.[i];
        const c = categories[category?.[i]];
        const cat = isObject(c) && typeof c.name === 'string' ? c.name : isObject(d) && typeof d.category === 'string' ? d.category : '';
        // The timeline and the long tasks: the recorders' readers (lib/recorders.mjs).
        if (isObject(d) && d.type === 'wasmtrace' && (d.category === 'startup' || d.category === 'longtask')) continue;
        budget.charge(96, 'its markers');
        scopes.push({ name: str(names[i], `markers.name[${i}]`), ts: start * 1000, dur: (end - start) * 1000, cat });
      }
    }
    // Sampled allocations and frees (wasmtrace's "heap" sessions, or
    // Firefox's own native allocations): ts in us, bytes signed (a free is
    // negative), the allocation's stack (a free has none), its address.
    const allocations = [];
    const na = th.nativeAllocations;
    if (isObject(na) && na.length) {
      const m = na.length;
      if (!Number.isInteger(m) || m < 0) throw new TraceError(`${where}: nativeAllocations.length is not a count`);
      // memoryAddress is optional (Firefox's own profiles may have none),
      // but when there it is a column like the others: frees are matched
      // to allocations by it, so a short or mistyped one is refused, never
      // read as "no addresses".
      const hasAddr = na.memoryAddress !== undefined && na.memoryAddress !== null;
      for (const c of hasAddr ? ['time', 'weight', 'stack', 'memoryAddress'] : ['time', 'weight', 'stack']) {
        if (!Array.isArray(na[c]) || na[c].length < m) throw new TraceError(`${where}: nativeAllocations.length says ${m} but nativeAllocations.${c} is ${Array.isArray(na[c]) ? `${na[c].length} entries long` : 'not an array'}`);
      }
      const addr = hasAddr ? na.memoryAddress : null;
      budget.charge(m * 96, 'its allocations');
      for (let i = 0; i < m; i++) {
        const t = na.time[i], w = na.weight[i], st = na.stack[i];
        if (!isNum(t) || !isNum(t * 1000)) throw new TraceError(`${where}: nativeAllocations.time[${i}] is not a number`);
        if (!isNum(w)) throw new TraceError(`${where}: nativeAllocations.weight[${i}] is not a number`);
        let stack = [];
        if (st !== null && st !== undefined) {
          const { stackOf, size } = stackTable();
          stack = stackOf(checkIndex(st, size, `nativeAllocations.stack[${i}]`));
        }
        const a = addr ? addr[i] : null;
        if (addr && !(Number.isSafeInteger(a) && a >= 0)) throw new TraceError(`${where}: nativeAllocations.memoryAddress[${i}] = ${JSON.stringify(a)?.slice(0, 40)} is not an address (a whole number, 0 or more)`);
        allocations.push({ ts: t * 1000, bytes: w, stack, address: addr ? a : null });
      }
    }
    const tid = typeof th.tid === 'number' || typeof th.tid === 'string' ? th.tid : index;
    return { tid, name: typeof th.name === 'string' && th.name ? th.name : `thread ${index}`, samples, scopes, allocations };
  });
  // wasmtrace's encoder puts the session and its drop counts in meta.wasmtrace
  // (the same fields as the chrome format's wasmtrace_session/_stats).
  const wt = isObject(meta.wasmtrace) ? meta.wasmtrace : null;
  return {
    format: 'firefox',
    session: wt,
    intervalUs: isNum(wt?.intervalUs) ? wt.intervalUs : intervalMs ? intervalMs * 1000 : inferInterval(threads),
    stats: wt && wt.samplesTaken !== undefined ? wt : null,
    threads: threads.filter((th) => th.samples.length || th.scopes.length || th.allocations.length),
    ...recordedFields(wt),
  };
}

// ---- folded ---------------------------------------------------------------------

// "thread;outer;inner 42": the first frame names the thread (that is how
// wasmtrace writes it). Lines starting with '#' are comments; wasmtrace's
// last line is its stats record: '# wasmtrace ' and one JSON object, the
// session's settings with the same "stats" member as the other formats:
//   # wasmtrace {"version":"0.1.0","session":"startup","format":"folded",
//   "intervalUs":1000,...,"stats":{"samplesTaken":10,"samplesWritten":9,...}}
// Lines end at '\n' only (and a '\r' before it): a name may hold any other
// character, U+2028 and U+2029 included (the encoder rewrites only control
// characters). The count is what follows the last space or tab, as
// flamegraph.pl reads it.
const FOLDED_RECORD = '# wasmtrace {';
// A record longer than this is not one wasmtrace wrote.
const FOLDED_RECORD_MAX = 1 << 20;
const FOLDED_COUNT = /^\d+(?:\.\d+)?$/;

// [frames, count] of a line, or null; no regex over the whole line (a
// backtracking one is quadratic on a crafted line).
function foldedSplit(line) {
  const cut = Math.max(line.lastIndexOf(' '), line.lastIndexOf('\t'));
  if (cut <= 0 || !FOLDED_COUNT.test(line.slice(cut + 1))) return null;
  const frames = line.slice(0, cut);
  return frames.trim() ? [frames, line.slice(cut + 1)] : null;
}

function readFolded(text, budget) {
  // Traces from before names were merged: one function, one name.
  const canonical = nameCanonicalizer();
  const threads = new Map();
  let record = null;
  let lineNo = 0;
  budget.charge(text.length * 2, 'its lines');
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const raw = text.slice(start, end);
    start = end + 1;
    lineNo++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.trim()) continue;
    if (line.startsWith('#')) {
      if (line.startsWith(FOLDED_RECORD)) record = foldedRecord(line, lineNo);
      continue;
    }
    const m = foldedSplit(line);
    if (!m) throw new TraceError(`folded stacks: line ${lineNo} is not "frame;frame;... count": ${JSON.stringify(line.slice(0, 80))}`);
    const weight = Number(m[1]);
    if (!Number.isFinite(weight)) throw new TraceError(`folded stacks: line ${lineNo}: the count ${m[1].slice(0, 40)} is not a finite number`);
    const frames = m[0].split(';');
    // What the line keeps: its sample and its stack's array (the names are
    // the text's, shared by every line that has them).
    budget.charge(72 + 8 * frames.length, 'its stacks');
    const threadName = frames.shift();
    for (let i = 0; i < frames.length; i++) frames[i] = canonical(frames[i]);
    const stack = isIdle(frames) ? [] : frames;
    if (!threads.has(threadName)) threads.set(threadName, { tid: threads.size, name: threadName, samples: [], scopes: [] });
    threads.get(threadName).samples.push({ ts: null, stack, weight });
  }
  const { stats = null, ...session } = record ?? {};
  return {
    format: 'folded',
    session: record ? session : null,
    intervalUs: isNum(record?.intervalUs) ? record.intervalUs : null,
    stats,
    threads: [...threads.values()],
    ...recordedFields(stats),
  };
}

// The session and stats from wasmtrace's '# wasmtrace {...}' line.
function foldedRecord(line, lineNo) {
  const bad = (why) => new TraceError(`folded stacks: line ${lineNo}: the '# wasmtrace' stats record ${why}`);
  if (line.length > FOLDED_RECORD_MAX) throw bad(`is longer than ${FOLDED_RECORD_MAX} characters`);
  let record;
  try {
    record = JSON.parse(line.slice(FOLDED_RECORD.length - 1));
  } catch (e) {
    throw bad(`is not valid JSON (${e.message})`);
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) throw bad('is not a JSON object');
  if (record.stats !== undefined && (!record.stats || typeof record.stats !== 'object' || Array.isArray(record.stats))) throw bad('has a "stats" member that is not an object');
  return record;
}

// ---- views ---------------------------------------------------------------------

/**
 * Total sample weight of a thread, how much of it was idle, and how much
 * carried each marker (MARKERS): partial (the stack moved during the copy)
 * and waiting. Partial and waiting samples are busy samples.
 */
export function threadTotals(thread) {
  let total = 0;
  let idle = 0;
  let partial = 0;
  let waiting = 0;
  for (const s of thread.samples) {
    const w = s.weight ?? 1;
    total += w;
    const n = s.stack.length;
    if (!n) idle += w;
    else if (MARKER_NAMES.has(s.stack[n - 1])) {
      const tail = s.stack.slice(realDepth(s.stack));
      if (tail.includes(MARKERS.partial)) partial += w;
      if (tail.includes(MARKERS.waiting)) waiting += w;
    }
  }
  return { total, idle, busy: total - idle, partial, waiting };
}

// The busy samples of a thread grouped by stack: readers share one array
// between the samples of one stack, so the views below cost the distinct
// stacks' frames, not samples x depth (a deep stack sampled a million
// times is walked once).
function byStack(thread) {
  const weights = new Map();
  for (const s of thread.samples) {
    if (!s.stack.length) continue;
    weights.set(s.stack, (weights.get(s.stack) ?? 0) + (s.weight ?? 1));
  }
  return weights;
}

/**
 * Per function: self weight (leaf of the sample), of which waiting (self
 * weight of samples marked "(waiting)": the thread was blocked in a wait in
 * that frame), and total weight (anywhere on the stack, counted once per
 * sample even when recursive). Sorted by self, then total. Idle samples are
 * not functions and are left out, and so are markers (MARKERS): a sample
 * that ends in one gives its self weight to the last real frame before it
 * (none if it has none).
 */
export function functionTable(thread) {
  const rows = new Map();
  const row = (name) => {
    let r = rows.get(name);
    if (!r) rows.set(name, (r = { name, self: 0, waiting: 0, total: 0 }));
    return r;
  };
  for (const [stack, w] of byStack(thread)) {
    const n = realDepth(stack);
    if (!n) continue;
    const leaf = row(stack[n - 1]);
    leaf.self += w;
    if (n < stack.length && stack.lastIndexOf(MARKERS.waiting) >= n) leaf.waiting += w;
    const seen = new Set(n === stack.length ? stack : stack.slice(0, n));
    for (const name of seen) row(name).total += w;
  }
  return [...rows.values()].sort((a, b) => b.self - a.self || b.total - a.total || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The merged call tree of a thread's busy samples, root first:
 * { name: '(root)', value, self, children: [...] } with children sorted by
 * value, descending (what a flame graph draws left to right). Built and
 * finished without recursion: a tree may be as deep as a stack.
 */
export function callTree(thread) {
  const root = { name: '(root)', value: 0, self: 0, children: [] };
  const index = new Map(); // node -> Map(name -> child)
  for (const [stack, w] of byStack(thread)) {
    root.value += w;
    let node = root;
    for (const name of stack) {
      let children = index.get(node);
      if (!children) index.set(node, (children = new Map()));
      let child = children.get(name);
      if (!child) {
        child = { name, value: 0, self: 0, children: [] };
        children.set(name, child);
        node.children.push(child);
      }
      child.value += w;
      node = child;
    }
    node.self += w;
  }
  for (const node of index.keys()) node.children.sort((a, b) => b.value - a.value);
  return root;
}

/**
 * Sample weight in which `name` is on the stack (total) or the leaf (self;
 * the leaf is the last real frame, before any marker, as in functionTable).
 */
export function weightOf(thread, name, { self = false } = {}) {
  let w = 0;
  for (const [stack, sw] of byStack(thread)) {
    if (self ? stack[realDepth(stack) - 1] === name : stack.includes(name)) w += sw;
  }
  return w;
}

/** Sampled time in ms for a weight, or null when the interval is unknown. */
export function weightToMs(profile, weight) {
  return profile.intervalUs ? (weight * profile.intervalUs) / 1000 : null;
}
