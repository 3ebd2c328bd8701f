// Assertions on a parsed trace (a Profile from collectTraces or
// readProfile): did a function run, how long did it take. Pure functions of
// the profile, no page or browser involved; 'wasmtrace/playwright'
// re-exports them beside its driver.
import { functionTable, weightOf, weightToMs } from '../lib/profile.mjs';

/** An error with a code a program can check and a message a person can act on. */
export class WasmtraceError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'WasmtraceError';
    this.code = code;
  }
}

function threadsOf(profile, thread) {
  if (thread === undefined) return profile.threads;
  const found = profile.threads.filter((t) => t.name === thread || t.tid === thread || String(t.tid) === String(thread));
  if (!found.length) {
    throw new WasmtraceError('no-thread', `wasmtrace: no thread '${thread}' in the trace ` +
      `(threads: ${profile.threads.map((t) => t.name).join(', ')})`);
  }
  return found;
}

/** Samples in which `name` was on the stack (or the leaf, with self). */
export function samplesIn(profile, name, { thread, self = false } = {}) {
  return threadsOf(profile, thread).reduce((n, t) => n + weightOf(t, name, { self }), 0);
}

/**
 * Time spent in `name`, in ms. source 'scopes': the summed durations of its
 * outermost scope events (exact, from WT_SCOPE / wt_begin); 'samples':
 * samples x interval (total time, or self time with self); 'auto' (default):
 * scopes when the trace has scope events of that name, else samples.
 * Returns { ms, source }.
 */
export function timeIn(profile, name, { thread, self = false, source = 'auto' } = {}) {
  const threads = threadsOf(profile, thread);
  const scoped = threads.some((t) => t.scopes.some((s) => s.name === name));
  if (source === 'scopes' || (source === 'auto' && !self && scoped)) {
    // Per thread, nested scopes of the same name (recursion) count once.
    let ms = 0;
    for (const t of threads) {
      let end = -Infinity;
      for (const s of t.scopes.filter((x) => x.name === name).sort((a, b) => a.ts - b.ts)) {
        if (s.ts >= end) {
          ms += s.dur / 1000;
          end = s.ts + s.dur;
        }
      }
    }
    return { ms, source: 'scopes' };
  }
  const weight = threads.reduce((n, t) => n + weightOf(t, name, { self }), 0);
  const ms = weightToMs(profile, weight);
  if (ms === null) {
    throw new WasmtraceError('no-interval', 'wasmtrace: the trace does not say its sampling interval, so samples cannot be turned into time');
  }
  return { ms, source: 'samples' };
}

function topOf(profile, thread, n = 5) {
  const rows = threadsOf(profile, thread).flatMap((t) => functionTable(t));
  return rows.sort((a, b) => b.self - a.self).slice(0, n).map((r) => `${r.name} (${r.self})`).join(', ');
}

/**
 * Asserts that `name` (a function or scope) was sampled at least minSamples
 * times, or has a scope event; on a thread when given. Returns the sample
 * count.
 */
export function assertRan(profile, name, { thread, minSamples = 1 } = {}) {
  const n = samplesIn(profile, name, { thread });
  const scoped = threadsOf(profile, thread).some((t) => t.scopes.some((s) => s.name === name));
  if (n < minSamples && !(minSamples <= 1 && scoped)) {
    throw new WasmtraceError('assert-ran', `wasmtrace: expected '${name}' to run` +
      (thread !== undefined ? ` on thread '${thread}'` : '') + ` (at least ${minSamples} samples), got ${n} samples; ` +
      `top self functions: ${topOf(profile, thread)}`);
  }
  return n;
}

/**
 * Asserts that the time in `name` (see timeIn) is below maxMs. Returns the
 * measured { ms, source }.
 */
export function assertTimeBelow(profile, name, maxMs, options = {}) {
  const r = timeIn(profile, name, options);
  if (!(r.ms < maxMs)) {
    throw new WasmtraceError('assert-time', `wasmtrace: expected ${options.self ? 'self ' : ''}time in '${name}'` +
      (options.thread !== undefined ? ` on thread '${options.thread}'` : '') +
      ` below ${maxMs} ms, measured ${r.ms.toFixed(1)} ms (from ${r.source})`);
  }
  return r;
}


/**
 * When a phase of the startup timeline happened, in ms since the page's
 * navigation start: 'main()' (its entry), 'ready' or any mark's name (its
 * instant), a span's name ('fetch app.wasm': its end, when it was done).
 * Throws 'no-startup' when the trace has no timeline or no such phase.
 */
export function startupAt(profile, name) {
  const t = profile.startup;
  if (!t || !t.phases.length) {
    throw new WasmtraceError('no-startup', 'wasmtrace: the trace has no startup timeline (a session started before ' +
      'main() of an app linked with wasmtrace_startup.js writes one)');
  }
  const want = name === 'main()' ? 'main() starts' : name;
  const p = t.phases.find((x) => x.kind === 'instant' && x.name === want) ?? t.phases.find((x) => x.kind === 'span' && x.name === want);
  if (!p) {
    const known = [...new Set(t.phases.filter((x) => x.kind !== 'note').map((x) => x.name))].slice(0, 30).join(', ');
    throw new WasmtraceError('no-startup', `wasmtrace: no startup phase '${name}' in the trace (phases: ${known})`);
  }
  return (p.kind === 'instant' ? p.begin : p.end) / 1000;
}

/**
 * Asserts that a startup phase (see startupAt) came before maxMs after
 * navigation start, e.g. assertStartupBefore(trace, 'ready', 2000). Returns
 * its time in ms.
 */
export function assertStartupBefore(profile, name, maxMs) {
  const at = startupAt(profile, name);
  if (!(at < maxMs)) {
    throw new WasmtraceError('assert-startup', `wasmtrace: expected '${name}' before ${maxMs} ms after navigation ` +
      `start, it came at ${at.toFixed(1)} ms`);
  }
  return at;
}
