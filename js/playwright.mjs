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
// @playwright/test; Chromium, Firefox or WebKit); it imports no browser
// library itself. What it needs from the page: evaluate(string) whose value
// is awaited and comes back as JSON, addInitScript(fn, arg) (configure
// only), on('console' | 'pageerror' | 'close' | 'crash' | 'framenavigated'),
// mainFrame() and url(). lib/browser.mjs gives a puppeteer Firefox page
// those methods, so the CLI runs this module in Firefox too. Everything runs
// through page.evaluate, so the page's main thread must come back to its
// event loop for a call to complete: calls that wait say so when it does not.
//
// This module is the driver (configure the page, wait, collect); the
// assertions on a parsed trace live in trace-assertions.mjs, which needs no
// page, and are re-exported here.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { compare as diffCompare, DiffError, markdownDiff, parseThreshold, readSide, sideFiles, textDiff } from '../lib/diff.mjs';
import { addJsProfile } from '../lib/jsprofile.mjs';
import { readProfile } from '../lib/profile.mjs';
import { stampTrace, tierOptions } from '../lib/tier.mjs';
import { abortedMessage, abortReason, arm, GONE, guarded, probe, sleep, watchPage, within } from './page-faults.mjs';
import { WasmtraceError } from './trace-assertions.mjs';

export { abortReason, watchPage };

export { assertRan, assertStartupBefore, assertTimeBelow, samplesIn, startupAt, timeIn, WasmtraceError } from './trace-assertions.mjs';
export { readProfile };

/**
 * `wasmtrace diff` from a test (lib/diff.mjs; docs/GUIDE.md, "Did it get
 * slower?"): each side a directory, a list of trace files, or the traces
 * collectTraces returned (or profiles readProfile returned). Throws a
 * WasmtraceError (code 'diff') on bad input. The result's `text` and
 * `markdown` are what the command prints and writes.
 */
export function compare(base, next, { threshold = '2%,1ms', minShare = 0.5, session, paired = false } = {}) {
  const side = (x, name) => {
    const items = Array.isArray(x) ? x : [x];
    if (items.every((i) => typeof i === 'string')) return readSide(sideFiles(items, name), name, { session });
    return items.map((i, k) => {
      const profile = i?.profile ?? i;
      if (!profile || !Array.isArray(profile.threads)) throw new DiffError(`${name}[${k}]: not a trace (a path, a collected trace or a profile)`);
      return { file: i?.file ?? `${name}[${k}]`, profile };
    });
  };
  try {
    const res = diffCompare(side(base, 'base'), side(next, 'new'), { threshold: parseThreshold(threshold), minShare, paired });
    return { ...res, text: textDiff(res), markdown: markdownDiff(res) };
  } catch (e) {
    if (e instanceof DiffError) throw new WasmtraceError('diff', `wasmtrace diff: ${e.message}`);
    throw e;
  }
}

/** Throws (WasmtraceError, code 'slower') when compare's verdict is slower, with its table. */
export function assertNotSlower(result) {
  if (result?.verdict === 'slower') throw new WasmtraceError('slower', `wasmtrace diff: the new build is slower\n${result.text ?? ''}`);
}

/** The Chromium features that let the pthreads' workers run the JS Self-Profiling API. */
export const CHROMIUM_JS_PROFILING_FEATURES = Object.freeze(['DocumentPolicyInDedicatedWorker', 'ProfilerAPIForDedicatedWorker']);
/**
 * Chromium's command-line flag for them: pass it to chromium.launch({ args })
 * to get the "worker N (JS)" threads (the page's "main (JS)" needs only the
 * Document-Policy header). Chromium keeps only the last --enable-features:
 * this one repeats playwright-core's own (CDPScreenshotNewSurface,
 * SkipListAccountsWithoutGaiaCookies); merge your own features into it.
 * wasmtrace record's launcher passes it.
 */
export const CHROMIUM_JS_PROFILING_ARGS = Object.freeze([
  `--enable-features=${['CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies', ...CHROMIUM_JS_PROFILING_FEATURES].join(',')}`,
]);

/**
 * The launch options of a wasm tier for your own Playwright launch
 * (lib/tier.mjs; `record --tier`): { args } for chromium.launch({ args }),
 * { firefoxUserPrefs } for firefox.launch({ firefoxUserPrefs }), and
 * { recordedWith } to give collectTraces, which stamps each trace with it so
 * that compare() refuses traces of two modes. A fresh browser per run (a
 * new launch) keeps code caches out of it.
 */
export function tierLaunchOptions(tier = 'optimized', browser = 'chromium') {
  const o = tierOptions(tier, browser);
  return { args: o.args, firefoxUserPrefs: o.prefs, recordedWith: { tier, browser, version: '', args: o.args, prefs: o.prefs } };
}

/** The expression that finds the Emscripten Module object in the page. */
export const DEFAULT_MODULE = 'globalThis.Module';

const POOL_HINT = 'the wasmtrace worker needs one pthread pool slot of its own: link the app with ' +
  '-sPTHREAD_POOL_SIZE=<app threads + 1>';

/** Adds advice to a session error that has a known cause. */
export function adviceFor(message) {
  // The shim's "pool is exhausted" line names the size that fits.
  const size = /-sPTHREAD_POOL_SIZE=(\d+)/.exec(message);
  if (size && /thread pool is exhausted/i.test(message)) {
    return `link the app with -sPTHREAD_POOL_SIZE=${size[1]} (the threads it starts at once + 1 for wasmtrace)`;
  }
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

/**
 * Makes the page start its module with `config` (the config blob, an object).
 * Call before page.goto. The config never travels in the URL (a config of a
 * few KiB would not fit in a request line): an init script sets it before
 * any script of the page runs, in two places:
 *   - Module.wasmtraceConfig, the source the C side reads first, even when
 *     the page defines its own Module object later (`var Module = {...}`) or
 *     sets its own wasmtraceConfig: the caller's config wins;
 *   - globalThis.wasmtraceConfig, which the C side reads when the Module
 *     object has no wasmtraceConfig: this is how the config reaches
 *     -sMODULARIZE builds, whose Module object is the factory's argument
 *     (there a wasmtraceConfig the page passes to the factory itself wins).
 * It also starts watching the page for faults (watchPage).
 */
export async function configure(page, config) {
  // (A config with only a `server` needs no sessions: a tool starts them.)
  if (!config || !(Array.isArray(config.sessions) || (config.sessions === undefined && config.server !== undefined))) {
    throw new WasmtraceError('bad-config', 'wasmtrace: configure(page, config) needs a config blob: { sessions: [...] }');
  }
  watchPage(page);
  await page.addInitScript((cfg) => {
    // The caller's config, whatever the page assigns; the page's own value
    // is kept beside it (wasmtracePageConfig).
    const pin = (target) => {
      try {
        Object.defineProperty(target, 'wasmtraceConfig', {
          configurable: true,
          enumerable: true,
          get: () => cfg,
          set: (v) => { target.wasmtracePageConfig = v; },
        });
        return true;
      } catch (e) {
        return false; // a frozen object: nothing to do
      }
    };
    const patch = (m) => {
      if (m && (typeof m === 'object' || typeof m === 'function')) pin(m);
      return m;
    };
    pin(globalThis);
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

/**
 * `url` with the config in its `wasmtrace` query parameter. The URL is the
 * one source a page treats as untrusted (anyone can send a link), and a
 * request line has a size limit (HTTP 431 beyond ~16 KiB): prefer configure().
 */
export function withConfig(url, config) {
  const u = new URL(url);
  u.searchParams.set('wasmtrace', typeof config === 'string' ? config : JSON.stringify(config));
  return u.href;
}

/**
 * The state of wasmtrace in the page: { status, configError, sessions,
 * aborted, isolated }. status: 'no-module' (no Module object), 'no-api'
 * (Module.wasmtrace missing: the app is not linked with wasmtrace),
 * 'not-initialized' (the runtime has not started yet) or 'ready'. sessions:
 * the startup sessions plus those started with startSession(), each { id,
 * name, output, state, error, stats }. aborted: Module.wasmtrace.aborted (a
 * string once the wasm runtime aborted, else null). isolated: the page's
 * crossOriginIsolated.
 */
export function status(page, { module } = {}) {
  return inPage(page, module, (M) => {
    const isolated = globalThis.crossOriginIsolated;
    if (!M) return { status: 'no-module', configError: null, sessions: [], aborted: null, isolated };
    if (!M.wasmtrace) return { status: 'no-api', configError: null, sessions: [], aborted: null, isolated };
    let aborted = null;
    try {
      aborted = typeof M.wasmtrace.aborted === 'string' ? M.wasmtrace.aborted : null;
    } catch {
      // A shim older than Module.wasmtrace.aborted, or a throwing getter.
    }
    let list;
    try {
      list = M.wasmtrace.getStartupSessions();
    } catch {
      return { status: 'not-initialized', configError: null, sessions: [], aborted, isolated };
    }
    const all = list.concat((globalThis.wasmtraceHelperSessions || []).filter((s) => list.indexOf(s) < 0));
    return {
      status: 'ready',
      configError: M.wasmtrace.configError,
      aborted,
      isolated,
      // stats() allocates in the wasm heap: not after an abort (the heap's
      // lock may be held forever).
      sessions: all.map((s) => ({ id: s.id, name: s.name, output: s.output, state: s.state, error: s.error, stats: aborted ? {} : s.stats() })),
    };
  });
}

const NOT_ISOLATED = (url) => `wasmtrace: the page ${url} is not cross-origin isolated, so ` +
  'SharedArrayBuffer and pthreads are unavailable. Serve it with the headers ' +
  "'Cross-Origin-Opener-Policy: same-origin' and 'Cross-Origin-Embedder-Policy: require-corp' " +
  '(wasmtrace record <build dir> serves a directory with them).';

/**
 * Waits until the page's module is initialized and Module.wasmtrace usable.
 * Throws a WasmtraceError whose code says what went wrong and whose message
 * says what to do: 'not-isolated', 'no-module', 'no-api', 'not-initialized',
 * 'busy' (the main thread never came back to its event loop), or a fault of
 * the page (watchPage): 'aborted', 'closed', 'crashed'. From then on, a
 * navigation of the page to another document is a fault ('navigated') for
 * waitForSessions and collectTraces. onProgress({ elapsedMs, status }) is
 * called about every 250 ms; what it throws ends the wait (the CLI ends
 * early when the page's console already said there is nothing to record).
 * @returns the status() at that point
 */
export async function waitForWasmtrace(page, { timeoutMs = 30000, module, onProgress } = {}) {
  const t0 = Date.now();
  const w = watchPage(page);
  // `answered`: the last status the page gave. The main thread counts as
  // busy only when a probe has waited longer than busyAfterMs: on a loaded
  // machine an idle page can take a while to answer, and that is no reason
  // to blame the app (nor is one slow probe: the last answer stands).
  const busyAfterMs = Math.max(2000, timeoutMs / 4);
  let answered = null;
  let pending = null;
  let pendingSince = 0;
  const busy = () => pending !== null && Date.now() - pendingSince >= busyAfterMs;
  while (Date.now() - t0 < timeoutMs) {
    if (!pending) {
      pendingSince = Date.now();
      const p = probe(status(page, { module }));
      pending = p;
      p.then(() => { if (pending === p) pending = null; }, () => { if (pending === p) pending = null; });
    }
    const s = await guarded(w, within(pending, 250, null));
    if (s) {
      answered = s;
      if (s.isolated === false) throw new WasmtraceError('not-isolated', NOT_ISOLATED(page.url()));
      if (s.aborted) throw new WasmtraceError('aborted', abortedMessage(s.aborted));
      if (s.status === 'ready') {
        await arm(page, w);
        if (w.fault) throw w.fault;
        return s;
      }
      await sleep(50);
    }
    onProgress?.({ elapsedMs: Date.now() - t0, status: busy() ? 'busy' : answered ? answered.status : 'no-module' });
  }
  const last = !answered || busy() ? { status: 'busy' } : answered;
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
 * once per progressMs, with busy: true once a probe has waited busyAfterMs
 * (default 2 s) for the main thread. Rejects at once with the page's fault
 * (watchPage): 'aborted', 'navigated', 'closed', 'crashed'.
 */
export async function waitForSessions(page, {
  until, durationMs, timeoutMs = 60000, module, onProgress, progressMs = 1000, busyAfterMs = 2000,
} = {}) {
  const t0 = Date.now();
  const w = watchPage(page);
  let lastProgress = 0;
  let s = null;
  let pending = null;
  let pendingSince = 0;
  const untilSrc = until ? `(() => { try { return !!(${until}); } catch (e) { return false; } })()` : null;
  for (;;) {
    if (w.fault) throw w.fault;
    const elapsed = Date.now() - t0;
    if (durationMs !== undefined && elapsed >= durationMs) return { reason: 'duration', status: s };
    if (elapsed >= timeoutMs) return { reason: 'timeout', status: s };
    if (!pending) {
      pendingSince = Date.now();
      const p = probe(Promise.all([status(page, { module }), untilSrc ? page.evaluate(untilSrc) : false]));
      pending = p;
      p.then(() => { if (pending === p) pending = null; }, () => { if (pending === p) pending = null; });
    }
    const got = await guarded(w, within(pending, 250, null));
    if (got) {
      const [st, signal] = got;
      s = st;
      // A runtime that exited after every session stopped lost nothing.
      const exitedClean = s.aborted && /exited with status/.test(s.aborted) && s.sessions.length &&
        s.sessions.every((x) => x.state === 'stopped');
      if (s.aborted && !exitedClean) throw new WasmtraceError('aborted', abortedMessage(s.aborted));
      // Called without waitForWasmtrace: this ready document is the one to keep.
      if (s.status === 'ready' && !w.token) await arm(page, w);
      if (signal) return { reason: 'until', status: s };
      if (s.status === 'ready' && s.sessions.length && s.sessions.every((x) => !LIVE.has(x.state))) {
        return { reason: 'sessions', status: s };
      }
    }
    if (onProgress && Date.now() - lastProgress >= progressMs) {
      lastProgress = Date.now();
      const busy = pending !== null && Date.now() - pendingSince >= busyAfterMs;
      onProgress({ elapsedMs: Date.now() - t0, busy, status: s });
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
 * After the wasm runtime aborted (`aborted`, or Module.wasmtrace.aborted),
 * it stops nothing and allocates nothing: sessions that had stopped bring
 * their trace, the others fail with the abort's message.
 * It runs in the page, so it uses nothing from this module.
 */
async function collectInPage(M, { names, aborted }) {
  const toBase64 = (bytes) => {
    let out = '';
    for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(out);
  };
  if (!M || !M.wasmtrace) {
    throw new Error('there is no Module.wasmtrace in the page now (did it navigate away? does --module / { module } ' +
      'name the Module object?)');
  }
  let dead = aborted;
  try {
    if (typeof M.wasmtrace.aborted === 'string') dead = M.wasmtrace.aborted;
  } catch {
    // A shim without Module.wasmtrace.aborted.
  }
  const list = M.wasmtrace.getStartupSessions();
  const all = list.concat((globalThis.wasmtraceHelperSessions || []).filter((s) => list.indexOf(s) < 0));
  const chosen = names ? all.filter((s) => names.indexOf(s.name) >= 0 || names.indexOf(s.id) >= 0) : all;
  const results = await Promise.all(chosen.map(async (s) => {
    const r = { id: s.id, name: s.name, output: s.output };
    const t0 = performance.now();
    try {
      if (dead && s.state !== 'stopped') throw new Error(dead);
      if (s.state !== 'failed') await s.stop();
      r.stopMs = performance.now() - t0;
      const blob = s.getTraceBlob();
      r.type = blob.type;
      r.base64 = toBase64(new Uint8Array(await blob.arrayBuffer()));
    } catch (e) {
      r.error = (dead && s.state !== 'stopped' ? null : s.error) || String(e.message || e);
    }
    r.state = s.state;
    // A session the runtime died under has no counters to read.
    try {
      r.stats = s.stats();
    } catch {
      r.stats = {};
    }
    return r;
  }));
  return results;
}

// The page's JS profile (Module.wasmtrace.jsProfile()), or { reason }: read
// after the traces, in a call of its own, so that it never costs them.
async function jsProfileInPage(M, { waitMs }) {
  try {
    if (!M || !M.wasmtrace || typeof M.wasmtrace.jsProfile !== 'function') {
      return { reason: "the page's wasmtrace shim has no jsProfile() (an app linked with an older wasmtrace)" };
    }
    return await Promise.race([M.wasmtrace.jsProfile(),
      new Promise((ok) => setTimeout(() => ok({ reason: `the JS profile did not come back in ${(waitMs / 1000).toFixed(0)} s` }), waitMs))]);
  } catch (e) {
    return { reason: `reading the JS profile failed: ${String((e && e.message) || e)}` };
  }
}

// The modules' bytes (Map url -> bytes) for the wasm frames of the JS
// profiles (the page's and the workers'): the column is the function's code
// offset, which names a function the name section leaves unnamed (a
// stripped build) and gives a named one the name wasmtrace's own frames
// have (lib/jsprofile.mjs). Fetched by the tool, not the page; at most 4
// modules; those that cannot be had are left out (named as the browser
// named them, clone suffixes cut).
async function wasmModulesFor(js) {
  const urls = new Set();
  for (const p of [js, ...(Array.isArray(js?.workers) ? js.workers : [])]) {
    if (!p || p.reason || !Array.isArray(p.frames) || !Array.isArray(p.resources)) continue;
    for (const f of p.frames) {
      const url = f ? p.resources[f.resource] : null;
      if (typeof url === 'string' && /^https?:/i.test(url) && /\.wasm(?:[?#]|$)/i.test(url) && urls.size < 4) urls.add(url);
    }
  }
  const out = new Map();
  await Promise.all([...urls].map(async (url) => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10000) });
      if (res.ok) out.set(url, new Uint8Array(await res.arrayBuffer()));
    } catch {
      // Named by offset instead.
    }
  }));
  return out;
}

export async function collectTraces(page, { sessions, outDir, parse = true, module, timeoutMs = 30000, jsProfile = true, recordedWith = null } = {}) {
  const w = watchPage(page);
  if (w.fault && w.fault.code !== 'aborted') throw w.fault;
  const aborted = w.fault ? w.fault.message.replace(/^wasmtrace: /, '') : null;
  const t0 = Date.now();
  const run = inPage(page, module, collectInPage, { names: sessions ? [].concat(sessions) : null, aborted });
  let raw;
  try {
    raw = await guarded(w, within(run, timeoutMs, null), 'gone');
  } catch (e) {
    if (e instanceof WasmtraceError) throw e;
    // The document went away under the call: wait a moment for the watch
    // to say where it went.
    const text = String((e && e.message) || e);
    if (GONE.test(text)) await within(w.gone, 10000, null).catch((fault) => { throw fault; });
    throw new WasmtraceError('page-error', `wasmtrace: collecting the traces failed: ${text.split('\n')[0]}`);
  }
  if (!raw) {
    throw new WasmtraceError('busy', `wasmtrace: stopping the sessions did not complete in ${(timeoutMs / 1000).toFixed(0)} s: ` +
      "the page's main thread must return to its event loop to write the traces");
  }
  // The JS profile: with the time left (at least 2 s, at most 12 s); the
  // traces are kept whatever becomes of it.
  let js = null;
  if (jsProfile && raw.some((r) => r.base64)) {
    const left = Math.min(12000, Math.max(2000, timeoutMs - (Date.now() - t0)));
    try {
      js = await within(inPage(page, module, jsProfileInPage, { waitMs: left - 1000 }), left,
        { reason: `the JS profile did not come back in ${(left / 1000).toFixed(0)} s (the page's main thread is busy)` });
    } catch (e) {
      js = { reason: `reading the JS profile failed: ${String((e && e.message) || e).split('\n')[0]}` };
    }
  }
  const wasmModules = js ? await wasmModulesFor(js) : null;
  const used = new Set();
  return raw.map((r) => {
    const out = { ...r, error: r.error ?? null, advice: r.error ? adviceFor(r.error) : null };
    delete out.base64;
    if (r.base64) out.bytes = Buffer.from(r.base64, 'base64');
    if (out.bytes && js) {
      // The JS profile's samples in this session's window, as the thread
      // "main (JS)" (lib/jsprofile.mjs); the trace as it was if it cannot.
      try {
        const added = addJsProfile(out.bytes, js, { wasmModules });
        out.bytes = added.bytes;
        out.jsProfile = { samples: added.added, reason: added.reason, workers: added.workers, workersReason: added.workersReason };
      } catch (e) {
        out.jsProfile = { samples: 0, reason: String(e.message || e), workers: [], workersReason: '' };
      }
    }
    if (out.bytes && recordedWith) {
      // How it was recorded (the engines' tier: lib/tier.mjs), in its stats
      // record, so that diff can refuse to compare modes.
      try {
        out.bytes = stampTrace(out.bytes, recordedWith);
      } catch (e) {
        out.stampError = String(e.message || e);
      }
    }
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

