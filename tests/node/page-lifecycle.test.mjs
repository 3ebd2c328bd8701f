// The page's lifecycle (wasmtracePage, js/wasmtrace_pre.js): every page part
// of wasmtrace is a plug-in of it, and it alone chains Module's hooks. Run
// in a VM context shaped like a page's main thread (and a worker's), with
// the app's own hooks on Module: each of the app's callbacks runs exactly
// once, with its arguments, `this` and return value; the moments come once
// each, in order, around them; a plug-in that throws is in nobody's way; a
// hook the app replaced after the pre-js ran is chained again by the second
// chain() (js/wasmtrace_post.js's), which alone chains onAbort and onExit,
// and leaves the runtime's own hooks alone once it has run. The browser
// tests record through it on
// every toolchain (timeline, longtask, serve, record-faults).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const jsDir = join(dirname(fileURLToPath(import.meta.url)), '../../js');
const preJs = readFileSync(join(jsDir, 'wasmtrace_pre.js'), 'utf8');
const allPreJs = preJs + '\n' + readFileSync(join(jsDir, 'wasmtrace_startup.js'), 'utf8');

// A page (window and document) whose Module holds the app's hooks, each
// logging its call into `log`.
function page(Module, { worker = false, source = preJs } = {}) {
  const ctx = { Module, console, Object, Array };
  if (!worker) {
    ctx.window = ctx;
    ctx.document = { readyState: 'complete' };
  }
  vm.createContext(ctx);
  vm.runInContext(source, ctx);
  return ctx;
}
const MOMENTS = ['preRunStart', 'preRunEnd', 'attach', 'scriptEvaluated', 'runtimeReady', 'mainStarts', 'mainReturned', 'aborted', 'exited'];
function recorder(log, name = 'p') {
  const p = {};
  for (const m of MOMENTS) p[m] = (...args) => log.push(`${name}.${m}${args.length ? `(${args.join(',')})` : ''}`);
  return p;
}
// What Emscripten does with Module's hooks, in its order.
function runLikeEmscripten(M) {
  for (const f of M.preRun) f();
  const r = M.onRuntimeInitialized();
  for (const f of M.postRun) f();
  return r;
}

test('the app\'s hooks run once each, inside the moments, with their arguments, this and return value', () => {
  const log = [];
  const M = {
    preRun: [() => log.push('app.preRun1'), () => log.push('app.preRun2')],
    onRuntimeInitialized() { log.push(`app.onRuntimeInitialized this=${this === M}`); return 'init-result'; },
    postRun: () => log.push('app.postRun'),
    onAbort(what) { log.push(`app.onAbort(${what})`); return 'abort-result'; },
    onExit(status) { log.push(`app.onExit(${status})`); },
  };
  const ctx = page(M);
  ctx.wasmtracePage.use(recorder(log));
  ctx.wasmtracePage.chain(true); // the post-js's chain: nothing doubles
  assert.equal(runLikeEmscripten(M), 'init-result');
  assert.equal(M.onAbort('boom'), 'abort-result');
  M.onExit(3);
  assert.deepEqual(log, ['p.preRunStart', 'app.preRun1', 'app.preRun2', 'p.preRunEnd', 'p.runtimeReady',
    'app.onRuntimeInitialized this=true', 'p.mainStarts', 'app.postRun', 'p.mainReturned', 'p.aborted(boom)',
    'app.onAbort(boom)', 'p.exited(3)', 'app.onExit(3)']);
});

test('each moment comes once; an event (tell) each time; a plug-in registered late misses what came before', () => {
  const log = [];
  const ctx = page({});
  const page_ = ctx.wasmtracePage;
  page_.use(recorder(log, 'a'));
  page_.fire('attach', ['c', 1]);
  page_.fire('attach', ['c', 2]);
  const b = recorder(log, 'b');
  page_.use(b);
  page_.use(b); // the same object twice: registered once
  page_.fire('attach', ['c', 3]);
  page_.fire('scriptEvaluated');
  log.push('--');
  const told = [];
  page_.use({ nextWorker: (label) => told.push(label) });
  page_.tell('nextWorker', ['w']);
  page_.tell('nextWorker', ['w']);
  assert.deepEqual(log, ['a.attach(c,1)', 'a.scriptEvaluated', 'b.scriptEvaluated', '--']);
  assert.deepEqual(told, ['w', 'w']);
});

test('a plug-in that throws is in nobody\'s way; the app\'s own throw still reaches Emscripten, and main() still starts', () => {
  const log = [];
  const M = { onRuntimeInitialized() { log.push('app'); throw new Error('app failed'); } };
  const ctx = page(M);
  ctx.wasmtracePage.use({ runtimeReady() { throw new Error('plug-in failed'); }, mainStarts() { throw new Error('again'); } });
  ctx.wasmtracePage.use(recorder(log));
  assert.throws(() => M.onRuntimeInitialized(), /app failed/);
  assert.deepEqual(log, ['p.runtimeReady', 'app', 'p.mainStarts']);
});

test('a hook the app assigns after the pre-js ran (its own --pre-js) is chained again by the second chain(), moments still once', () => {
  const log = [];
  const M = {};
  const ctx = page(M);
  ctx.wasmtracePage.use(recorder(log));
  const first = M.onRuntimeInitialized;
  M.onRuntimeInitialized = () => log.push('app.replaced');
  M.preRun = [() => log.push('app.preRun')];
  M.onAbort = (what) => log.push(`app.onAbort(${what})`);
  ctx.wasmtracePage.chain(true);
  runLikeEmscripten(M);
  first(); // the first wrapper, if something kept it: no moment twice
  M.onAbort('x');
  assert.deepEqual(log, ['p.preRunStart', 'app.preRun', 'p.preRunEnd', 'p.runtimeReady', 'app.replaced', 'p.mainStarts',
    'p.mainReturned', 'p.aborted(x)', 'app.onAbort(x)']);
});

test('the pre-js chains only the runtime\'s three hooks (onAbort and onExit are set by the post-js, after Emscripten\'s INCOMING_MODULE_JS_API check)', () => {
  const M = {};
  page(M);
  assert.deepEqual(Object.keys(M).sort(), ['onRuntimeInitialized', 'postRun', 'preRun']);
});

test('once the runtime has run (a post-js after run()), its three hooks are left alone; a hook that is an accessor is never assigned; the rest are chained', () => {
  const log = [];
  const ctx = page({});
  ctx.wasmtracePage.use(recorder(log));
  // Emscripten 4.0.5+ with assertions: a setter that aborts once the hook was read.
  const M = {};
  Object.defineProperty(M, 'preRun', { get: () => [], set: () => { throw new Error('abort(): preRun set after it was processed'); } });
  M.onRuntimeInitialized = () => log.push('app.init');
  ctx.Module = M;
  vm.runInContext('var runtimeInitialized = true;', ctx);
  const init = M.onRuntimeInitialized;
  ctx.wasmtracePage.chain(true);
  assert.equal(M.onRuntimeInitialized, init, 'left alone: the runtime has run');
  assert.equal(M.postRun, undefined);
  M.onAbort('late');
  assert.deepEqual(log, ['p.aborted(late)']);
  // Before the runtime ran, an accessor hook is still left alone, and the others chained.
  const N = {};
  Object.defineProperty(N, 'onRuntimeInitialized', { get: () => undefined, set: () => { throw new Error('abort()'); }, configurable: true });
  const ctx2 = page(N);
  ctx2.wasmtracePage.chain(true);
  assert.ok(Array.isArray(N.preRun) && Array.isArray(N.postRun) && typeof N.onExit === 'function');
});

test('a worker (no window) is left alone; a frozen Module is no error', () => {
  const M = { onAbort: () => 'mine', preRun: 'odd' };
  page(M, { worker: true });
  assert.equal(M.onAbort(), 'mine');
  assert.equal(M.preRun, 'odd');
  assert.doesNotThrow(() => page(Object.freeze({ onAbort() {} })));
});

test('the long-task observer plugs in: it hands its tasks over at attach, and keeps them when the C side has no entry points', () => {
  let observer = null;
  const ctx = { Module: {}, console, Object, Array, document: { readyState: 'complete' },
    PerformanceObserver: Object.assign(class { constructor(cb) { observer = cb; } observe() {} }, { supportedEntryTypes: ['longtask'] }) };
  ctx.window = ctx;
  vm.createContext(ctx);
  vm.runInContext(allPreJs, ctx);
  const entries = (list) => observer({ getEntries: () => list });
  entries([{ startTime: 10, duration: 60 }]);
  const tasks = [], observed = [];
  ctx.wasmtraceLongTasks.attach({}); // an app whose C has no long-task entry points: kept
  ctx.wasmtracePage.fire('attach', [{ longtask: (b, e) => tasks.push([b, e]), longtasksObserved: (yes, lost) => observed.push([yes, lost]) }, 0]);
  entries([{ startTime: 100, duration: 50 }]);
  assert.deepEqual(tasks, [[10000, 70000], [100000, 150000]]);
  assert.deepEqual(observed, [[1, 0]]);
  assert.equal(ctx.wasmtraceStartup, null, 'no performance.now here: no timeline, and nothing thrown');
});

test('the startup observers linked before the lifecycle say so, and throw nothing', () => {
  const warned = [];
  const ctx = { Module: {}, console: { warn: (m) => warned.push(m) }, Object, Array, document: { readyState: 'complete' } };
  ctx.window = ctx;
  vm.createContext(ctx);
  vm.runInContext(readFileSync(join(jsDir, 'wasmtrace_startup.js'), 'utf8'), ctx);
  assert.equal(ctx.wasmtraceStartup, null);
  assert.equal(ctx.wasmtraceLongTasks, null);
  assert.match(warned.join('\n'), /wasmtrace_startup\.js is linked before js\/wasmtrace_pre\.js/);
});
