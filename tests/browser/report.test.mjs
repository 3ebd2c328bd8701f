// The Playwright helper in a real page, and the HTML report in a real
// browser. The sample is recorded the way a user's Playwright test would
// (wasmtrace/playwright: configure, wait, start a session at runtime,
// collect, assert); `wasmtrace report --html` turns the trace into a page,
// which headless Chromium opens offline: it must draw a flame graph per
// thread with the expected frames on top, zoom on click and highlight on
// search. A screenshot is kept under test-results/; with
// WT_UPDATE_DOCS_IMAGES=1 it also replaces docs/img/report.png, the
// README's picture (docs/INTERNALS.md, "The documentation's pictures").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { launch } from '../../lib/browser.mjs';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { serve } from '../../lib/serve.mjs';
import {
  assertRan, assertTimeBelow, collectTraces, configure, startSession, status, timeIn, waitForWasmtrace,
} from '../../js/playwright.mjs';
import { assertScopeSampledAtEveryTick } from '../lib/ticks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const results = join(root, 'test-results');
const traceDir = join(results, 'report-traces');
const html = join(results, 'report.html');
const screenshot = join(results, 'report.png');

describe('Playwright helper and HTML report', () => {
  let browser;
  let server;
  let traces;

  before(async () => {
    rmSync(traceDir, { recursive: true, force: true });
    mkdirSync(results, { recursive: true });
    server = await serve(join(wasmBuildDir, 'samples/startup'));
    browser = await launch();
    const page = await browser.newPage();
    // The sample page sets its own Module.wasmtraceConfig; the helper's wins.
    await configure(page, { sessions: [{ name: 'helper', sampling: { intervalUs: 1000 } }] });
    await page.goto(server.url + 'index.html');
    const ready = await waitForWasmtrace(page, { timeoutMs: 120000 });
    assert.deepEqual(ready.sessions.map((s) => s.name), ['helper']);
    await page.waitForFunction(() => window.sampleStartupComplete === true, null, { timeout: 120000 });
    const later = await startSession(page, { name: 'later', format: 'folded', output: '/traces/later.folded' });
    assert.equal(later.error, null);
    assert.equal((await status(page)).sessions.length, 2);
    traces = await collectTraces(page, { outDir: traceDir });
    await page.close();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('collectTraces brings back every session, written to disk and parsed', () => {
    assert.deepEqual(traces.map((t) => [t.name, t.state, t.error]), [['helper', 'stopped', null], ['later', 'stopped', null]]);
    const [helper, later] = traces;
    assert.match(helper.file, /report-traces\/helper\.json\.gz$/);
    assert.equal(helper.profile.format, 'chrome');
    assert.equal(later.profile.format, 'folded');
    assert.match(later.file, /later\.folded$/);
  });

  test('assertion helpers on the startup trace: a function ran, a phase stayed under a bound', () => {
    const p = traces[0].profile;
    assertRan(p, 'inflate_block', { thread: 'asset-decoder-0', minSamples: 20 });
    assertRan(p, 'sort_keys', { thread: 'main' });
    const parse = assertTimeBelow(p, 'parse_config', 60000, { thread: 'main' });
    assert.equal(parse.source, 'scopes');
    assert.ok(parse.ms > 50, `parse_config took ${parse.ms} ms`);
    // Sampled total time is the samples' weights x interval (a sample after
    // missed ticks stands for them too), and main was sampled inside
    // parse_config at every tick while it lasted: no more than the scope's
    // own time plus an interval at its end, and plus the ticks the first
    // sample inside stands for before it (missed before the scope began),
    // and plus one more interval: a tick copies the stack up to an interval
    // after its grid point (later under load), so the first tick inside
    // may belong to a grid point before the scope began (scope 1.5-61.05 ms,
    // first tick at grid point 1 late by 0.6 ms, last at 61 late by 0.01 ms:
    // 60 intervals plus the first one's weight, over 59.55 ms plus it).
    const sampled = timeIn(p, 'parse_config', { thread: 'main', source: 'samples' }).ms;
    const main = p.threads.find((t) => t.name === 'main');
    const { samples } = assertScopeSampledAtEveryTick(p, main, 'parse_config');
    const inside = main.samples.filter((s) => s.stack.includes('parse_config'));
    assert.equal(inside.length, samples);
    assert.equal(sampled, (inside.reduce((n, s) => n + s.weight, 0) * p.intervalUs) / 1000);
    assert.ok(sampled > 0 && sampled <= parse.ms + ((inside[0].weight + 1) * p.intervalUs) / 1000, `sampled ${sampled} ms vs scope ${parse.ms} ms`);
    assert.throws(() => assertTimeBelow(p, 'parse_config', 1, { thread: 'main' }), /below 1 ms, measured/);
  });

  describe('the HTML report in headless Chromium', () => {
    let page;
    const requests = [];

    before(async () => {
      const { stdout } = await promisify(execFile)(process.execPath,
        [join(root, 'bin/wasmtrace.mjs'), 'report', traces[0].file, '--html', html, '--top', '3']);
      assert.match(stdout, /flame graphs: .*report\.html/);
      page = await browser.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(pathToFileURL(html).href);
      await page.waitForSelector('svg.flame g.frame');
    });

    const frames = (thread) => page.$$eval(`section[data-thread="${thread}"] g.frame`, (gs) => {
      const svgWidth = gs[0].ownerSVGElement.getBoundingClientRect().width;
      return gs.map((g) => ({
        name: g.dataset.name,
        depth: Number(g.dataset.depth),
        share: g.querySelector('rect').getBoundingClientRect().width / svgWidth,
        label: g.querySelector('text')?.textContent ?? '',
        dim: g.classList.contains('dim'),
        match: g.classList.contains('match'),
      }));
    });

    test('it loads nothing but itself (works offline)', () => {
      assert.deepEqual(requests, [pathToFileURL(html).href]);
    });

    test('one flame graph per thread', async () => {
      const threads = await page.$$eval('section.thread', (s) => s.map((x) => x.dataset.thread));
      for (const name of ['main', 'asset-decoder-0', 'asset-decoder-1']) assert.ok(threads.includes(name), `no section for ${name}`);
      assert.equal(await page.locator('svg.flame').count(), threads.length);
    });

    test('the decoders\' flame graphs have decode_assets on top and inflate_block as the widest leaf', async () => {
      for (const thread of ['asset-decoder-0', 'asset-decoder-1']) {
        const f = await frames(thread);
        const top = f.filter((x) => x.depth === 1);
        assert.equal(top[0].name, 'decode_assets', `${thread}: ${top.map((x) => x.name)}`);
        assert.ok(top[0].share > 0.95, `${thread}: decode_assets spans ${top[0].share}`);
        assert.equal(top[0].label, 'decode_assets');
        const inflate = f.find((x) => x.name === 'inflate_block');
        const convert = f.find((x) => x.name === 'convert_pixels');
        assert.ok(inflate && convert, `${thread}: ${f.map((x) => x.name)}`);
        assert.ok(inflate.share > convert.share, `${thread}: inflate_block ${inflate.share} vs convert_pixels ${convert.share}`);
        const firstRow = await page.$eval(`section[data-thread="${thread}"] table.functions tr:nth-child(2) td:last-child`, (td) => td.textContent);
        assert.equal(firstRow, 'inflate_block');
      }
    });

    test('the main thread shows startup, then parse_config and build_index', async () => {
      const f = await frames('main');
      assert.equal(f.find((x) => x.depth === 1).name, 'startup');
      const below = f.filter((x) => x.depth === 2).map((x) => x.name);
      assert.ok(below.includes('parse_config') && below.includes('build_index'), `under startup: ${below}`);
    });

    test('clicking a frame zooms into it; Escape zooms out', async () => {
      await page.locator('section[data-thread="main"] g.frame[data-name="parse_config"]').first().click();
      let f = await frames('main');
      const parse = f.find((x) => x.name === 'parse_config');
      assert.ok(parse.share > 0.99, `zoomed parse_config spans ${parse.share}`);
      assert.ok(f.find((x) => x.name === 'startup').dim, 'ancestors are dimmed');
      assert.ok(!f.some((x) => x.name === 'build_index'), 'frames outside the zoom are gone');
      await page.screenshot({ path: join(results, 'report-zoomed.png') });
      await page.keyboard.press('Escape');
      f = await frames('main');
      assert.ok(f.some((x) => x.name === 'build_index'), 'zoomed out again');
    });

    test('search highlights matching frames and says how much they cover', async () => {
      await page.fill('input[type="search"]', 'inflate');
      const f = await frames('asset-decoder-0');
      assert.ok(f.filter((x) => x.match).every((x) => x.name.includes('inflate')));
      assert.ok(f.some((x) => x.match), 'inflate_block highlighted');
      const info = await page.$eval('section[data-thread="asset-decoder-0"] .match-info', (e) => e.textContent);
      assert.match(info, /^matches: [\d.]+ ms \(\d+\.\d%\)$/);
      await page.screenshot({ path: screenshot, fullPage: true });
      if (process.env.WT_UPDATE_DOCS_IMAGES === '1') copyFileSync(screenshot, join(root, 'docs/img/report.png'));
      await page.fill('input[type="search"]', '');
    });
  });
});
