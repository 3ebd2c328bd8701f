// js/wasmtrace_startup.js's startup recorder (after js/wasmtrace_pre.js, as
// emcc puts them), run in a VM context shaped like a
// page's main thread: what it wraps behaves as before (the Worker
// constructor with new.target, instanceof and subclasses; WebAssembly's
// functions, put back once the app is instantiated, never over a page's own
// wrapper), the page's preRun callbacks all run, and nothing it does throws
// into the page when the page's globals are odd. The browser tests
// (tests/browser/timeline.test.mjs) check the timeline itself.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const jsDir = join(dirname(fileURLToPath(import.meta.url)), '../../js');
const preJs = ['wasmtrace_pre.js', 'wasmtrace_startup.js'].map((f) => readFileSync(join(jsDir, f), 'utf8')).join('\n');

// A page's globals, enough for the recorder; `extra` replaces any.
function page(extra = {}) {
  class FakeWorker {
    constructor(url) { this.url = url; this.listeners = []; }
    addEventListener(type, fn) { this.listeners.push(fn); }
    removeEventListener(type, fn) { this.listeners = this.listeners.filter((f) => f !== fn); }
    post(data) { for (const f of [...this.listeners]) f({ data }); }
  }
  let clock = 0;
  const wasm = {
    instantiate: async (x) => ({ module: x }),
    instantiateStreaming: async (x) => ({ module: x }),
    compile: async (x) => x,
    Module: class {},
  };
  const ctx = {
    window: null, document: { readyState: 'complete', currentScript: { src: 'http://x/app.js?v=1' } },
    performance: { now: () => (clock += 1), getEntriesByType: () => [] },
    PerformanceObserver: class { observe() {} },
    Worker: FakeWorker, WebAssembly: wasm, Proxy, Reflect, Object, Array, String, Math, isFinite,
    Module: {}, console,
    ...extra,
  };
  ctx.window = ctx;
  ctx.originals = { ...wasm };
  vm.createContext(ctx);
  // Emscripten's run dependency functions, as the module script declares them.
  vm.runInContext('var deps = []; function addRunDependency(id) { deps.push("+" + id); } function removeRunDependency(id) { deps.push("-" + id); }', ctx);
  vm.runInContext(preJs, ctx);
  return ctx;
}

// What the recorder hands over once attached (the page lifecycle's attach,
// as the library fires it): [kind, name, beginUs, endUs, bytes].
function attached(ctx) {
  const got = [];
  ctx.wasmtracePage.fire('attach', [{ phase: (...p) => got.push(p) }, 1000]);
  return got;
}

test('the Worker constructor stays itself: new.target, instanceof, subclasses, and a call without new', () => {
  const ctx = page();
  const W = ctx.Worker;
  const w = new W('pool.js');
  assert.ok(w instanceof W);
  assert.equal(w.url, 'pool.js');
  class Mine extends W { hello() { return 'hi'; } }
  const m = new Mine('mine.js');
  assert.ok(m instanceof Mine);
  assert.equal(m.hello(), 'hi');
  assert.throws(() => W('x'), TypeError); // a class called without new, as before
  assert.equal(W.name, 'FakeWorker');
});

test('a worker is timed from its creation to its "loaded" message; wasmtrace\'s own is named apart', () => {
  const ctx = page();
  const a = new ctx.Worker('a.js');
  ctx.wasmtracePage.tell('nextWorker', ['wasmtrace worker']);
  const b = new ctx.Worker('b.js');
  a.post({ cmd: 'print' });
  a.post({ cmd: 'loaded' });
  b.post({ cmd: 'loaded' });
  a.post({ cmd: 'loaded' }); // once
  const names = attached(ctx).map((p) => p[1]);
  assert.deepEqual(names.filter((n) => /worker/.test(n)), ['worker 1 load', 'worker 1 ready', 'wasmtrace worker load', 'wasmtrace worker ready']);
  assert.equal(a.listeners.length, 0, 'the listener is removed once loaded');
});

test('WebAssembly functions are timed, then put back once the app is instantiated; a page\'s own wrapper stays', async () => {
  const ctx = page();
  assert.notEqual(ctx.WebAssembly.instantiate, ctx.originals.instantiate, 'timed');
  await ctx.WebAssembly.instantiateStreaming('bytes');
  await new Promise((r) => setImmediate(r));
  for (const k of ['instantiate', 'instantiateStreaming', 'compile']) assert.equal(ctx.WebAssembly[k], ctx.originals[k], `${k} put back`);
  const ctx2 = page();
  const pagesOwn = () => 'mine';
  ctx2.WebAssembly.compile = pagesOwn; // wrapped by the page after us
  attached(ctx2);
  assert.equal(ctx2.WebAssembly.compile, pagesOwn);
  const spans = attached(ctx).map((p) => p[1]);
  assert.ok(spans.includes('compile + instantiate (streaming)'), spans.join(', '));
});

test('run dependencies are timed by id and still reach Emscripten', () => {
  const ctx = page();
  vm.runInContext('addRunDependency("wasm-instantiate"); addRunDependency("fp /a"); removeRunDependency("fp /a"); removeRunDependency("wasm-instantiate"); removeRunDependency("never added")', ctx);
  assert.deepEqual([...ctx.deps], ['+wasm-instantiate', '+fp /a', '-fp /a', '-wasm-instantiate', '-never added']);
  const names = attached(ctx).map((p) => p[1]);
  assert.deepEqual(names.filter((n) => n.startsWith('run dependency')), ['run dependency: fp /a', 'run dependency: wasm-instantiate']);
});

test('the page\'s preRun callbacks all run, in order, whatever shape Module.preRun has', () => {
  for (const [pre, want] of [[undefined, []], [() => 'f', ['f']], [[() => 'a', () => 'b'], ['a', 'b']], ['not a function', []]]) {
    const ctx = page({ Module: { preRun: pre } });
    const list = ctx.Module.preRun;
    assert.ok(Array.isArray(list));
    const ran = [...list].map((f) => f()).filter((x) => typeof x === 'string');
    assert.deepEqual(ran, want);
  }
});

test('phases kept before the module is up are handed over in order; later ones at once; names are strings', () => {
  const ctx = page();
  ctx.wasmtraceStartup.mark('early');
  const got = attached(ctx);
  ctx.wasmtraceStartup.mark('late');
  const names = got.map((p) => p[1]);
  assert.ok(names.indexOf('early') < names.indexOf('late'));
  assert.ok(names.includes('evaluate app.js'));
  for (const p of got) {
    assert.equal(typeof p[1], 'string');
    assert.ok(p[1].length <= 200);
    assert.ok(Number.isFinite(p[2]) && Number.isFinite(p[3]) && p[3] >= p[2], p.join(' '));
  }
  // Attaching twice hands nothing over twice.
  const again = [];
  ctx.wasmtracePage.fire('attach', [{ phase: (...p) => again.push(p) }, 0]);
  ctx.wasmtraceStartup.attach({ phase: (...p) => again.push(p) }, 0);
  assert.equal(again.length, 0);
});

test('odd page globals: no PerformanceObserver, a throwing one, a frozen Worker: the recorder notes it or leaves it, never throws', () => {
  const notes = (ctx) => attached(ctx).filter((p) => p[0] === 3).map((p) => p[1]);
  assert.match(notes(page({ PerformanceObserver: undefined })).join('\n'), /no PerformanceObserver/);
  assert.match(notes(page({ PerformanceObserver: class { constructor() { throw new Error('blocked'); } } })).join('\n'), /could not be observed: blocked/);
  const frozen = page({ Worker: Object.freeze(class X {}) });
  assert.ok(frozen.wasmtraceStartup);
  // Not a page (no window): no recorder at all.
  const ctx = { Proxy, Reflect, Object, Array, String, Math, Module: {} };
  vm.createContext(ctx);
  vm.runInContext(preJs, ctx);
  assert.equal(ctx.wasmtraceStartup, null);
});

test('the JS profile: the reason without the API or the document policy, plain data with them, one profile', async () => {
  assert.match((await page().wasmtraceStartup.jsProfile()).reason, /no JS Self-Profiling API/);
  class Refused { constructor() { const e = new Error('js-profiling is not allowed'); e.name = 'NotAllowedError'; throw e; } }
  assert.match((await page({ Profiler: Refused }).wasmtraceStartup.jsProfile()).reason, /Document-Policy: js-profiling/);
  let made = 0;
  let stops = 0;
  class Sampling {
    constructor(opts) { made++; this.opts = opts; this.sampleInterval = 16; }
    addEventListener() {}
    stop() {
      stops++;
      return Promise.resolve({
        samples: [{ timestamp: 5 }, { timestamp: 21, stackId: 1 }],
        stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
        frames: [{ name: 'callMain', resourceId: 0, line: 1, column: 9 }, { name: 'fetch' }],
        resources: ['http://x/app.js'],
      });
    }
  }
  const ctx = page({ Profiler: Sampling });
  assert.equal(made, 1, 'started when the pre-js runs');
  assert.equal(ctx.wasmtraceStartup.jsProfile(), ctx.wasmtraceStartup.jsProfile(), 'one profile: the same promise');
  const p = await ctx.wasmtraceStartup.jsProfile();
  assert.equal(stops, 1);
  assert.deepEqual(JSON.parse(JSON.stringify(p.samples)), [[5], [21, 1]]);
  assert.deepEqual(JSON.parse(JSON.stringify(p.stacks)), [[0], [1, 0]]);
  assert.deepEqual(JSON.parse(JSON.stringify(p.frames)), [{ name: 'callMain', resource: 0, line: 1, column: 9 }, { name: 'fetch', resource: -1, line: -1, column: -1 }]);
  assert.equal(p.reason, '');
  assert.equal(p.intervalMs, 16);
  assert.equal(made, 1, 'not restarted');
});
