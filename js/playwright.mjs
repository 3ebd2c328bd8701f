// wasmtrace/playwright: record wasmtrace sessions from a Playwright test.
//
//   import { configure, waitForWasmtrace, collectTraces, assertRan,
//            assertTimeBelow } from 'wasmtrace/playwright';
//
//   await configure(page, { sessions: [{ name: 'startup', durationMs: 5000 }] });
//   await page.goto(url);
//   await waitForWasmtrace(page);
//   await page.waitForFunction(() => window.appReady);
//   const [trace] = await collectTraces(page, { outDir: 'test-results/traces' });
//   assertRan(trace.profile, 'parse_config', { thread: 'main' });
//   assertTimeBelow(trace.profile, 'parse_config', 500);
//
// Works with any Playwright `page` (playwright, playwright-core,
// @playwright/test); it imports no browser library itself. Everything runs
// through page.evaluate, so the page's main thread must come back to its
// event loop for a call to complete: calls that wait say so when it does not.
//
// This module is the driver (configure the page, wait, collect); the
// assertions on a parsed trace live in trace-assertions.mjs, which needs no
// page, and are re-exported here.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { readProfile } from '../lib/profile.mjs';
import { WasmtraceError } from './trace-assertions.mjs';

export { assertRan, assertTimeBelow, samplesIn, timeIn, WasmtraceError } from './trace-assertions.mjs';
export { readProfile };

/** The expression that finds the Emscripten Module object in the page. */
export const DEFAULT_MODULE = 'globalThis.Module';

const POOL_HINT = 'the wasmtrace worker needs one pthread pool slot of its own: link the app with ' +
  '-sPTHREAD_POOL_SIZE=<app threads + 1>';

/** Adds advice to a session error that has a known cause. */
export function adviceFor(message) {
  if (/pthread pool|PTHREAD_POOL_SIZE|thread pool is exhausted/i.test(message)) return POOL_HINT;
  if (/^config|config error|\bsessions\[/.test(message)) return 'fix the config (see config/wasmtrace.schema.json)';
  return null;
}

// Runs fn(module, arg) in the page, with module = the value of moduleExpr.
// A string evaluation (not a function) so the module expression can be any
// expression and a page's CSP cannot block it.
function inPage(page, moduleExpr, fn, arg) {
  return page.evaluate(`(${fn.toString()})((${moduleExpr || DEFAULT_MODULE}), ${JSON.stringify(arg ?? null)})`);
}

// Resolves with the promise's value, or with `fallback` after ms.
function within(promise, ms, fallback) {
  let timer;
  // A rejection after the timeout (the page closed while a call waited on a
  // busy main thread) is nobody's error any more.
  promise.catch(() => {});
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((ok) => { timer = setTimeout(() => ok(fallback), ms); }),
  ]);
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * Makes the page start its module with `config` (the config blob, an object).
 * Call before page.goto. The config becomes Module.wasmtraceConfig, the
 * source the C side reads first, even when the page defines its own Module
 * object later (`var Module = {...}`) or sets its own wasmtraceConfig: the
 * caller's config wins. For -sMODULARIZE builds, which take Module as a
 * factory argument, pass the config in the URL instead (withConfig).
 */
export async function configure(page, config) {
  if (!config || !Array.isArray(config.sessions)) {
    throw new WasmtraceError('bad-config', 'wasmtrace: configure(page, config) needs a config blob: { sessions: [...] }');
  }
  await page.addInitScript((cfg) => {
    const patch = (m) => {
      if (m && (typeof m === 'object' || typeof m === 'function')) {
        try {
          Object.defineProperty(m, 'wasmtraceConfig', {
            configurable: true,
            enumerable: true,
            get: () => cfg,
            set: (v) => { m.wasmtracePageConfig = v; }, // the page's own, overridden
          });
        } catch (e) { /* frozen object: nothing to do */ }
      }
      return m;
    };
    let current = patch(globalThis.Module);
    // `var Module = {...}` in a classic script keeps this accessor and
    // assigns through it.
    Object.defineProperty(globalThis, 'Module', {
      configurable: true,
      enumerable: true,
      get: () => current,
      set: (v) => { current = patch(v); },
    });
  }, config);
}

/** `url` with the config in its `wasmtrace` query parameter. */
export function withConfig(url, config) {
  const u = new URL(url);
  u.searchParams.set('wasmtrace', typeof config === 'string' ? config : JSON.stringify(config));
  return u.href;
}

/**
 * The state of wasmtrace in the page: { status, configError, sessions }.
 * status: 'no-module' (no Module object), 'no-api' (Module.wasmtrace missing:
 * the app is not linked with wasmtrace), 'not-initialized' (the runtime has
 * not started yet) or 'ready'. sessions: the startup sessions plus those
 * started with startSession(), each { id, name, output, state, error, stats }.
 */
export function status(page, { module } = {}) {
  return inPage(page, module, (M) => {
    if (!M) return { status: 'no-module', configError: null, sessions: [] };
    if (!M.wasmtrace) return { status: 'no-api', configError: null, sessions: [] };
    let list;
    try {
      list = M.wasmtrace.getStartupSessions();
    } catch {
      return { status: 'not-initialized', configError: null, sessions: [] };
    }
    const all = list.concat((globalThis.wasmtraceHelperSessions || []).filter((s) => list.indexOf(s) < 0));
    return {
      status: 'ready',
      configError: M.wasmtrace.configError,
      sessions: all.map((s) => ({ id: s.id, name: s.name, output: s.output, state: s.state, error: s.error, stats: s.stats() })),
    };
  });
}

/**
 * Waits until the page's module is initialized and Module.wasmtrace usable.
 * Throws a WasmtraceError whose code says what went wrong and whose message
 * says what to do: 'not-isolated', 'no-module', 'no-api', 'not-initialized',
 * 'busy' (the main thread never came back to its event loop).
 * @returns the status() at that point
 */
export async function waitForWasmtrace(page, { timeoutMs = 30000, module, onProgress } = {}) {
  const t0 = Date.now();
  const isolated = await within(page.evaluate(() => globalThis.crossOriginIsolated), timeoutMs, null);
  if (isolated === false) {
    throw new WasmtraceError('not-isolated', `wasmtrace: the page ${page.url()} is not cross-origin isolated, so ` +
      'SharedArrayBuffer and pthreads are unavailable. Serve it with the headers ' +
      "'Cross-Origin-Opener-Policy: same-origin' and 'Cross-Origin-Embedder-Policy: require-corp' " +
      '(wasmtrace record <build dir> serves a directory with them).');
  }
  // `answered`: the last status the page gave. The main thread counts as
  // busy only when a probe has waited longer than busyAfterMs: on a loaded
  // machine an idle page can take a while to answer, and that is no reason
  // to blame the app.
  const busyAfterMs = Math.max(2000, timeoutMs / 4);
  let answered = isolated === null ? null : { status: 'no-module' };
  let pending = null;
  let pendingSince = 0;
  while (Date.now() - t0 < timeoutMs) {
    if (!pending) {
      pendingSince = Date.now();
      pending = status(page, { module }).then((s) => { pending = null; return s; }, (e) => { pending = null; throw e; });
    }
    const s = await within(pending, 250, null);
    if (s) {
      answered = s;
      if (s.status === 'ready') return s;
      await sleep(50);
    }
    onProgress?.({ elapsedMs: Date.now() - t0, status: s ? s.status : 'busy' });
  }
  const last = !answered || (pending && Date.now() - pendingSince >= busyAfterMs) ? { status: 'busy' } : answered;
  const secs = (timeoutMs / 1000).toFixed(0);
  const messages = {
    'no-module': `no Module object (${module || DEFAULT_MODULE}) appeared in ${secs} s: is this the app's page, ` +
      'and did its script load? For -sMODULARIZE builds, say where the instance is (--module / { module }).',
    'no-api': `Module.wasmtrace never appeared in ${secs} s: the app is not linked with wasmtrace. Link it with the ` +
      'wasmtrace CMake target, or add the documented emcc flags (--js-library/--pre-js/--post-js and the libraries).',
    'not-initialized': `the module did not finish initializing in ${secs} s (Module.wasmtrace exists but the runtime ` +
      'never started): look for errors in the page console; a pthread pool that is too small can deadlock startup.',
    busy: `the page's main thread did not come back to its event loop for ${secs} s: the app may be blocked ` +
      '(a pthread it waits for never started? ' + POOL_HINT + ').',
  };
  throw new WasmtraceError(last.status, 'wasmtrace: ' + messages[last.status]);
}

/**
 * Starts a session now (one session object of the config blob) and keeps it
 * for collectTraces. Returns { id, name, state, error }.
 */
export async function startSession(page, config = {}, { module } = {}) {
  return inPage(page, module, (M, cfg) => {
    const s = M.wasmtrace.startSession(cfg);
    (globalThis.wasmtraceHelperSessions ||= []).push(s);
    return { id: s.id, name: s.name, state: s.state, error: s.error };
  }, config);
}

const LIVE = new Set(['starting', 'running', 'stopping']);

/**
 * Waits until every session has stopped by itself (e.g. durationMs) or
 * failed, or `until` (a JS expression in the page) is true, or durationMs
 * have passed since the call. Resolves with { reason: 'sessions' | 'until' |
 * 'duration' | 'timeout', status }. onProgress gets the latest status about
 * once per progressMs (and { busy: true } while the main thread is busy).
 */
export async function waitForSessions(page, { until, durationMs, timeoutMs = 60000, module, onProgress, progressMs = 1000 } = {}) {
  const t0 = Date.now();
  let lastProgress = 0;
  let s = null;
  let pending = null;
  const untilSrc = until ? `(() => { try { return !!(${until}); } catch (e) { return false; } })()` : null;
  for (;;) {
    const elapsed = Date.now() - t0;
    if (durationMs !== undefined && elapsed >= durationMs) return { reason: 'duration', status: s };
    if (elapsed >= timeoutMs) return { reason: 'timeout', status: s };
    pending ??= Promise.all([status(page, { module }), untilSrc ? page.evaluate(untilSrc) : false])
      .finally(() => { pending = null; });
    const got = await within(pending, 250, null);
    if (got) {
      const [st, signal] = got;
      s = st;
      if (signal) return { reason: 'until', status: s };
      if (s.status === 'ready' && s.sessions.length && s.sessions.every((x) => !LIVE.has(x.state))) {
        return { reason: 'sessions', status: s };
      }
    }
    if (onProgress && Date.now() - lastProgress >= progressMs) {
      lastProgress = Date.now();
      onProgress({ elapsedMs: Date.now() - t0, busy: !got, status: s });
    }
    if (got) await sleep(100);
  }
}

function uniqueName(name, used) {
  let n = name;
  for (let i = 2; used.has(n); i++) n = name.replace(/^([^.]*)/, `$1-${i}`);
  used.add(n);
  return n;
}

/**
 * The one page-side recorder (the CLI, the Playwright helper and the tests
 * all collect through collectTraces, which evaluates this in the page):
 * stops the chosen sessions of Module M (startup sessions and those started
 * with startSession; all when `names` is null) at once and returns, per
 * session, { id, name, output, state, error, stats, stopMs, type, base64 }.
 * It runs in the page, so it uses nothing from this module.
 */
async function collectInPage(M, names) {
  const toBase64 = (bytes) => {
    let out = '';
    for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(out);
  };
  const list = M.wasmtrace.getStartupSessions();
  const all = list.concat((globalThis.wasmtraceHelperSessions || []).filter((s) => list.indexOf(s) < 0));
  const chosen = names ? all.filter((s) => names.indexOf(s.name) >= 0 || names.indexOf(s.id) >= 0) : all;
  return Promise.all(chosen.map(async (s) => {
    const r = { id: s.id, name: s.name, output: s.output };
    const t0 = performance.now();
    try {
      if (s.state !== 'failed') await s.stop();
      r.stopMs = performance.now() - t0;
      const blob = s.getTraceBlob();
      r.type = blob.type;
      r.base64 = toBase64(new Uint8Array(await blob.arrayBuffer()));
    } catch (e) {
      r.error = s.error || String(e.message || e);
    }
    r.state = s.state;
    r.stats = s.stats();
    return r;
  }));
}

/**
 * Stops the sessions (all, or those named in `sessions`) and brings their
 * traces back. Each result: { id, name, output, state, error, advice, stats,
 * stopMs, bytes (Buffer), type, file (when outDir is given), profile (parsed,
 * when parse is true), parseError }. A failed session comes back with its
 * error rather than throwing.
 */
export async function collectTraces(page, { sessions, outDir, parse = true, module, timeoutMs = 30000 } = {}) {
  const run = inPage(page, module, collectInPage, sessions ? [].concat(sessions) : null);
  const raw = await within(run, timeoutMs, null);
  if (!raw) {
    throw new WasmtraceError('busy', `wasmtrace: stopping the sessions did not complete in ${(timeoutMs / 1000).toFixed(0)} s: ` +
      "the page's main thread must return to its event loop to write the traces");
  }
  const used = new Set();
  return raw.map((r) => {
    const out = { ...r, error: r.error ?? null, advice: r.error ? adviceFor(r.error) : null };
    delete out.base64;
    if (r.base64) out.bytes = Buffer.from(r.base64, 'base64');
    if (out.bytes && outDir) {
      mkdirSync(outDir, { recursive: true });
      out.file = resolve(join(outDir, uniqueName(basename(r.output) || `${r.name}.trace`, used)));
      writeFileSync(out.file, out.bytes);
    }
    if (out.bytes && parse) {
      try {
        out.profile = readProfile(out.bytes);
      } catch (e) {
        out.parseError = String(e.message || e);
      }
    }
    return out;
  });
}

