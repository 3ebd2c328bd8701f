// How the engines compile the app's wasm while it is recorded (issue 40).
//
// A browser runs a wasm function in whichever tier is ready when its call
// starts: Chromium's V8 compiles everything with its baseline compiler
// (Liftoff) first and optimises hot functions (TurboFan) in the background;
// Firefox's SpiderMonkey likewise (baseline, then Ion). A long-running
// function called early runs in the baseline tier, ~3x slower, for as long
// as that call lasts: the run-to-run spread a CI comparison must see a 10 %
// change through. Two modes:
//   default    the engine's own tiering: what the app's users get (startup,
//              "where did my time go")
//   optimized  the optimizing tier from the first call (Chromium:
//              --js-flags=--no-liftoff; Firefox: the baseline compiler
//              off), in a fresh browser profile per run (no code cache):
//              what CI compares builds with (docs/GUIDE.md, "Did it get
//              slower? `wasmtrace diff`")
// `record --tier` picks one and stamps it into each trace's stats record
// (recordedWith); `diff` refuses to compare traces of different modes.
import { gzipSync } from 'node:zlib';
import { serializeChrome } from './jsprofile.mjs';
import { detectFormat } from './profile.mjs';
import { decompress, TraceError } from './trace.mjs';

export const TIERS = ['default', 'optimized'];

/** The browser options of a mode: { args } for Chromium, { prefs } for Firefox. */
export function tierOptions(tier, browser) {
  if (!TIERS.includes(tier)) throw new TypeError(`wasmtrace: tier '${tier}': give one of ${TIERS.join(', ')}`);
  if (tier === 'default') return { args: [], prefs: {} };
  return browser === 'firefox'
    ? { args: [], prefs: { 'javascript.options.wasm_baselinejit': false, 'javascript.options.wasm_optimizingjit': true } }
    : { args: ['--js-flags=--no-liftoff'], prefs: {} };
}

/**
 * Chromium keeps only the last --js-flags of its command line: the mode's
 * flags and the user's own (--browser-arg=--js-flags=...) become one.
 */
export function mergeJsFlags(args) {
  const flags = [];
  const rest = [];
  for (const a of args) {
    if (a.startsWith('--js-flags=')) flags.push(a.slice('--js-flags='.length).trim());
    else rest.push(a);
  }
  return flags.length ? [...rest, `--js-flags=${flags.filter(Boolean).join(' ')}`] : rest;
}

/** The mode a trace was recorded in: its stamp's, or 'default' (every recorder but `record --tier`). */
export function traceTier(profile) {
  const t = profile?.stats?.recordedWith?.tier;
  return typeof t === 'string' && TIERS.includes(t) ? t : 'default';
}

/**
 * The trace (Buffer or Uint8Array, gzip or not, any of the three formats)
 * with `stamp` as its stats record's "recordedWith" member; gzip'd if the
 * input was. Throws a TraceError for a trace it cannot read.
 */
export function stampTrace(bytes, stamp) {
  const raw = Buffer.from(bytes);
  const gz = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
  const text = decompress(raw).toString('utf8');
  const format = detectFormat(text);
  let out = null;
  if (format === 'chrome') {
    const doc = JSON.parse(text);
    const events = Array.isArray(doc) ? doc : doc.traceEvents;
    const st = events.find((e) => e && e.ph === 'M' && e.name === 'wasmtrace_stats');
    if (st?.args && typeof st.args === 'object') {
      st.args.recordedWith = stamp;
      out = serializeChrome(doc, events);
    }
  } else if (format === 'firefox') {
    const doc = JSON.parse(text);
    if (doc.meta?.wasmtrace && typeof doc.meta.wasmtrace === 'object') {
      doc.meta.wasmtrace.recordedWith = stamp;
      out = JSON.stringify(doc);
    }
  } else if (format === 'folded') {
    // The '# wasmtrace {...}' record line (wasmtrace writes it last).
    const start = text.startsWith('# wasmtrace {') ? 0 : text.lastIndexOf('\n# wasmtrace {') + 1;
    if (start > 0 || text.startsWith('# wasmtrace {')) {
      const end = text.indexOf('\n', start);
      const record = JSON.parse(text.slice(start + '# wasmtrace '.length, end < 0 ? text.length : end));
      record.stats = { ...(record.stats ?? {}), recordedWith: stamp };
      out = `${text.slice(0, start)}# wasmtrace ${JSON.stringify(record)}${end < 0 ? '\n' : text.slice(end)}`;
    }
  }
  if (out === null) throw new TraceError('no wasmtrace stats record to stamp');
  const buf = Buffer.from(out, 'utf8');
  return gz ? gzipSync(buf) : buf;
}
