// A session started with the heap nearly full (issue 23): whatever is left,
// the failed session says what it needs ("needs N KiB to start"), keeps the
// name it was given, and stats() never throws. tests/oom/lowheap.c: a fixed
// 32 MB heap the page fills until 700 down to 200 KiB are left. Before the fix,
// with 350-400 KiB left, the session had id -1 and the error "no such
// session", and stats() threw "out of memory for the stats buffer".
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchTestBrowser } from '../lib/test-browser.mjs';
import { serve } from '../../lib/serve.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';

const dir = join(wasmBuildDir, 'tests/oom');
let server, browser;

before(async () => {
  server = await serve(dir);
  browser = await launchTestBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

describe('a session started with the heap nearly full', () => {
  test('fails saying what it needs, keeps its name, and stats() does not throw', async () => {
    const page = await browser.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction('self.lowheapReady === true', null, { timeout: 60000, polling: 50 });
    const r = await page.evaluate(async () => {
      const wt = Module.wasmtrace;
      // The runtime up first (its worker, its registry), as in an app that
      // already recorded once.
      const warm = wt.startSession({ name: 'warm', compression: 'none' });
      await warm.stop();
      const out = [];
      // Downwards, never freeing in between: what the fill took stays
      // taken (a session's record above it would keep freed blocks from
      // the heap's top, the room wasmtrace counts).
      for (const kib of [700, 550, 450, 400, 375, 350, 300, 280, 265, 258, 255, 240, 200]) {
        const left = Module._lowheap_fill(kib * 1024);
        const s = wt.startSession({ name: `late-${kib}`, compression: 'none' });
        const row = { kib, left: Math.round(left / 1024), id: s.id, state: s.state, error: s.error, name: s.name };
        try {
          row.stats = s.stats();
        } catch (e) {
          row.threw = String(e.message);
        }
        if (s.state !== 'failed') {
          try {
            await s.stop();
          } catch (e) {
            row.stopError = String(e.message);
          }
        }
        out.push(row);
      }
      Module._lowheap_release();
      return out;
    });
    await page.close();
    if (process.env.WT_DEBUG) console.log(JSON.stringify(r.map(({ stats, ...x }) => x), null, 1));
    let failed = 0;
    for (const row of r) {
      const what = `${row.left} KiB left: ${JSON.stringify(row)}`;
      assert.equal(row.threw, undefined, `stats() threw with ${what}`);
      assert.equal(typeof row.stats.samplesTaken, 'number', what);
      assert.equal(row.name, `late-${row.kib}`, what);
      if (row.state === 'failed') {
        failed++;
        assert.match(row.error, /needs \d+ KiB to start/, what);
        assert.doesNotMatch(row.error, /no such session/, what);
        assert.equal(row.stats.samplesTaken, 0, what);
      }
    }
    // The low end of the range is below what any session needs, and the
    // lowest below even the session's record (~4 KiB over wasmtrace's
    // 256 KiB margin): no id, the same message.
    assert.ok(r.slice(-4).every((x) => x.state === 'failed'), JSON.stringify(r.slice(-4)));
    assert.ok(r.some((x) => x.id === -1), `no start below the record's room: ${JSON.stringify(r.map((x) => [x.left, x.id]))}`);
    assert.ok(failed >= 4);
    // Each failure was printed once, with the session's name.
    for (const row of r.filter((x) => x.state === 'failed')) {
      const lines = logs.filter((l) => l.includes(`'${row.name}'`) && l.includes('failed'));
      assert.equal(lines.length, 1, `${row.name}: ${JSON.stringify(logs)}`);
    }
  });
});
