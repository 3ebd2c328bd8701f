// One function, one name, for traces read back (report, symbolicate): the
// clone suffixes compilers and linkers add to copies of a function (see
// wasmtraceCanonicalName in js/wasmtrace_pre.js, which the recorder
// applies to every function name before it reaches a trace).
//
// A trace does not say which frames are functions and which are scopes (any
// string the app chose, "phase.2" or "cache.cold" included), so a reader
// cuts only what no scope name of a sane app ends with: the demangler's
// " (.N)" / " (.llvm.N)", a known compiler word with its number (".llvm.N",
// ".constprop.N", ".isra.N", ".part.N", ...), and a suffix after ')' or '>'
// ("f(int).1", "f(int).cold"). A C function's "helper.1" in a trace recorded before
// wasmtrace merged names stays as it is; `{ all: true }` cuts it too (what
// the recorder does with names it knows are functions).

import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const WORDS = new Set(['llvm', 'constprop', 'isra', 'part', 'cold', 'specialized', 'lto_priv',
  'clone', 'localalias', 'argelim', 'retval']);

const isDigits = (t) => t.length > 0 && t.length <= 32 && /^[0-9]+$/.test(t);
const isToken = (t) => WORDS.has(t) || isDigits(t);
// What may precede a suffix: the end of an identifier, ')' or '>'.
const endsName = (c) => /[0-9A-Za-z_$)>]/.test(c);

/**
 * `name` without trailing clone suffixes. Linear in the name's length.
 * @param {string} name
 * @param {{ all?: boolean }} [options] all: also cut a bare ".N" after an identifier
 * @returns {string}
 */
export function canonicalFunctionName(name, { all = false } = {}) {
  if (typeof name !== 'string') return name;
  let out = name;
  for (;;) {
    const n = out.length;
    if (n > 4 && out.endsWith(')')) {
      const from = Math.max(0, n - 64);
      let open = out.slice(from).lastIndexOf(' (.');
      if (open >= 0) open += from;
      if (open > 0 && out.slice(open + 3, n - 1).split('.').every(isToken) && endsName(out[open - 1])) {
        out = out.slice(0, open);
        continue;
      }
    }
    const dot = out.lastIndexOf('.');
    if (dot <= 0) break;
    const token = out.slice(dot + 1);
    const before = out[dot - 1];
    if (!isToken(token) || !endsName(before)) break;
    // Read back (not `all`): after an identifier, only a compiler word with
    // its number ("x.constprop.0", "f.llvm.1234"), cut together. A bare word
    // or a bare number may end a scope's name ("cache.cold", "phase.2").
    if (!all && before !== ')' && before !== '>') {
      if (!isDigits(token)) break;
      const prev = out.lastIndexOf('.', dot - 1);
      if (prev <= 0 || !WORDS.has(out.slice(prev + 1, dot)) || !endsName(out[prev - 1])) break;
      out = out.slice(0, prev);
      continue;
    }
    out = out.slice(0, dot);
  }
  return out;
}

/** A memoized canonicalFunctionName for one trace's many repeated names. */
export function nameCanonicalizer() {
  const memo = new Map();
  return (name) => {
    if (typeof name !== 'string') return name;
    let c = memo.get(name);
    if (c === undefined) {
      c = canonicalFunctionName(name);
      if (memo.size < 100000) memo.set(name, c);
    }
    return c;
  };
}

/**
 * The page files' shared functions (the end of js/wasmtrace_pre.js: text and
 * config checks, the config's source, the name-section parser), evaluated in
 * Node in a context of their own with `globals` (Module, location, FS, ...
 * as the page would have them; lengthBytesUTF8, the one runtime function
 * they call, is Node's UTF-8 length unless given). Returns the context: its
 * globals are the file's functions. The rest of the file runs too and finds
 * no page (no window, no worker's self, no process in the context): it
 * does nothing.
 */
export function loadPageHelpers(globals = {}) {
  const context = vm.createContext({
    Module: {}, TextDecoder, URL, URLSearchParams, lengthBytesUTF8: (text) => Buffer.byteLength(text, 'utf8'), ...globals,
  });
  const source = readFileSync(new URL('../js/wasmtrace_pre.js', import.meta.url), 'utf8');
  vm.runInContext(source, context, { filename: 'wasmtrace_pre.js' });
  return context;
}

/**
 * The recorder's own name-section parser (wasmtraceParseNames of
 * js/wasmtrace_pre.js, with its wasmtraceCanonicalName), for code
 * outside the page that names wasm functions as wasmtrace's frames name
 * them (the JS profile's frames, lib/jsprofile.mjs): one rule, one function.
 * Returns parse(nameSectionPayload) -> { [function index]: name }, with
 * parse.canonicalName. `raw`: names as the section has them (no clone
 * suffix cut), for the fuzzers.
 */
export function loadNameParser({ raw = false } = {}) {
  const context = loadPageHelpers();
  if (typeof context.wasmtraceParseNames !== 'function') throw new Error('js/wasmtrace_pre.js has no wasmtraceParseNames');
  const canonical = context.wasmtraceCanonicalName;
  if (typeof canonical !== 'function') throw new Error('js/wasmtrace_pre.js has no wasmtraceCanonicalName');
  if (raw) context.wasmtraceCanonicalName = (name) => name;
  const parse = context.wasmtraceParseNames;
  parse.canonicalName = canonical;
  return parse;
}
