// Heap numbers on a heap shaped like Lua's (issue 38): tests/heap/wrapper.c
// allocates through one allocator callback (l_alloc) and holds more than
// 100,000 small blocks at once, more than the first table of the shim's
// address set (65,536), with its own exact count of the bytes it holds.
//  - "sampleBytes": 1 is exact: the peak, the live bytes at stop and each
//    site's live bytes to the byte, nothing dropped, the address set grown;
//  - a site is the caller of the wrapper, not l_alloc (which the report
//    names as a wrapper it went past), and the full stack is kept;
//  - at a sampling interval, the live-at-stop 95 % interval covers the
//    truth in most of 30 independent samplings of one workload.
// Nothing here depends on machine speed: in the exact run the app waits
// whenever wasmtrace's worker has a quarter of the shim's queue undrained
// (tests/heap/pace.h; CI's 6.0.5 pass once lost samples three recordings
// in a row under a timed pace alone), and if a worker still fell behind
// (the queue or the address set filled before its drain; the trace counts
// it, and the report then says "not exact"), the page is recorded again,
// up to 3 times.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { heapView, textHeapReport } from '../../lib/heap.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { serve } from '../../lib/serve.mjs';
import { launchTestBrowser } from '../lib/test-browser.mjs';
import { recordPage } from '../lib/record.mjs';

const dir = join(wasmBuildDir, 'tests/heap/wrapper');
const APP_SITES = ['new_object', 'grow_array', 'new_string'];

describe('a Lua-shaped heap at "sampleBytes": 1: exact past 100,000 live blocks', () => {
  let profile, view, expect, attempts = 0;
  before(async () => {
    for (;;) {
      attempts++;
      const rec = await recordPage({ dir, path: 'index.html', waitFor: 'self.wrapperDone === true', timeoutMs: 180000,
        beforeStop: async (page) => { expect = await page.evaluate(() => self.wrapperExpect); } });
      const s = rec.sessions[0];
      assert.equal(s.state, 'stopped', `${s.state}: ${s.error ?? ''}`);
      profile = readProfile(s.bytes);
      const d = profile.stats.heap.dropped;
      // A worker that fell behind on a loaded machine: counted, said, recorded
      // again. Both drops are that: the queue filled before the worker
      // drained it, or the address set filled before the worker's drain
      // grew it (wt_heap_grow runs there; seen once in CI-like load: one
      // sample, 169 bytes).
      if ((d.queueFull || d.setFull) && attempts < 3) {
        assert.match(textHeapReport(heapView(profile)), /not exact: each figure below may be low by up to/);
        continue;
      }
      break;
    }
    view = heapView(profile);
  });

  test('nothing dropped, and the address set grew past its first table', () => {
    const h = profile.stats.heap;
    assert.ok(expect.liveBlocks > 100000, `the app keeps ${expect.liveBlocks} blocks`);
    assert.deepEqual(h.dropped, { queueFull: 0, setFull: 0, freesLost: 0, bytes: 0 });
    assert.ok(h.addressSet.tables >= 3, `address set: ${JSON.stringify(h.addressSet)}`);
    assert.ok(h.addressSet.slots >= 2 * expect.liveBlocks * 0.9, `address set: ${JSON.stringify(h.addressSet)}`);
    assert.deepEqual(h.withoutThread, { allocations: 0, bytes: 0 }, 'every allocation on a thread with a record');
    assert.doesNotMatch(textHeapReport(view), /not exact/);
  });

  test('each site is the caller of the wrapper, with its live bytes to the byte', () => {
    for (const site of APP_SITES) {
      const rows = view.sites.filter((s) => s.site === site);
      assert.equal(rows.length, 1, `${site}: ${JSON.stringify(view.sites.map((s) => s.site))}`);
      assert.equal(rows[0].live, expect.sites[site], site);
      assert.equal(rows[0].liveVar, 0, `${site}: exact, no spread`);
    }
    assert.ok(!view.sites.some((s) => s.site === 'l_alloc'), 'no site is the wrapper');
    assert.ok(view.wrappers.includes('l_alloc'), `wrappers gone past: ${view.wrappers}`);
    // The full stack is kept: the blocks live at stop end in l_alloc.
    const b = view.blocks.live.find((x) => x.stack.includes('new_string'));
    assert.deepEqual(b.stack.slice(b.stack.indexOf('new_string') + 1).filter((f) => !/^(realloc|malloc|__wrap_realloc)$/.test(f)).slice(0, 1), ['l_alloc']);
  });

  test("the peak and the live bytes at stop are the app's own count", () => {
    const appSites = (key) => view.sites.filter((s) => APP_SITES.includes(s.site)).reduce((a, s) => a + s[key], 0);
    assert.equal(appSites('peak'), expect.peak, 'the app sites at the heap\'s peak');
    assert.equal(appSites('live'), expect.live, 'the app sites at stop');
    // What else was live (the runtime's own blocks) is small beside it.
    assert.ok(view.peak.bytes - expect.peak < 0.05 * expect.peak, `peak ${view.peak.bytes} vs the app's ${expect.peak}`);
    assert.match(textHeapReport(view), /new_object/);
  });
});

describe('a Lua-shaped heap at 64 KiB: the live-at-stop interval over 30 samplings', () => {
  const ROUNDS = 30;
  let rounds;
  before(async () => {
    const server = await serve(dir);
    const browser = await launchTestBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}index.html?rounds`);
      await page.waitForFunction('self.wrapperReady === true', null, { timeout: 60000, polling: 50 });
      rounds = [];
      for (let r = 0; r < ROUNDS; r++) {
        // One round a call: the page's own time, and a bounded result.
        rounds.push(await page.evaluate(async (seed) => {
          const wt = Module.wasmtrace;
          Module._wrapper_round_free();
          const s = wt.startSession({ name: `round-${seed}`, format: 'firefox', compression: 'none',
            heap: { sampleBytes: 65536 } });
          // Adopted by the worker before the round's first allocation.
          for (let i = 0; s.state === 'starting' && i < 2000; i++) await new Promise((r) => setTimeout(r, 5));
          const truth = Module._wrapper_round(seed);
          await s.stop();
          return { truth, state: s.state, bytes: Array.from(s.getTraceBytes()) };
        }, r + 1));
      }
    } finally {
      await browser.close();
      await server.close();
    }
  });

  test('the interval covers the truth in at least 24 of 30 samplings (95 % each)', () => {
    let covered = 0;
    const misses = [];
    for (const { truth, state, bytes } of rounds) {
      assert.equal(state, 'stopped');
      const view = heapView(readProfile(Uint8Array.from(bytes)));
      assert.equal(view.interval, 65536);
      const rows = view.sites.filter((s) => s.site === 'round_fill');
      const est = rows.reduce((a, s) => a + s.live, 0), sd = Math.sqrt(rows.reduce((a, s) => a + s.liveVar, 0));
      assert.ok(est > 0 && sd > 0, `a round of ~5.5 MiB at 64 KiB has samples: ${est} ± ${sd} (${JSON.stringify(view.sites.map((s) => [s.site, s.live]))}, ${view.allocations} allocations)`);
      if (Math.abs(est - truth) <= 1.96 * sd) covered++;
      else misses.push(`${Math.round(est)} ± ${Math.round(1.96 * sd)} vs ${truth}`);
    }
    // 95 % coverage gives >= 24 of 30 with probability 0.9998.
    assert.ok(covered >= 24, `covered ${covered} of ${rounds.length}; missed: ${misses.join(', ')}`);
  });
});
