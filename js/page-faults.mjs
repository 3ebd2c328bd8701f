// The faults a page can meet while wasmtrace waits on it (an aborted
// runtime, a page that navigates away, closes or crashes), for the
// Playwright helper (playwright.mjs, which re-exports watchPage and
// abortReason): every wait it makes races the page's fate.
import { WasmtraceError } from './trace-assertions.mjs';

// Resolves with the promise's value, or with `fallback` after ms.
export function within(promise, ms, fallback) {
  let timer;
  // A rejection after the timeout (the page closed while a call waited on a
  // busy main thread) is nobody's error any more.
  promise.catch(() => {});
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((ok) => { timer = setTimeout(() => ok(fallback), ms); }),
  ]);
}

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// ---- faults: an aborted runtime, a page that navigates, closes or crashes ----
//
// Each wait below races against the page's faults, so that a dead page ends
// the wait at once with a message naming what happened, instead of a
// timeout that blames a busy main thread (or a raw evaluation error).

const watches = new WeakMap();

/** The reason inside Emscripten's "Aborted(<reason>)", or null. */
export function abortReason(text) {
  const m = /(?:^|\s)Aborted\((.*?)\)(?=$|[.\s])/.exec(String(text).split('\n')[0]);
  return m ? m[1] : null;
}

/** The message of a runtime that aborted, from the shim's own words or Emscripten's. */
export function abortedMessage(reason) {
  const exit = /^the wasm runtime exited with status (-?\d+)/.exec(String(reason).replace(/^wasmtrace: /, ''));
  if (exit) {
    return `wasmtrace: the app exited (status ${exit[1]}) before its sessions stopped (the wasm runtime ` +
      'ended, so sessions that were still recording cannot finish)';
  }
  let why = String(reason).replace(/^wasmtrace: /, '').replace(/^the wasm runtime aborted: /, '');
  why = abortReason(why) ?? why; // "Aborted(OOM)" -> "OOM"
  if (!why) why = 'abort() was called (no reason given)';
  return `wasmtrace: the app aborted: ${why} (the wasm runtime stopped, so sessions that were still ` +
    "recording cannot finish; the page's console says what led to it)";
}

// Evaluation errors that mean "this document is gone", not "the call is wrong".
export const GONE = /Execution context was destroyed|navigat|Target (page, context or browser )?(has been )?closed|Page crashed|has been closed|Frame was detached/i;

/**
 * Starts watching `page` (once; configure() and waitForWasmtrace() call it)
 * for the faults that end a recording: the wasm runtime aborting ("Aborted("
 * on the console, an uncaught "Aborted(" error, Module.wasmtrace.aborted),
 * the page closing or crashing, and, once waitForWasmtrace() has seen the
 * module ready, the main frame navigating to another document. Returns
 * { fault, failed, gone }: fault is the first WasmtraceError ('aborted',
 * 'navigated', 'closed', 'crashed') or null; failed rejects with any of them,
 * gone only with the last three. Pages without on() (stand-ins) are not
 * watched.
 */
export function watchPage(page) {
  let w = watches.get(page);
  if (w) return w;
  let failAny;
  let failGone;
  w = { fault: null, token: null };
  w.failed = new Promise((_, no) => { failAny = no; });
  w.gone = new Promise((_, no) => { failGone = no; });
  w.failed.catch(() => {});
  w.gone.catch(() => {});
  w.fail = (code, message) => {
    if (w.fault && w.fault.code !== 'aborted') return;
    const e = new WasmtraceError(code, message);
    if (code !== 'aborted') failGone(e);
    else if (w.fault) return;
    w.fault = e;
    failAny(e);
  };
  watches.set(page, w);
  if (typeof page.on !== 'function') return w;
  page.on('console', (m) => {
    const text = m.text();
    if (/^\s*Aborted\(/.test(text)) w.fail('aborted', abortedMessage(abortReason(text)));
  });
  page.on('pageerror', (e) => {
    const reason = abortReason(e && e.message);
    if (reason !== null) w.fail('aborted', abortedMessage(reason));
  });
  page.on('close', () => w.fail('closed', 'wasmtrace: the page was closed before its sessions stopped ' +
    '(their traces lived in the page and are lost)'));
  page.on('crash', () => w.fail('crashed', 'wasmtrace: the page crashed (its renderer process died, e.g. out of ' +
    'memory) before its sessions stopped; their traces are lost'));
  page.on('framenavigated', (frame) => {
    if (!w.token || w.fault || (typeof page.mainFrame === 'function' && frame !== page.mainFrame())) return;
    // Same-document navigations (pushState, #hash) keep the module: ask the
    // document whether it is still the one that was ready.
    const url = frame.url();
    const check = page.evaluate(`globalThis.wasmtraceWatchToken === ${JSON.stringify(w.token)}`);
    within(check, 10000, null).then((same) => same === false, (e) => GONE.test(String(e && e.message))).then((away) => {
      if (away) {
        w.fail('navigated', `wasmtrace: the page navigated away to ${url} before its sessions stopped: their traces ` +
          'lived in the old page and are lost. Stop the sessions before the app navigates (--wait-for, ' +
          '--duration, or durationMs in the config).');
      }
    });
  });
  return w;
}

/** Marks the current document as the one to keep (navigation from it is a fault). */
export async function arm(page, w) {
  if (w.token || typeof page.on !== 'function') return;
  const token = `wt-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  try {
    await within(page.evaluate(`globalThis.wasmtraceWatchToken = ${JSON.stringify(token)}`), 10000, null);
    w.token = token;
  } catch {
    // The document went away while we armed: the next wait will see it.
  }
}

/** `promise`, or the page's first fault (`which`: 'failed' or 'gone'), whichever comes first. */
export function guarded(w, promise, which = 'failed') {
  return Promise.race([promise, w[which]]);
}

/**
 * A probe of the page: resolves with its value, or with `none` when the
 * document went away under it (a navigation while loading). Other errors
 * (a --module expression that throws) become one WasmtraceError line.
 */
export async function probe(promise, none = null) {
  try {
    return await promise;
  } catch (e) {
    const text = String((e && e.message) || e);
    if (GONE.test(text)) {
      await sleep(100);
      return none;
    }
    throw new WasmtraceError('page-error', `wasmtrace: evaluating in the page failed: ${text.split('\n')[0]}`);
  }
}
