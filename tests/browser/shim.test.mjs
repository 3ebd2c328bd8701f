// The JS API under bad input and faults, in headless Chromium: configs the
// shim cannot serialize, any JS value given to startSession(), lone
// surrogates on their way to C, and a runtime that aborts while sessions run
// and while a stop() is pending. Every wait is a hang guard, never a timing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchTestBrowser } from '../lib/test-browser.mjs';
import { serve } from '../../lib/serve.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';

const dir = join(wasmBuildDir, 'tests/shim');
const HANG_GUARD_MS = 20000;
let server, browser;

before(async () => {
  server = await serve(dir);
  browser = await launchTestBrowser({ logPageErrors: false });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** page.evaluate that fails (instead of hanging the run) if the page never answers. */
async function evaluate(page, fn, arg) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the page did not answer within ${3 * HANG_GUARD_MS} ms`)), 3 * HANG_GUARD_MS);
  });
  try {
    return await Promise.race([page.evaluate(fn, arg), guard]);
  } finally {
    clearTimeout(timer);
    page.close().catch(() => {});
  }
}

/** Opens the shim page with query params; waits until main() ran (or the guard). */
async function open(params = {}) {
  const page = await browser.newPage();
  const logs = [];
  const errors = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e && e.message)));
  await page.goto(`${server.url}index.html?${new URLSearchParams(params)}`);
  await page.waitForFunction('self.shimMainRan === true', null, { timeout: 120000, polling: 50 });
  return { page, logs, errors };
}

// The message of a cyclic value is the engine's own (JSON.stringify's
// error): V8 says "circular structure", SpiderMonkey "cyclic object value".
const CYCLIC = /circular|cyclic/i;

describe('a startup config the shim cannot serialize', () => {
  const cases = [
    ['cyclic', 'module', new RegExp(`cannot be read as JSON: .*(${CYCLIC.source})`, 'i')],
    ['getter', 'module', /cannot be read as JSON: getter says no/],
    ['toJSON', 'module', /cannot be read as JSON: toJSON says no/],
    ['bigint', 'module', /cannot be read as JSON: .*BigInt/i],
    ['proxy', 'module', /cannot be read as JSON: proxy says no/],
    ['throwingProperty', 'module', /cannot be read as JSON: property says no/],
    ['function', 'module', /cannot be read as JSON: it is not a JSON value \(function\)/],
    ['symbol', 'module', /cannot be read as JSON: it is not a JSON value \(symbol\)/],
    ['cyclic', 'global', new RegExp(`cannot be read as JSON: .*(${CYCLIC.source})`, 'i')],
    ['throwingProperty', 'global', /cannot be read as JSON: property says no/],
  ];
  for (const [kind, where, message] of cases) {
    const source = where === 'global' ? 'globalThis.wasmtraceConfig' : 'Module.wasmtraceConfig';
    test(`${kind} on ${source}: main() runs and configError names the problem and the source`, async () => {
      const { page, logs } = await open({ hostile: kind, where });
      const r = await evaluate(page, () => ({
        out: self.shimOut,
        configError: Module.wasmtrace.configError,
        sessions: Module.wasmtrace.getStartupSessions().length,
      }));
      assert.deepEqual(r.out, ['shim main ran']);
      assert.equal(r.sessions, 0);
      assert.match(r.configError, message);
      assert.ok(r.configError.endsWith(`(from ${source})`), r.configError);
      assert.ok(logs.some((l) => l.includes('wasmtrace: config error: ')), 'error printed to the console');
    });
  }
});

describe('startSession() with any JS value', () => {
  test('never throws, never starts a default session: a failed session that names the problem', async () => {
    const { page } = await open();
    const r = await page.evaluate(() => {
      const wt = Module.wasmtrace;
      const cyclic = {};
      cyclic.self = cyclic;
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      const values = {
        null: null, undefined: undefined, zero: 0, false: false, true: true, number: 42, nan: NaN,
        array: [], arrayOfSession: [{ name: 'x' }], function: () => ({}), symbol: Symbol('s'), bigint: 10n,
        cyclic, getter: { get name() { throw new Error('getter says no'); } },
        toJSON: { toJSON() { throw new Error('toJSON says no'); } },
        toJSONUndefined: { toJSON() { return undefined; } },
        throwingMessage: { toJSON() { throw { get message() { throw new Error('no'); } }; } },
        proxy: new Proxy({}, { ownKeys() { throw new Error('proxy says no'); } }),
        revokedProxy: revoked.proxy,
        bigintInside: { name: 'x', durationMs: 5n },
        huge: '{"name":"huge"}' + ' '.repeat(3 << 20),
        hugeMultibyte: JSON.stringify({ name: 'x', categories: ['\u20ac'.repeat(400000)] }),
        emptyString: '',
        jsonNull: 'null',
        stringObject: new String('{}'),
      };
      const out = {};
      for (const [key, value] of Object.entries(values)) {
        try {
          const s = wt.startSession(value);
          out[key] = { state: s.state, error: s.error, stats: s.stats().samplesTaken, id: typeof s.id };
        } catch (e) {
          let text = 'an exception';
          try {
            text = `${e.constructor.name}: ${e.message}`;
          } catch (ignored) {
            // A hostile exception: the fact that it escaped is the finding.
          }
          out[key] = { threw: text };
        }
      }
      return out;
    });
    const expect = {
      null: /^startSession\(config\): config must be a session object or a JSON string, got null$/,
      undefined: /got undefined$/,
      zero: /got the number 0$/,
      false: /got false$/,
      true: /got true$/,
      number: /got the number 42$/,
      nan: /got the number NaN$/,
      array: /got an array$/,
      arrayOfSession: /got an array$/,
      function: /got a function$/,
      symbol: /got a Symbol$/,
      bigint: /got a BigInt$/,
      cyclic: new RegExp(`config cannot be serialized as JSON: .*(${CYCLIC.source})`, 'i'),
      getter: /config cannot be serialized as JSON: getter says no$/,
      toJSON: /config cannot be serialized as JSON: toJSON says no$/,
      toJSONUndefined: /config has no JSON form \(its toJSON returned undefined\)$/,
      throwingMessage: /config cannot be serialized as JSON: an exception whose message cannot be read$/,
      proxy: /config cannot be serialized as JSON: proxy says no$/,
      revokedProxy: /config cannot be serialized as JSON: .*revoked/,
      bigintInside: /config cannot be serialized as JSON: .*BigInt/i,
      huge: /the config text is more than 1048576 bytes; the limit is 1048576$/,
      hugeMultibyte: /the config text is \d+ bytes; the limit is 1048576$/,
      emptyString: /empty text/,
      jsonNull: /expected an object, got null/,
      stringObject: /expected an object, got a string/,
    };
    for (const [key, re] of Object.entries(expect)) {
      const got = r[key];
      assert.ok(!got.threw, `${key}: threw ${got.threw}`);
      assert.equal(got.state, 'failed', `${key}: ${JSON.stringify(got)}`);
      assert.match(got.error, re, key);
      assert.equal(got.stats, 0, key);
      assert.equal(got.id, 'number', key);
    }
    // And the API still works: a valid session runs and stops with a trace.
    const ok = await evaluate(page, async () => {
      const s = Module.wasmtrace.startSession({ name: 'valid' });
      const state = s.state;
      await s.stop();
      return { state, after: s.state, bytes: s.getTraceBlob().size };
    });
    assert.notEqual(ok.state, 'failed');
    assert.equal(ok.after, 'stopped');
    assert.ok(ok.bytes > 0);
  });

  test('session methods called detached or with odd arguments fail with a clear Error', async () => {
    const { page } = await open();
    const r = await evaluate(page, async () => {
      const s = Module.wasmtrace.startSession({ name: 'odd' });
      const out = {};
      const tryIt = async (key, f) => {
        try {
          await f();
          out[key] = 'ok';
        } catch (e) {
          try {
            out[key] = `${e.constructor.name}: ${e.message}`;
          } catch (ignored) {
            out[key] = 'a hostile exception';
          }
        }
      };
      const { stop, stats } = s;
      await tryIt('detachedStop', () => stop());
      await tryIt('detachedStats', () => stats.call(42));
      await tryIt('stateOfPrototype', () => Object.getPrototypeOf(s).state);
      await tryIt('downloadSymbol', () => s.download(Symbol('x')));
      await s.stop();
      await tryIt('downloadSymbolStopped', () => s.download(Symbol('x')));
      await tryIt('stopAgain', () => s.stop().then((x) => { if (x !== s) throw new Error('another session'); }));
      return out;
    });
    assert.match(r.detachedStop, /^Error: wasmtrace: Session\.stop\(\) used on something that is not a session/);
    assert.match(r.detachedStats, /^Error: wasmtrace: Session\.stats\(\) used on something that is not a session/);
    assert.match(r.stateOfPrototype, /^Error: wasmtrace: Session\.state used on something that is not a session/);
    assert.match(r.downloadSymbol, /^Error: wasmtrace: download\(filename\): filename must be a string, got a Symbol$/);
    assert.match(r.downloadSymbolStopped, /^Error: wasmtrace: download\(filename\): filename must be a string, got a Symbol$/);
    assert.equal(r.stopAgain, 'ok');
  });
});

describe('lone surrogates on their way to C', () => {
  test('become U+FFFD; the next character is kept and the other sessions are unaffected', async () => {
    // The page turns <D800> into a raw lone surrogate (a URL cannot carry one).
    const config = JSON.stringify({ sessions: [
      { name: 'good' },
      { name: 'lone', output: '/traces/x<D800>y.json' },
      { name: 'bad<DC00>z' },
    ] });
    const { page } = await open({ config });
    const r = await evaluate(page, async () => {
      const list = Module.wasmtrace.getStartupSessions().map((s) => ({ name: s.name, output: s.output, state: s.state, error: s.error }));
      const rt = Module.wasmtrace.startSession('{"name":"rt","output":"/traces/r\uDBFFt.json"}');
      const runtime = { state: rt.state, output: rt.output, error: rt.error };
      await Promise.allSettled(Module.wasmtrace.getStartupSessions().map((s) => s.stop()));
      await rt.stop().catch(() => {});
      return { list, runtime, configError: Module.wasmtrace.configError };
    });
    assert.equal(r.configError, null);
    const [good, lone, bad] = r.list;
    assert.equal(good.name, 'good');
    assert.notEqual(good.state, 'failed', good.error);
    assert.equal(lone.output, '/traces/x\uFFFDy.json');
    assert.notEqual(lone.state, 'failed', lone.error);
    assert.equal(bad.state, 'failed');
    assert.ok(bad.error.includes('bad\uFFFDz'), bad.error);
    assert.equal(r.runtime.output, '/traces/r\uFFFDt.json');
    assert.notEqual(r.runtime.state, 'failed', r.runtime.error);
  });
});

describe('after the runtime aborts', () => {
  test('a pending stop() and new ones reject at once, state is failed, stats and traces throw; a finished trace survives', async () => {
    const { page } = await open({ config: JSON.stringify({ sessions: [{ name: 'startup' }] }) });
    const r = await evaluate(page, async (guardMs) => {
      const wt = Module.wasmtrace;
      const settle = (p) => Promise.race([
        p.then(() => ({ resolved: true }), (e) => ({ rejected: e.message })),
        new Promise((res) => setTimeout(() => res({ hung: true }), guardMs)),
      ]);
      const before = wt.aborted;
      const done = wt.startSession({ name: 'done' });
      await done.stop();
      const [startup] = wt.getStartupSessions();
      const running = wt.startSession({ name: 'running' });
      const pending = startup.stop();
      let thrown = null;
      try {
        Module._shim_abort();
      } catch (e) {
        thrown = e.message;
      }
      const out = { before, thrown, aborted: wt.aborted };
      out.pending = await settle(pending);
      out.later = await settle(running.stop());
      out.running = { state: running.state, error: running.error };
      const grab = (f) => {
        try {
          return `returned ${f()}`;
        } catch (e) {
          return `${e.constructor.name}: ${e.message}`;
        }
      };
      out.stats = grab(() => JSON.stringify(running.stats()));
      out.blob = grab(() => running.getTraceBlob());
      out.memory = grab(() => wt.memory());
      const fresh = wt.startSession({ name: 'fresh' });
      out.fresh = { state: fresh.state, error: fresh.error };
      out.freshStop = await settle(fresh.stop());
      out.done = { state: done.state, stats: done.stats().bytesWritten, blob: done.getTraceBlob().size,
        magic: Array.from(done.getTraceBytes().slice(0, 2)) };
      out.startupAgain = wt.getStartupSessions().map((s) => s.state);
      return out;
    }, HANG_GUARD_MS);
    assert.equal(r.before, null);
    assert.match(r.thrown, /Aborted/);
    assert.match(r.aborted, /^the wasm runtime aborted: /);
    const cannot = /the wasm runtime aborted: .*; sessions cannot finish/;
    assert.ok(r.pending.rejected, `pending stop(): ${JSON.stringify(r.pending)}`);
    assert.match(r.pending.rejected, /^wasmtrace: session 'startup' failed: the wasm runtime aborted/);
    assert.match(r.pending.rejected, cannot);
    assert.ok(r.later.rejected, `stop() after the abort: ${JSON.stringify(r.later)}`);
    assert.match(r.later.rejected, cannot);
    assert.equal(r.running.state, 'failed');
    assert.match(r.running.error, cannot);
    // stats() never throws: the counters as the shim read them when it
    // noticed the abort (lock-free loads into static memory).
    assert.match(r.stats, /^returned \{"samplesTaken":\d+,/);
    assert.match(r.blob, /^Error: wasmtrace: session 'running' is failed \(the wasm runtime aborted/);
    assert.match(r.memory, /^Error: wasmtrace: memory\(\) is unavailable: the wasm runtime aborted/);
    assert.equal(r.fresh.state, 'failed');
    assert.match(r.fresh.error, /^startSession\(config\): the wasm runtime aborted: .*; sessions cannot start$/);
    assert.ok(r.freshStop.rejected, JSON.stringify(r.freshStop));
    // Finished before the abort: its file is on the VFS, which is JS.
    assert.equal(r.done.state, 'stopped');
    assert.equal(r.done.blob, r.done.stats);
    assert.deepEqual(r.done.magic, [0x1f, 0x8b]);
    assert.deepEqual(r.startupAgain, ['failed']);
  });

  test('an abort that nobody catches, with stop() pending, is noticed too', async () => {
    const { page } = await open({ config: JSON.stringify({ sessions: [{ name: 'startup' }] }) });
    const r = await evaluate(page, async (guardMs) => {
      const [s] = Module.wasmtrace.getStartupSessions();
      // stop(), then an abort in the same task that reaches the event loop.
      const { pending } = await new Promise((res) => setTimeout(() => {
        res({ pending: s.stop() });
        Module._shim_abort();
      }, 0));
      const settled = await Promise.race([
        pending.then(() => ({ resolved: true }), (e) => ({ rejected: e.message })),
        new Promise((res) => setTimeout(() => res({ hung: true }), guardMs)),
      ]);
      return { settled, aborted: Module.wasmtrace.aborted, state: s.state };
    }, HANG_GUARD_MS);
    assert.ok(!r.settled.hung, 'stop() never settled');
    assert.match(r.aborted, /^the wasm runtime aborted: /);
    assert.match(r.settled.rejected, /the wasm runtime aborted: .*; sessions cannot finish/);
    assert.equal(r.state, 'failed');
  });

  test('abort() on a pthread ends the runtime for wasmtrace too: stop() rejects', async () => {
    const { page } = await open({ config: JSON.stringify({ sessions: [{ name: 'startup' }] }) });
    const r = await evaluate(page, async (guardMs) => {
      const [s] = Module.wasmtrace.getStartupSessions();
      const created = Module._shim_abort_in_thread();
      const start = performance.now();
      while (!Module.wasmtrace.aborted && performance.now() - start < guardMs) {
        await new Promise((res) => setTimeout(res, 10));
      }
      const settled = await Promise.race([
        s.stop().then(() => ({ resolved: true }), (e) => ({ rejected: e.message })),
        new Promise((res) => setTimeout(() => res({ hung: true }), guardMs)),
      ]);
      return { created, settled, aborted: Module.wasmtrace.aborted, state: s.state };
    }, HANG_GUARD_MS);
    assert.equal(r.created, 0);
    assert.match(r.aborted, /^the wasm runtime aborted: /);
    assert.ok(r.settled.rejected, JSON.stringify(r.settled));
    assert.match(r.settled.rejected, /the wasm runtime aborted: .*; sessions cannot finish/);
    assert.equal(r.state, 'failed');
  });

  test('a wasm trap is no abort: Emscripten keeps the runtime alive, and sessions finish with their trace', async () => {
    const { page } = await open({ config: JSON.stringify({ sessions: [{ name: 'startup' }] }) });
    const r = await evaluate(page, async (guardMs) => {
      const [s] = Module.wasmtrace.getStartupSessions();
      await new Promise((res) => {
        setTimeout(() => Module._shim_trap(), 0); // uncaught
        setTimeout(res, 50);
      });
      const settled = await Promise.race([
        s.stop().then(() => ({ resolved: true }), (e) => ({ rejected: e.message })),
        new Promise((res) => setTimeout(() => res({ hung: true }), guardMs)),
      ]);
      return { settled, aborted: Module.wasmtrace.aborted, state: s.state, size: s.state === 'stopped' ? s.getTraceBlob().size : 0 };
    }, HANG_GUARD_MS);
    assert.deepEqual(r.settled, { resolved: true });
    assert.equal(r.aborted, null);
    assert.equal(r.state, 'stopped');
    assert.ok(r.size > 0);
  });
});

describe('after the runtime exits (-sEXIT_RUNTIME)', () => {
  test('a pending stop() rejects naming the exit, and a trace finished before it survives', async () => {
    const { page } = await open({ app: 'shim_exit', config: JSON.stringify({ sessions: [{ name: 'startup' }] }) });
    const r = await evaluate(page, async (guardMs) => {
      const wt = Module.wasmtrace;
      const done = wt.startSession({ name: 'done' });
      await done.stop();
      const [s] = wt.getStartupSessions();
      const { pending } = await new Promise((res) => setTimeout(() => {
        res({ pending: s.stop() });
        Module._shim_force_exit(3); // throws ExitStatus to the event loop
      }, 0));
      const settled = await Promise.race([
        pending.then(() => ({ resolved: true }), (e) => ({ rejected: e.message })),
        new Promise((res) => setTimeout(() => res({ hung: true }), guardMs)),
      ]);
      return { settled, aborted: wt.aborted, state: s.state, done: done.state, size: done.getTraceBlob().size };
    }, HANG_GUARD_MS);
    assert.equal(r.aborted, 'the wasm runtime exited with status 3');
    assert.ok(!r.settled.hung, 'stop() never settled');
    assert.equal(r.settled.rejected, "wasmtrace: session 'startup' failed: the wasm runtime exited with status 3; sessions cannot finish");
    assert.equal(r.state, 'failed');
    assert.equal(r.done, 'stopped');
    assert.ok(r.size > 0);
  });
});
