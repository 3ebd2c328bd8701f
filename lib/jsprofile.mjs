// The page main thread's JavaScript and wasm as the browser sampled them
// (the JS Self-Profiling API: Module.wasmtrace.jsProfile(), started by the
// shim's pre-js before the module is fetched), added to a wasmtrace trace
// as one more thread, "main (JS)", on the trace's own clock (both are the
// page's performance.now(); the trace in microseconds). The shadow-stack
// samples say what the app's C/C++ did on every pthread; this thread says
// what the main thread's JavaScript did around it (the Emscripten glue,
// fetch and compile callbacks, the app's own JS) and names the wasm
// functions the browser saw running, at the browser's 10 ms.
//
//   addJsProfile(traceBytes, profile) -> { bytes, added, workers, reason, workersReason }
//
// The pthreads' workers' profiles (profile.workers) become "worker N (JS)"
// threads the same way, their times moved onto the page's clock.
// Every format: chrome (thread_name metadata and one Profile/ProfileChunk
// pair on a tid of its own), firefox (a thread of the processed profile)
// and folded (lines "main (JS);outer;inner count"). Sample weights are
// counted in the session's sampling periods, like wasmtrace's own samples,
// so that the views compare the two (a 10 ms sample of a 1 ms session
// weighs 10). Only samples in the session's window are added: from its
// start (or from the first phase of its startup timeline, which a session
// started before main() carries) to its stop.
import { gzipSync } from 'node:zlib';
import { basename } from 'node:path';
import { canonicalFunctionName, loadNameParser } from './names.mjs';
import { detectFormat, gridWeights, isJsProfileThread } from './profile.mjs';
import { decompress, TraceError } from './trace.mjs';
import { wasmFunctionLocator, wasmNameSection } from './wasm-module.mjs';

export const JS_THREAD_NAME = 'main (JS)';
/** The tid of the thread in chrome traces (wasmtrace's threads are slot + 1, the startup tracks 100000 + lane). */
export const JS_THREAD_TID = 90000;
// isJsProfileThread (lib/profile.mjs): a thread addJsProfile added.
export { isJsProfileThread };
export { wasmFunctionLocator, wasmNameSection };
/** One of the threads addJsProfile wrote (not an app thread that happens
 * to have a name ending in " (JS)"): its name and its tid (chrome, firefox). */
const isAddedThread = (name, tid) => isJsProfileThread(name) && Number(tid) >= JS_THREAD_TID && Number(tid) <= JS_THREAD_TID + MAX_WORKERS;
/** The added threads' names made unique against each other and the
 * trace's own threads (a suffix " #2", ...), each still ending in " (JS)". */
function uniqueNames(threads, taken) {
  const used = new Set(taken);
  return threads.map((t) => {
    let name = t.name;
    for (let k = 2; used.has(name); k++) name = `${t.name.slice(0, -' (JS)'.length)} #${k} (JS)`;
    used.add(name);
    return { ...t, name };
  });
}
const MAX_SAMPLES = 1_000_000;
const MAX_DEPTH = 4096;
const MAX_WORKERS = 256;
const MAX_STACKS = 200_000;
const MAX_STACK_FRAMES = 20_000_000;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * Reads a WasmtraceJsProfile (the page's plain data; any value) into
 * { intervalMs, frames: [{ name, url, line, column, kind }], samples:
 * [{ ts (us), stack: [frame index, root first] }] }, or throws a
 * TraceError naming what is wrong. kind: 'wasm' (the frame's resource is a
 * .wasm file), 'js' (another script), 'native' (no resource: a browser
 * builtin such as fetch or js-to-wasm). A wasm function the module's name
 * section does not name (a stripped build) is "wasm-function[<index>]",
 * the name wasmtrace's own samples give it, when the caller passes the
 * module's bytes (wasmFunctionAt). A named one is named as wasmtrace's own
 * frames name it: wasmNameAt(column, url) gives the recorder's name of the
 * function at that offset (its name section read by the recorder's own
 * parser: clone suffixes cut, same-named locals merged); without it the
 * recorder's rule for clone suffixes (lib/names.mjs) applies to the name.
 */
export function readJsProfile(profile, { wasmFunctionAt = null, wasmNameAt = null, offsetMs = 0 } = {}) {
  if (!isObject(profile)) throw new TraceError('the JS profile is not an object');
  if (typeof profile.reason === 'string' && profile.reason) throw new TraceError(`no JS profile: ${profile.reason}`);
  const { samples, stacks, frames, resources } = profile;
  for (const [name, v] of Object.entries({ samples, stacks, frames, resources })) {
    if (!Array.isArray(v)) throw new TraceError(`the JS profile's ${name} is not an array`);
  }
  if (samples.length > MAX_SAMPLES) throw new TraceError(`the JS profile has ${samples.length} samples (at most ${MAX_SAMPLES})`);
  if (frames.length > MAX_STACKS || resources.length > MAX_STACKS) {
    throw new TraceError(`the JS profile has ${frames.length} frames and ${resources.length} resources (at most ${MAX_STACKS} each)`);
  }
  const intervalMs = isNum(profile.intervalMs) && profile.intervalMs > 0 ? profile.intervalMs : 10;
  const urls = resources.map((r) => (typeof r === 'string' ? r : ''));
  // Index loops, not map(): map() skips the holes of a sparse array (a
  // hole is a missing frame or sample, refused like any other bad entry).
  const outFrames = Array.from({ length: frames.length }, (_, i) => frames[i]).map((f, i) => {
    if (!isObject(f)) throw new TraceError(`the JS profile's frame ${i} is not an object`);
    const url = Number.isInteger(f.resource) && f.resource >= 0 && f.resource < urls.length ? urls[f.resource] : '';
    const file = url ? basename(url.split(/[?#]/)[0]) : '';
    const kind = !url ? 'native' : /\.wasm$/i.test(file) ? 'wasm' : 'js';
    const line = Number.isInteger(f.line) && f.line > 0 ? f.line : -1;
    const column = Number.isInteger(f.column) && f.column > 0 ? f.column : -1;
    let name = typeof f.name === 'string' ? f.name.slice(0, 1024) : '';
    if (kind === 'wasm') {
      // Chromium names a function without a name-section entry
      // "$func<index>" or leaves the name empty; the column is then the
      // function's offset in the module.
      const m = /^(?:\$func|wasm-function\[)(\d+)\]?$/.exec(name);
      if (m) name = `wasm-function[${m[1]}]`;
      // A function's name, as wasmtrace's own frames name it: a compiler
      // clone ("ZSTD_count.5", "f(int) (.llvm.12)", wasm-ld's "helper_42")
      // is the function.
      else if (name) {
        const own = wasmNameAt && column > 0 ? wasmNameAt(column, url) : null;
        const canonical = canonicalFunctionName(name, { all: true });
        // Taken only when it is this name's function (the name itself, or
        // it with a suffix): an offset that points elsewhere names nothing.
        name = typeof own === 'string' && own && (own === canonical || (name.startsWith(own) && /^[_.( ]/.test(name.slice(own.length))))
          ? own : canonical;
      }
      else if (!name) {
        const index = wasmFunctionAt && column > 0 ? wasmFunctionAt(column, url) : null;
        name = index !== null && index !== undefined ? `wasm-function[${index}]` : `(wasm ${file}:${column})`;
      }
    } else if (!name) name = kind === 'js' ? '(anonymous)' : '(native)';
    return { name, url, line, column, kind };
  });
  // Stacks: each a frame and the stack it was called from; resolved to
  // root-first frame lists once per stack (and cached), with cycles and
  // bad references refused.
  if (stacks.length > MAX_STACKS) throw new TraceError(`the JS profile has ${stacks.length} stacks (at most ${MAX_STACKS})`);
  const resolved = new Array(stacks.length);
  let frameBudget = MAX_STACK_FRAMES; // all resolved stacks' frames together
  const stackOf = (id) => {
    if (!Number.isInteger(id) || id < 0 || id >= stacks.length) throw new TraceError(`the JS profile refers to unknown stack ${JSON.stringify(id)}`);
    if (resolved[id]) return resolved[id];
    const chain = [];
    let at = id;
    while (at !== undefined && at !== null) {
      if (resolved[at]) break;
      if (chain.length >= MAX_DEPTH) throw new TraceError(`the JS profile's stack ${id} is deeper than ${MAX_DEPTH} (a cycle?)`);
      if (!Number.isInteger(at) || at < 0 || at >= stacks.length) throw new TraceError(`the JS profile refers to unknown stack ${JSON.stringify(at)}`);
      const s = stacks[at];
      if (!Array.isArray(s) || !Number.isInteger(s[0]) || s[0] < 0 || s[0] >= outFrames.length) {
        throw new TraceError(`the JS profile's stack ${at} is not [frame, parent?] with a known frame`);
      }
      if (s[1] !== undefined && s[1] !== null && !Number.isInteger(s[1])) {
        throw new TraceError(`the JS profile's stack ${at} has a parent that is not a stack index: ${JSON.stringify(s[1]).slice(0, 40)}`);
      }
      chain.push(at);
      at = s[1];
    }
    let prefix = at !== undefined && at !== null ? resolved[at] : [];
    for (let i = chain.length - 1; i >= 0; i--) {
      prefix = prefix.concat([stacks[chain[i]][0]]);
      if (prefix.length > MAX_DEPTH) throw new TraceError(`the JS profile's stack ${id} is deeper than ${MAX_DEPTH}`);
      frameBudget -= prefix.length;
      if (frameBudget < 0) throw new TraceError(`the JS profile's stacks hold more than ${MAX_STACK_FRAMES} frames in all`);
      resolved[chain[i]] = prefix;
    }
    return resolved[id];
  };
  let last = -Infinity;
  const outSamples = Array.from({ length: samples.length }, (_, i) => samples[i]).map((x, i) => {
    if (!Array.isArray(x) || !isNum(x[0])) throw new TraceError(`the JS profile's sample ${i} is not [time, stack?]`);
    const ts = (x[0] + offsetMs) * 1000;
    // A time the trace's readers take back (lib/profile.mjs: within 2^53 us).
    if (!(Math.abs(ts) <= 2 ** 53)) throw new TraceError(`the JS profile's sample ${i} has a time out of range (${String(x[0]).slice(0, 30)} ms)`);
    if (ts < last) throw new TraceError(`the JS profile's samples are not in time order (sample ${i})`);
    last = ts;
    return { ts, stack: x.length > 1 && x[1] !== null && x[1] !== undefined ? stackOf(x[1]) : [] };
  });
  return { intervalMs, frames: outFrames, samples: outSamples, full: profile.full === true };
}

let nameParser = null;

// The session's window and interval, from what the reader found.
function windowOf(session, stats, startup) {
  const startUs = isNum(session?.startTimeUs) ? session.startTimeUs : isNum(stats?.startTimeUs) ? stats.startTimeUs : -Infinity;
  const stopUs = isNum(stats?.stopTimeUs) ? stats.stopTimeUs : Infinity;
  let from = startUs;
  for (const ph of startup?.phases ?? []) if (isNum(ph?.beginUs) && ph.beginUs < from) from = ph.beginUs;
  const intervalUs = isNum(session?.intervalUs) && session.intervalUs > 0 ? session.intervalUs : 1000;
  return { from, to: stopUs, intervalUs, startUs: isNum(startUs) ? startUs : 0 };
}

/**
 * Adds the JS profile to a wasmtrace trace (Buffer or Uint8Array, gzip or
 * not; any of the three formats): the page main thread's as "main (JS)",
 * and each pthread worker's that answered (profile.workers) as "worker N
 * (JS)", their times moved to the page's clock. Returns { bytes (gzip if
 * the input was), added (main thread samples added), workers: [{ name,
 * samples }], reason ('' or why the main thread has none), workersReason
 * ('' or what is missing of the workers) }. A trace that already has
 * "main (JS)" is left as it is. Throws a TraceError for a trace or main
 * thread profile it cannot read; a worker's profile it cannot read is left
 * out and named in workersReason.
 */
export function addJsProfile(traceBytes, profile, { wasmBytes = null, wasmModules = null } = {}) {
  if (isObject(profile) && typeof profile.reason === 'string' && profile.reason) {
    return { bytes: traceBytes, added: 0, workers: [], reason: profile.reason, workersReason: '' };
  }
  // Unnamed wasm functions by code offset: each module's own (wasmModules,
  // by URL), or the one module given for every URL (wasmBytes).
  const locators = new Map();
  const bytesOf = (url) => (wasmModules instanceof Map && wasmModules.has(url) ? wasmModules.get(url) : wasmBytes);
  const locatorOf = (url) => {
    if (!locators.has(url)) {
      const bytes = bytesOf(url);
      locators.set(url, bytes ? wasmFunctionLocator(bytes) : null);
    }
    return locators.get(url);
  };
  // Each module's function names as the recorder reads them (its own
  // parser, lib/names.mjs), by function index.
  const nameTables = new Map();
  const namesOf = (url) => {
    if (!nameTables.has(url)) {
      let table = null;
      const section = bytesOf(url) ? wasmNameSection(bytesOf(url)) : null;
      if (section) {
        try {
          nameParser ??= loadNameParser();
          table = nameParser(section);
        } catch {
          table = null; // the clone rule alone names the frames
        }
      }
      nameTables.set(url, table);
    }
    return nameTables.get(url);
  };
  const nameAt = (offset, url) => {
    const index = locatorOf(url)?.(offset);
    const table = index === null || index === undefined ? null : namesOf(url);
    return table && Object.hasOwn(table, index) ? table[index] : null;
  };
  const locator = wasmBytes || wasmModules ? (offset, url) => locatorOf(url)?.(offset) ?? null : null;
  const threads = [{ name: JS_THREAD_NAME, tid: JS_THREAD_TID, js: readJsProfile(profile, { wasmFunctionAt: locator, wasmNameAt: nameAt }) }];
  const problems = [];
  const workers = Array.isArray(profile.workers) ? profile.workers.slice(0, MAX_WORKERS) : [];
  if (Array.isArray(profile.workers) && profile.workers.length > MAX_WORKERS) problems.push(`${profile.workers.length - MAX_WORKERS} workers past ${MAX_WORKERS} left out`);
  workers.forEach((w, i) => {
    // A worker's name is the page's word: it must say it is a worker's JS
    // view (" (JS)"), and may not pass for the page's main thread.
    const name = isObject(w) && typeof w.name === 'string' && /^[\w .()-]{1,64}$/.test(w.name) && isJsProfileThread(w.name) &&
      w.name !== JS_THREAD_NAME ? w.name : `worker ${i + 1} (JS)`;
    try {
      if (!isObject(w) || !isNum(w.offsetMs)) throw new TraceError('no clock offset');
      if (typeof w.reason === 'string' && w.reason) throw new TraceError(w.reason);
      threads.push({ name, tid: JS_THREAD_TID + 1 + i, js: readJsProfile(w, { wasmFunctionAt: locator, wasmNameAt: nameAt, offsetMs: w.offsetMs }) });
    } catch (e) {
      problems.push(`${name}: ${e.message}`);
    }
  });
  const missing = Number.isInteger(profile.workersMissing) && profile.workersMissing > 0 ? profile.workersMissing : 0;
  if (missing) {
    problems.push(`${missing} worker(s) did not answer (a worker whose pthread still runs never returns to its event loop)`);
  }
  const raw = Buffer.from(traceBytes);
  const gz = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
  // Inflated as every reader inflates: within the readers' size limit.
  const text = decompress(raw).toString('utf8');
  const format = detectFormat(text);
  let out;
  let counts;
  let named = threads; // as written: unique names (uniqueNames)
  if (format === 'chrome') [out, counts, named] = addChrome(text, threads);
  else if (format === 'firefox') [out, counts, named] = addFirefox(text, threads);
  else if (format === 'folded') [out, counts, named] = addFolded(text, threads);
  else throw new TraceError(`not a trace wasmtrace wrote (format ${format})`);
  if (out === null) {
    return { bytes: traceBytes, added: 0, workers: [], reason: 'the trace already has the JS profile\'s threads', workersReason: '' };
  }
  const bytes = Buffer.from(out, 'utf8');
  return {
    bytes: gz ? gzipSync(bytes) : bytes,
    added: counts[0],
    workers: named.slice(1).map((t, i) => ({ name: t.name, samples: counts[i + 1] })),
    reason: counts[0] ? '' : "no JS sample fell in the session's window (the page's profile runs from its load to the first jsProfile() call)",
    workersReason: problems.join('; '),
  };
}

function inWindow(js, w) {
  return js.samples.filter((s) => s.ts >= w.from && s.ts <= w.to);
}

// ---- chrome ---------------------------------------------------------------------

function addChrome(text, threads) {
  const doc = JSON.parse(text);
  const events = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.traceEvents) ? doc.traceEvents : null;
  if (!events) throw new TraceError('chrome trace: no event array');
  let session = null;
  let stats = null;
  let pid = 1;
  for (const e of events) {
    if (!isObject(e) || e.ph !== 'M') continue;
    if (e.name === 'wasmtrace_session') session = e.args;
    else if (e.name === 'wasmtrace_stats') stats = e.args;
    else if (e.name === 'process_name' && e.pid !== undefined) pid = e.pid;
    else if (e.name === 'thread_name' && isAddedThread(e.args?.name, e.tid)) return [null, []];
  }
  threads = uniqueNames(threads, events.filter((e) => isObject(e) && e.ph === 'M' && e.name === 'thread_name').map((e) => e.args?.name));
  const w = windowOf(session, stats, stats?.startup);
  const counts = threads.map(({ name, tid, js }) => {
    const samples = inWindow(js, w);
    if (samples.length) events.push(...chromeThread(samples, js, name, tid, pid));
    return samples.length;
  });
  return [counts.some((n) => n) ? serializeChrome(doc, events) : text, counts, threads];
}

// One JS profile's events: its name, a span DevTools needs to list it, and
// its samples as one Profile/ProfileChunk pair.
function chromeThread(samples, js, name, tid, pid) {
  // Nodes: one per distinct (parent node, frame), root "(root)" id 1;
  // an empty stack is the root's "(idle)" child.
  const nodes = [{ id: 1, callFrame: callFrame('(root)') }];
  const index = new Map();
  const child = (parent, key, frame) => {
    const k = `${parent}:${key}`;
    let id = index.get(k);
    if (!id) {
      id = nodes.length + 1;
      index.set(k, id);
      nodes.push({ id, parent, callFrame: frame });
    }
    return id;
  };
  const ids = samples.map((s) => {
    if (!s.stack.length) return child(1, 'idle', callFrame('(idle)'));
    let at = 1;
    for (const f of s.stack) {
      const fr = js.frames[f];
      at = child(at, f, callFrame(fr.name, fr.url, fr.line, fr.column));
    }
    return at;
  });
  const deltas = samples.map((s, i) => Math.round(s.ts - (i ? samples[i - 1].ts : samples[0].ts)));
  const first = Math.round(samples[0].ts);
  const last = Math.round(samples[samples.length - 1].ts);
  const id = `0x${tid.toString(16)}`;
  const cat = 'disabled-by-default-v8.cpu_profiler';
  return [
    { ph: 'M', cat: '__metadata', name: 'thread_name', pid, tid, ts: 0, args: { name } },
    { ph: 'M', cat: '__metadata', name: 'thread_sort_index', pid, tid, ts: 0, args: { sort_index: tid === JS_THREAD_TID ? 0 : 1 } },
    // DevTools' engine lists only threads with a trace event besides samples.
    { ph: 'X', cat: 'wasmtrace', name: 'JS Self-Profiling API', pid, tid, ts: first, dur: last - first,
      args: { intervalMs: js.intervalMs, samples: samples.length, bufferFull: js.full } },
    { ph: 'P', cat, name: 'Profile', id, pid, tid, ts: first, args: { data: { startTime: first } } },
    { ph: 'P', cat, name: 'ProfileChunk', id, pid, tid, ts: last, args: { data: { cpuProfile: { nodes, samples: ids }, timeDeltas: deltas } } },
  ];
}

// chrome's callFrame: 0-based line and column, -1 when unknown (the JS
// Self-Profiling API's are 1-based).
function callFrame(name, url = '', line = -1, column = -1) {
  return { functionName: name, scriptId: 0, url, lineNumber: line > 0 ? line - 1 : -1, columnNumber: column > 0 ? column - 1 : -1 };
}

// One event per line, as wasmtrace writes it (readable, diffable).
/** A chrome trace's text, an event a line (also lib/tier.mjs's). */
export function serializeChrome(doc, events) {
  const body = `[\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`;
  if (Array.isArray(doc)) return body;
  const { traceEvents, ...rest } = doc;
  return `${JSON.stringify(rest).slice(0, -1)}${Object.keys(rest).length ? ',' : ''}"traceEvents":${body}}\n`;
}

// ---- firefox --------------------------------------------------------------------

function addFirefox(text, threads) {
  const p = JSON.parse(text);
  if (!isObject(p) || !Array.isArray(p.threads) || !isObject(p.meta)) throw new TraceError('Firefox profile without meta and threads');
  if (p.threads.some((t) => isObject(t) && isAddedThread(t.name, t.tid))) return [null, []];
  threads = uniqueNames(threads, p.threads.map((t) => (isObject(t) ? t.name : null)));
  const wt = isObject(p.meta.wasmtrace) ? p.meta.wasmtrace : null;
  const w = windowOf(wt, wt, wt?.startup);
  const counts = threads.map(({ name, tid, js }) => {
    const samples = inWindow(js, w);
    if (samples.length) p.threads.push(firefoxThread(p, samples, js, name, tid, w));
    return samples.length;
  });
  return [counts.some((n) => n) ? `${JSON.stringify(p)}\n` : text, counts, threads];
}

function firefoxThread(p, samples, js, name, tid, w) {
  const strings = isObject(p.shared) && Array.isArray(p.shared.stringArray) ? p.shared.stringArray : null;
  if (!strings) throw new TraceError('Firefox profile without shared.stringArray (not one wasmtrace wrote)');
  const stringIndex = new Map();
  const str = (s) => {
    let i = stringIndex.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      stringIndex.set(s, i);
    }
    return i;
  };
  const categories = Array.isArray(p.meta.categories) ? p.meta.categories : (p.meta.categories = []);
  const category = (name, color) => {
    let i = categories.findIndex((c) => isObject(c) && c.name === name);
    if (i < 0) {
      i = categories.length;
      categories.push({ name, color, subcategories: ['Other'] });
    }
    return i;
  };
  const catOf = { wasm: category('WebAssembly', 'blue'), js: category('JavaScript', 'yellow'), native: category('Other', 'grey') };
  const idleCat = category('Idle', 'transparent');
  const main = p.threads.find((t) => isObject(t) && t.isMainThread) ?? p.threads[0] ?? {};
  // Functions and frames: one per JS profile frame used; "(idle)" for an empty stack.
  const func = { name: [], isJS: [], relevantForJS: [], resource: [], fileName: [], lineNumber: [], columnNumber: [] };
  const frame = { func: [], category: [], subcategory: [], address: [], inlineDepth: [], nativeSymbol: [], innerWindowID: [], line: [], column: [] };
  const frameOf = new Map();
  const addFrame = (key, name, kind, url, line, column, cat) => {
    let i = frameOf.get(key);
    if (i !== undefined) return i;
    i = frame.func.length;
    frameOf.set(key, i);
    func.name.push(str(name));
    func.isJS.push(kind === 'js');
    func.relevantForJS.push(kind === 'native');
    func.resource.push(-1);
    func.fileName.push(url ? str(url) : null);
    func.lineNumber.push(line > 0 ? line : null);
    func.columnNumber.push(column > 0 ? column : null);
    frame.func.push(i);
    frame.category.push(cat);
    frame.subcategory.push(0);
    frame.address.push(-1);
    frame.inlineDepth.push(0);
    frame.nativeSymbol.push(null);
    frame.innerWindowID.push(0);
    frame.line.push(line > 0 ? line : null);
    frame.column.push(column > 0 ? column : null);
    return i;
  };
  const stackTable = { frame: [], prefix: [] };
  const stackIndex = new Map();
  const stackFor = (prefix, fr) => {
    const k = `${prefix}:${fr}`;
    let i = stackIndex.get(k);
    if (i === undefined) {
      i = stackTable.frame.length;
      stackIndex.set(k, i);
      stackTable.frame.push(fr);
      stackTable.prefix.push(prefix);
    }
    return i;
  };
  const stackCol = samples.map((s) => {
    if (!s.stack.length) return stackFor(null, addFrame('idle', '(idle)', 'native', '', -1, -1, idleCat));
    let at = null;
    for (const f of s.stack) {
      const fr = js.frames[f];
      at = stackFor(at, addFrame(f, fr.name, fr.kind, fr.url, fr.line, fr.column, catOf[fr.kind]));
    }
    return at;
  });
  const ms = (us) => Math.round(us - w.startUs) / 1000;
  const withLength = (t) => ({ length: Object.values(t)[0].length, ...t });
  return {
    name,
    isMainThread: false,
    processType: main.processType ?? 'default',
    processName: main.processName ?? 'wasmtrace',
    processStartupTime: main.processStartupTime ?? 0,
    processShutdownTime: main.processShutdownTime ?? null,
    registerTime: ms(samples[0].ts),
    unregisterTime: null,
    pausedRanges: [],
    showMarkersInTimeline: false,
    pid: main.pid ?? '1',
    tid: String(tid),
    samples: {
      length: samples.length,
      weightType: 'samples',
      weight: gridWeights(samples, w.intervalUs),
      stack: stackCol,
      time: samples.map((s) => ms(s.ts)),
    },
    stackTable: withLength(stackTable),
    frameTable: withLength(frame),
    funcTable: withLength(func),
    resourceTable: { length: 0, lib: [], name: [], host: [], type: [] },
    nativeSymbols: { length: 0, libIndex: [], address: [], name: [], functionSize: [] },
    markers: { length: 0, name: [], category: [], startTime: [], endTime: [], phase: [], data: [] },
  };
}

// ---- folded ---------------------------------------------------------------------

// As the folded encoder writes names: ';' would split a frame, and a line
// break would end the line.
const foldedName = (s) => s.replace(/;/g, ':').replace(/[\u0000-\u001f\u007f]/g, ' ');

const FOLDED_MARK = '# wasmtrace: the threads below, up to the record, are the browser\'s JS profile (" (JS)")';
function addFolded(text, threads) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('# wasmtrace {'));
  let record = null;
  try {
    record = at >= 0 ? JSON.parse(lines[at].slice('# wasmtrace '.length)) : null;
  } catch {
    throw new TraceError("folded stacks: the '# wasmtrace' record is not JSON");
  }
  // Folded stacks name threads only: a comment line marks the ones added
  // (and, in files from before it, the page's own JS thread).
  if (lines.some((l) => l === FOLDED_MARK || l.startsWith(`${JS_THREAD_NAME};`))) return [null, []];
  threads = uniqueNames(threads, new Set(lines.map((l) => l.slice(0, l.indexOf(';')))));
  const w = windowOf(record, record?.stats, record?.stats?.startup);
  const added = [];
  const counts = threads.map(({ name, js }) => {
    const samples = inWindow(js, w);
    const ws = gridWeights(samples, w.intervalUs); // the session's periods, as readers weigh samples
    const byStack = new Map();
    samples.forEach((s, i) => {
      const key = [foldedName(name), ...(s.stack.length ? s.stack.map((f) => foldedName(js.frames[f].name)) : ['(idle)'])].join(';');
      byStack.set(key, (byStack.get(key) ?? 0) + ws[i]);
    });
    for (const [k, n] of byStack) added.push(`${k} ${n}`);
    return samples.length;
  });
  if (!added.length) return [text, counts, threads];
  const where = at >= 0 ? at : lines.length - (lines[lines.length - 1] === '' ? 1 : 0);
  lines.splice(where, 0, FOLDED_MARK, ...added);
  return [lines.join('\n'), counts, threads];
}
