// Reading any trace wasmtrace writes into one model, whatever the format:
//   chrome   Chrome Trace Event JSON (Profile/ProfileChunk CPU samples)
//   firefox  Firefox Profiler processed profile (threads[].samples,
//            stackTable, frameTable, funcTable, string array)
//   folded   collapsed stacks, "thread;outer;inner count" per line
// gzip or not. The model (see index.d.ts, Profile):
//   { format, session, intervalUs, stats, threads: [{ tid, name,
//     samples: [{ ts, stack, weight }], scopes: [{ name, ts, dur, cat }] }] }
// with stacks root first, [] for an idle sample, times in microseconds.
// Then the two views a profiler shows: a function table (self and total)
// and a call tree (what a flame graph draws).
import { analyzeTrace, decompress, parseTrace } from './trace.mjs';

/** Names a sample may carry instead of an empty stack when the thread was idle. */
const IDLE_NAMES = new Set(['(idle)', '(root)']);

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

/**
 * Reads a trace file's bytes (any format wasmtrace writes, gzip or not).
 * @param {Uint8Array|Buffer|string} input
 * @param {{format?: string}} [options] force a format instead of detecting it
 * @returns {import('./index.js').Profile}
 */
export function readProfile(input, { format } = {}) {
  const text = typeof input === 'string' ? input : decompress(input).toString('utf8');
  let kind = format || detectFormat(text);
  let json = null;
  if (kind === 'json') {
    json = JSON.parse(text);
    kind = Array.isArray(json) || json.traceEvents ? 'chrome' : json.threads ? 'firefox' : null;
    if (!kind) throw new Error('not a trace wasmtrace can read: a JSON object without traceEvents or threads');
  }
  if (kind === 'chrome') return readChrome(json ? (Array.isArray(json) ? json : json.traceEvents) : parseTrace(Buffer.from(text)));
  if (kind === 'firefox') return readFirefox(json || JSON.parse(text));
  if (kind === 'folded') return readFolded(text);
  throw new Error(`unknown trace format '${kind}' (known: chrome, firefox, folded)`);
}

function isIdle(stack) {
  return stack.length === 0 || (stack.length === 1 && IDLE_NAMES.has(stack[0]));
}

// ---- chrome ------------------------------------------------------------------

function readChrome(events) {
  const a = analyzeTrace(events);
  const threads = a.threads
    .filter((t) => t.samples.length || t.scopes.length)
    .map((t) => ({
      tid: t.tid,
      name: t.name ?? `tid ${t.tid}`,
      samples: t.samples.map((s) => ({ ts: s.ts, stack: isIdle(s.stack) ? [] : s.stack, weight: 1 })),
      scopes: t.scopes,
    }));
  return {
    format: 'chrome',
    session: a.session,
    intervalUs: a.session?.intervalUs ?? inferInterval(threads),
    stats: a.stats,
    threads,
  };
}

/** Median gap between samples, for traces without session metadata. */
function inferInterval(threads) {
  const gaps = [];
  for (const t of threads) {
    for (let i = 1; i < t.samples.length && gaps.length < 5000; i++) {
      const d = t.samples[i].ts - t.samples[i - 1].ts;
      if (d > 0) gaps.push(d);
    }
  }
  if (!gaps.length) return null;
  gaps.sort((x, y) => x - y);
  return gaps[gaps.length >> 1];
}

// ---- firefox (processed profile) ----------------------------------------------

function readFirefox(p) {
  if (!Array.isArray(p.threads)) throw new Error('Firefox profile without a threads array');
  const sharedStrings = p.shared?.stringArray ?? p.shared?.stringTable ?? null;
  const intervalMs = Number(p.meta?.interval) || null;
  // Times in a processed profile are ms since meta.startTime.
  const threads = p.threads.map((th, index) => {
    const strings = th.stringArray ?? th.stringTable ?? sharedStrings;
    if (!Array.isArray(strings)) throw new Error(`Firefox profile thread ${index}: no string array`);
    const str = (i) => (i === null || i === undefined ? '' : strings[i] ?? `(string ${i})`);
    const { stackTable, frameTable, funcTable } = th;
    const funcName = (f) => str(funcTable.name[f]);
    const memo = new Map();
    const stackOf = (s) => {
      if (s === null || s === undefined) return [];
      let out = memo.get(s);
      if (out) return out;
      // Walk to the root iteratively (deep stacks), then build root first.
      const chain = [];
      for (let cur = s; cur !== null && cur !== undefined; cur = stackTable.prefix[cur]) {
        if (memo.has(cur)) {
          out = memo.get(cur).slice();
          break;
        }
        chain.push(cur);
      }
      out = out || [];
      for (let i = chain.length - 1; i >= 0; i--) {
        out = out.concat(funcName(frameTable.func[stackTable.frame[chain[i]]]));
        memo.set(chain[i], out);
      }
      return out;
    };
    const samples = [];
    const sm = th.samples || {};
    const n = sm.length ?? sm.stack?.length ?? 0;
    let t = 0;
    for (let i = 0; i < n; i++) {
      if (sm.time) t = sm.time[i];
      else if (sm.timeDeltas) t += sm.timeDeltas[i];
      const stack = stackOf(sm.stack[i]);
      samples.push({ ts: t * 1000, stack: isIdle(stack) ? [] : stack, weight: sm.weight ? sm.weight[i] : 1 });
    }
    const scopes = [];
    const mk = th.markers;
    if (mk && mk.length) {
      for (let i = 0; i < mk.length; i++) {
        const start = mk.startTime?.[i];
        const end = mk.endTime?.[i];
        // phase 1 = interval; older profiles have no phase but both times.
        const interval = mk.phase ? mk.phase[i] === 1 : start !== null && end !== null && end !== undefined;
        if (!interval || start === null || end === null || end === undefined) continue;
        const data = mk.data?.[i];
        const cat = p.meta?.categories?.[mk.category?.[i]]?.name ?? data?.category ?? '';
        scopes.push({ name: str(mk.name[i]), ts: start * 1000, dur: (end - start) * 1000, cat });
      }
    }
    return { tid: th.tid ?? index, name: th.name || `thread ${index}`, samples, scopes };
  });
  // wasmtrace's encoder puts the session and its drop counts in meta.wasmtrace
  // (the same fields as the chrome format's wasmtrace_session/_stats).
  const wt = p.meta?.wasmtrace ?? null;
  return {
    format: 'firefox',
    session: wt,
    intervalUs: wt?.intervalUs ?? (intervalMs ? intervalMs * 1000 : inferInterval(threads)),
    stats: wt && wt.samplesTaken !== undefined ? wt : null,
    threads: threads.filter((th) => th.samples.length || th.scopes.length),
  };
}

// ---- folded ---------------------------------------------------------------------

// "thread;outer;inner 42": the first frame names the thread (that is how
// wasmtrace writes it). Lines starting with '#' are comments; wasmtrace's
// last line is its stats record: '# wasmtrace ' and one JSON object, the
// session's settings with the same "stats" member as the other formats:
//   # wasmtrace {"version":"0.1.0","session":"startup","format":"folded",
//   "intervalUs":1000,...,"stats":{"samplesTaken":10,"samplesWritten":9,...}}
const FOLDED_RECORD = '# wasmtrace {';
// A record longer than this is not one wasmtrace wrote.
const FOLDED_RECORD_MAX = 1 << 20;

function readFolded(text) {
  const threads = new Map();
  let record = null;
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    lineNo++;
    const line = raw.replace(/\r$/, '');
    if (!line.trim()) continue;
    if (line.startsWith('#')) {
      if (line.startsWith(FOLDED_RECORD)) record = foldedRecord(line, lineNo);
      continue;
    }
    const m = /^(.*\S)\s+(\d+(?:\.\d+)?)$/.exec(line);
    if (!m) throw new Error(`folded stacks: line ${lineNo} is not "frame;frame;... count": ${line.slice(0, 80)}`);
    const frames = m[1].split(';');
    const threadName = frames.shift();
    const stack = isIdle(frames) ? [] : frames;
    if (!threads.has(threadName)) threads.set(threadName, { tid: threads.size, name: threadName, samples: [], scopes: [] });
    threads.get(threadName).samples.push({ ts: null, stack, weight: Number(m[2]) });
  }
  const { stats = null, ...session } = record ?? {};
  return {
    format: 'folded',
    session: record ? session : null,
    intervalUs: record?.intervalUs ?? null,
    stats,
    threads: [...threads.values()],
  };
}

// The session and stats from wasmtrace's '# wasmtrace {...}' line.
function foldedRecord(line, lineNo) {
  const bad = (why) => new Error(`folded stacks: line ${lineNo}: the '# wasmtrace' stats record ${why}`);
  if (line.length > FOLDED_RECORD_MAX) throw bad(`is longer than ${FOLDED_RECORD_MAX} characters`);
  let record;
  try {
    record = JSON.parse(line.slice(FOLDED_RECORD.length - 1));
  } catch (e) {
    throw bad(`is not valid JSON (${e.message})`);
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) throw bad('is not a JSON object');
  if (record.stats !== undefined && (!record.stats || typeof record.stats !== 'object')) throw bad('has a "stats" member that is not an object');
  return record;
}

// ---- views ---------------------------------------------------------------------

/** Total sample weight of a thread, and how much of it was idle. */
export function threadTotals(thread) {
  let total = 0;
  let idle = 0;
  for (const s of thread.samples) {
    total += s.weight ?? 1;
    if (!s.stack.length) idle += s.weight ?? 1;
  }
  return { total, idle, busy: total - idle };
}

/**
 * Per function: self weight (leaf of the sample) and total weight (anywhere
 * on the stack, counted once per sample even when recursive). Sorted by
 * self, then total. Idle samples are not functions and are left out.
 */
export function functionTable(thread) {
  const rows = new Map();
  const row = (name) => {
    let r = rows.get(name);
    if (!r) rows.set(name, (r = { name, self: 0, total: 0 }));
    return r;
  };
  for (const s of thread.samples) {
    if (!s.stack.length) continue;
    const w = s.weight ?? 1;
    row(s.stack[s.stack.length - 1]).self += w;
    const seen = new Set(s.stack);
    for (const name of seen) row(name).total += w;
  }
  return [...rows.values()].sort((a, b) => b.self - a.self || b.total - a.total || (a.name < b.name ? -1 : 1));
}

/**
 * The merged call tree of a thread's busy samples, root first:
 * { name: '(root)', value, self, children: [...] } with children sorted by
 * value, descending (what a flame graph draws left to right).
 */
export function callTree(thread) {
  const root = { name: '(root)', value: 0, self: 0, children: [] };
  for (const s of thread.samples) {
    if (!s.stack.length) continue;
    const w = s.weight ?? 1;
    root.value += w;
    let node = root;
    for (const name of s.stack) {
      node.index ??= new Map();
      let child = node.index.get(name);
      if (!child) {
        child = { name, value: 0, self: 0, children: [] };
        node.index.set(name, child);
        node.children.push(child);
      }
      child.value += w;
      node = child;
    }
    node.self += w;
  }
  const finish = (n) => {
    delete n.index;
    n.children.sort((a, b) => b.value - a.value);
    for (const c of n.children) finish(c);
    return n;
  };
  return finish(root);
}

/** Sample weight in which `name` is on the stack (total) or the leaf (self). */
export function weightOf(thread, name, { self = false } = {}) {
  let w = 0;
  for (const s of thread.samples) {
    if (!s.stack.length) continue;
    if (self ? s.stack[s.stack.length - 1] === name : s.stack.includes(name)) w += s.weight ?? 1;
  }
  return w;
}

/** Sampled time in ms for a weight, or null when the interval is unknown. */
export function weightToMs(profile, weight) {
  return profile.intervalUs ? (weight * profile.intervalUs) / 1000 : null;
}
