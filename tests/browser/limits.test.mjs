// Limits in headless Chromium: the wasmtrace worker never takes the app's
// last pthread pool worker (tests/pool: a pool of exactly the app's one
// thread, -sPTHREAD_POOL_SIZE_STRICT=2); the session past the id limit is a
// failed session that says why; stats() states the thread limit.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchTestBrowser } from '../lib/test-browser.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { serve } from '../../lib/serve.mjs';

const dir = join(wasmBuildDir, 'tests/pool');
let server, browser;

before(async () => {
  server = await serve(dir);
  browser = await launchTestBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the pool page; waits for main() (and postRun) to finish. */
async function open(params) {
  const page = await browser.newPage();
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  await page.goto(`${server.url}index.html?${new URLSearchParams(params)}`);
  // A hang guard only: main() creates and joins one short thread.
  await page.waitForFunction('self.poolReady === true', null, { timeout: 60000, polling: 50 });
  return { page, logs };
}

const config = JSON.stringify({
  sessions: [{ name: 'startup', output: '/traces/startup.json', compression: 'none', sampling: { intervalUs: 1000 } }],
});

describe('the pthread pool', () => {
  test('with a startup config the app still gets its one strict pool worker, and the session records', async () => {
    for (const params of [{ config }, { wasmtrace: config }]) {
      const { page, logs } = await open(params);
      assert.equal(await page.evaluate('self.poolResult'), 0, `pthread_create failed (${JSON.stringify(params).slice(0, 20)}...): ${logs.join('\n')}`);
      const r = await page.evaluate(async () => {
        const [s] = Module.wasmtrace.getStartupSessions();
        try {
          await s.stop();
        } catch (e) {
          return { state: s.state, error: s.error };
        }
        const text = new TextDecoder().decode(s.getTraceBytes());
        return { state: s.state, error: s.error, threads: s.stats().threads, text };
      });
      await page.close();
      // Either it records, or it fails and says how to fix it; here wasmtrace
      // brought its own worker, so it records, with the app's thread in it.
      assert.equal(r.state, 'stopped', `session ${r.state}: ${r.error}`);
      assert.ok(r.text.includes('app_thread_work'), 'the app thread\'s scope is in the trace');
      assert.ok(r.threads >= 2, `threads: ${r.threads}`);
    }
  });

  test('without a config the app runs, and a runtime session refuses the app\'s last pool worker with the fix', async () => {
    const { page } = await open({});
    assert.equal(await page.evaluate('self.poolResult'), 0);
    // The app's thread has exited: its worker is back in the pool, the only
    // free one. A runtime session must not take it.
    const r = await page.evaluate(async () => {
      const id = Module._pool_start_session();
      const state = Module._wt_js_session_state(id);
      const error = Module.UTF8ToString(Module._wt_js_session_error(id));
      return { id, state, error, free: Module.PThread ? Module.PThread.unusedWorkers.length : -1 };
    });
    await page.close();
    assert.ok(r.id >= 0, `id ${r.id}`);
    assert.equal(r.state, 4 /* failed */, `state ${r.state}: ${r.error}`);
    assert.match(r.error, /-sPTHREAD_POOL_SIZE=2\b/, r.error);
    assert.match(r.error, /last free pthread pool worker/, r.error);
    // (PThread is on Module in 3.1.6 only.)
    if (r.free !== -1) assert.equal(r.free, 1, 'the app keeps its pool worker');
  });

  test('default strictness: a runtime session adds its own worker instead of the app\'s last one, and records', async () => {
    const { page } = await open({ app: 'pool_lenient' });
    assert.equal(await page.evaluate('self.poolResult'), 0);
    const r = await page.evaluate(async () => {
      const id = Module._pool_start_session();
      // Yield: the worker wasmtrace added loads while the main thread is free.
      const deadline = Date.now() + 30000; // hang guard
      while (Module._wt_js_session_state(id) === 0 && Date.now() < deadline) await new Promise((f) => setTimeout(f, 20));
      const running = Module._wt_js_session_state(id);
      Module._wt_js_session_stop(id);
      while (Module._wt_js_session_state(id) < 3 && Date.now() < deadline) {
        Module.wasmtrace.pump();
        await new Promise((f) => setTimeout(f, 20));
      }
      return { running, state: Module._wt_js_session_state(id),
        error: Module.UTF8ToString(Module._wt_js_session_error(id)),
        free: Module.PThread ? Module.PThread.unusedWorkers.length : -1 };
    });
    await page.close();
    assert.equal(r.running, 1 /* running */, r.error);
    assert.equal(r.state, 3 /* stopped */, r.error);
    if (r.free !== -1) assert.equal(r.free, 1, 'the app keeps its pool worker');
  });

  test('the session past the id limit is failed and says why (never "no such session"), and stats() has the thread limit', async () => {
    const { page } = await open({});
    const r = await page.evaluate(async () => {
      const w = Module.wasmtrace;
      // Config errors take ids like any other session, without a worker.
      let first = null;
      for (let i = 0; i < 4095; i++) {
        const s = w.startSession('{"sampling":{"intervalUs":-1}}');
        if (i === 0) first = s;
      }
      // Two past the limit (before issue 12 the second got id -1 and the
      // error "no such session").
      w.startSession({ name: 'one-more', compression: 'none' });
      const over = w.startSession({ name: 'two-more', compression: 'none' });
      let rejected = null;
      try {
        await over.stop();
      } catch (e) {
        rejected = e.message;
      }
      return { state: over.state, error: over.error, rejected, stats: first.stats() };
    });
    await page.close();
    assert.equal(r.state, 'failed');
    assert.match(r.error, /too many sessions in this page's life: wasmtrace keeps the records of 4095 sessions/);
    assert.match(r.rejected, /too many sessions in this page's life/);
    assert.equal(r.stats.threadsLimit, 256);
    assert.equal(r.stats.threadsRefused, 0);
  });
});
