// The startup timeline from navigation to ready (js/wasmtrace_startup.js,
// native/src/phases.h), in the browser under test and the wasm tree under
// test: the demo's named spans cover the time from navigation start to
// main(), each pool worker has its own, the spans copied from Navigation and
// Resource Timing agree with the page's own entries, and an app with
// --preload-file data and a pool of six shows the data's fetch, its run
// dependency and six workers.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { emccVersion, wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { testBrowser } from '../lib/test-browser.mjs';
import { launch } from '../../lib/browser.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { htmlReport } from '../../lib/report.mjs';
import { parseTrace } from '../../lib/trace.mjs';
import { startupCoverage, startupMoments } from '../../lib/startup.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const base = (url) => url.split(/[?#]/)[0].split('/').pop();

// What the page itself says of its navigation and resources, read just
// before the sessions stop (times in ms since navigation start).
async function pageTimings(page) {
  return page.evaluate(() => ({
    nav: performance.getEntriesByType('navigation').map((e) => ({ startTime: e.startTime, responseEnd: e.responseEnd,
      domInteractive: e.domInteractive }))[0],
    resources: performance.getEntriesByType('resource').map((e) => ({ name: e.name, startTime: e.startTime,
      responseEnd: e.responseEnd })),
  }));
}

async function recordTimeline(dir, waitFor) {
  let timings = null;
  const rec = await recordPage({
    dir, waitFor,
    beforeStop: async (page) => { timings = await pageTimings(page); },
  });
  const s = rec.sessions[0];
  assert.equal(s.state, 'stopped', `session ${s.name}: ${s.state} ${s.error ?? ''}`);
  const bytes = Buffer.from(s.bytes);
  return { profile: readProfile(bytes), events: parseTrace(bytes), timings, console: rec.console };
}

const spans = (t, re) => t.phases.filter((p) => p.kind === 'span' && re.test(p.name));
const instants = (t, re) => t.phases.filter((p) => p.kind === 'instant' && re.test(p.name));
const names = (t) => t.phases.map((p) => `${p.kind} ${p.name}`).join('\n  ');

// Within 1 ms of the browser's own entry (the shim copies them: only the
// trace's rounding to 1 ns may differ).
function assertAgrees(span, beginMs, endMs, what) {
  assert.ok(Math.abs(span.begin / 1000 - beginMs) <= 1 && Math.abs(span.end / 1000 - endMs) <= 1,
    `${what}: the trace says ${span.begin / 1000}-${span.end / 1000} ms, the page ${beginMs}-${endMs} ms`);
}

describe(`the startup timeline in ${testBrowser} (${wasmBuildDir})`, () => {
  describe('the demo', () => {
    let rec, t;
    before(async () => {
      rec = await recordTimeline(join(wasmBuildDir, 'samples/startup_instrumented'), 'window.sampleStartupComplete === true');
      t = rec.profile.startup;
    });

    test('has every phase from navigation to the app\'s ready, by name', () => {
      assert.ok(t, 'the trace has no startup timeline');
      for (const [kind, re] of [['span', /^request document$/], ['span', /^parse document$/], ['span', /^fetch startup\.js$/],
        ['span', /^fetch startup\.wasm$/], ['span', /^(compile|instantiate)/],
        // Instantiation is a run dependency up to 3.x; since 4.x run() awaits it.
        ...(emccVersion[0] < 4 ? [['span', /^run dependency: wasm-instantiate$/]] : []),
        ['span', /^run dependency: wasmtrace-worker$/], ['span', /^worker 1 load$/], ['instant', /^worker 1 ready$/],
        ['span', /^evaluate startup\.js$/], ['span', /^preRun$/], ['span', /^runtime init$/], ['span', /^constructors$/],
        ['instant', /^main\(\) starts$/], ['span', /^main\(\)$/], ['instant', /^ready$/]]) {
        assert.ok(t.phases.some((p) => p.kind === kind && re.test(p.name)), `no ${kind} ${re} in:\n  ${names(t)}`);
      }
      assert.equal(t.dropped, 0);
    });

    test('named spans cover at least 95% of the time from navigation start to main()', () => {
      const cover = startupCoverage(t);
      assert.ok(cover >= 0.95, `${(cover * 100).toFixed(1)}% covered:\n  ${names(t)}`);
    });

    test('each pool worker has its own load span ending when it is ready, and wasmtrace\'s worker is named apart', () => {
      const loads = spans(t, /^worker \d+ load$/);
      // -sPTHREAD_POOL_SIZE=4 (samples/CMakeLists.txt), all loaded before main().
      assert.deepEqual(loads.map((p) => p.name).sort(), ['worker 1 load', 'worker 2 load', 'worker 3 load', 'worker 4 load']);
      const main = startupMoments(t).main;
      for (const load of loads) {
        const ready = instants(t, new RegExp(`^${load.name.replace(' load', ' ready')}$`));
        assert.equal(ready.length, 1, load.name);
        assert.equal(ready[0].begin, load.end);
        assert.ok(load.end > load.begin && load.end <= main, `${load.name} ${load.begin}-${load.end}, main() at ${main}`);
      }
      assert.equal(spans(t, /^wasmtrace worker load$/).length, 1, names(t));
    });

    test('spans from Navigation and Resource Timing agree with the page\'s own entries within 1 ms', () => {
      const nav = rec.timings.nav;
      assertAgrees(spans(t, /^request document$/)[0], nav.startTime, nav.responseEnd, 'request document');
      assertAgrees(spans(t, /^parse document$/)[0], nav.responseEnd, nav.domInteractive, 'parse document');
      const fetches = spans(t, /^fetch /);
      assert.ok(fetches.length >= 2, names(t));
      for (const f of fetches) {
        const file = f.name.slice('fetch '.length);
        const entry = rec.timings.resources.filter((e) => base(e.name) === file)
          .sort((a, b) => Math.abs(a.startTime * 1000 - f.begin) - Math.abs(b.startTime * 1000 - f.begin))[0];
        assert.ok(entry, `no Resource Timing entry of the page for ${file}`);
        assertAgrees(f, entry.startTime, entry.responseEnd, f.name);
      }
    });

    test('phases come in startup order, and the sessions start in the constructors, before main()', () => {
      const at = (re, kind = 'span') => t.phases.find((p) => p.kind === kind && re.test(p.name));
      const wasm = at(/^fetch startup\.wasm$/), compile = at(/^(compile|instantiate)/);
      assert.ok(compile.end >= wasm.begin, 'compiled before its bytes were fetched');
      const ctors = at(/^constructors$/), main = at(/^main\(\) starts$/, 'instant');
      assert.ok(at(/^runtime init$/).end <= ctors.begin + 1 && ctors.end <= main.begin + 1);
      const started = rec.profile.session.startTimeUs;
      assert.ok(started >= ctors.begin && started <= main.begin, `session started at ${started}, constructors ${ctors.begin}-${ctors.end}`);
      assert.ok(at(/^ready$/, 'instant').begin >= main.begin);
    });

    test('the chrome trace draws them on Startup tracks: one X event per span, of category startup', () => {
      const lanes = new Map(rec.events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && /^Startup( \d+)?$/.test(e.args?.name))
        .map((e) => [e.tid, e.args.name]));
      assert.ok(lanes.size >= 1);
      const xs = rec.events.filter((e) => e.ph === 'X' && e.cat === 'startup');
      assert.equal(xs.length, t.phases.filter((p) => p.kind === 'span').length);
      for (const x of xs) assert.ok(lanes.has(x.tid), `X event '${x.name}' on tid ${x.tid}, not a Startup track`);
      // Our reader keeps them out of the threads (they have no samples).
      assert.ok(!rec.profile.threads.some((th) => /^Startup/.test(th.name)));
    });

    // The guide's picture (docs/startup-waterfall.png) is this
    // screenshot: WASMTRACE_UPDATE_SCREENSHOTS=1 writes it there.
    test('the HTML report draws the waterfall, one row per span and instant', { skip: testBrowser !== 'chromium' && 'a Chromium screenshot' }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-timeline-'));
      const html = join(dir, 'report.html');
      writeFileSync(html, htmlReport(rec.profile, { title: 'wasmtrace report: the startup sample' }));
      const browser = await launch({ browser: 'chromium' });
      try {
        const page = await browser.newPage();
        await page.goto(`file://${html}`);
        const rows = await page.evaluate(() => [...document.querySelectorAll('section#startup svg g.phase title')].map((e) => e.textContent));
        const want = t.phases.filter((p) => p.kind !== 'note');
        assert.equal(rows.length, want.length);
        want.forEach((p, i) => assert.ok(rows[i].startsWith(`${p.name}: `), `row ${i}: ${rows[i]}, want ${p.name}`));
        const shot = join(root, 'build/screenshots/startup-waterfall.png');
        mkdirSync(dirname(shot), { recursive: true });
        await (await page.$('section#startup')).screenshot({ path: shot });
        assert.ok(statSync(shot).size > 10000, 'an empty screenshot');
        if (process.env.WASMTRACE_UPDATE_SCREENSHOTS === '1') copyFileSync(shot, join(root, 'docs/startup-waterfall.png'));
      } finally {
        await browser.close();
      }
    });
  });

  describe('an app with --preload-file data and a pool of six', () => {
    let t;
    before(async () => {
      const rec = await recordTimeline(join(wasmBuildDir, 'tests/preload'), 'window.preloadDone === true');
      t = rec.profile.startup;
    });

    test('shows the data\'s fetch and its run dependency', () => {
      assert.equal(spans(t, /^fetch preload\.data$/).length, 1, names(t));
      assert.ok(spans(t, /^run dependency: .*(preload\.data|\/assets\/table\.txt)/).length >= 1, names(t));
    });

    test('shows six pool workers, each loaded and ready before main()', () => {
      const loads = spans(t, /^worker \d+ load$/).map((p) => p.name).sort();
      assert.deepEqual(loads, [1, 2, 3, 4, 5, 6].map((n) => `worker ${n} load`), names(t));
      assert.equal(instants(t, /^worker \d+ ready$/).filter((p) => p.begin <= startupMoments(t).main).length, 6);
      assert.ok(startupMoments(t).ready > startupMoments(t).main);
    });
  });
});
