// End to end in headless Chromium: the sample app's startup session, recorded
// from before main() through the JS API, as a user's page would get it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { assertGridAccounting, assertScopeSampledAtEveryTick, assertThreadsShareTicks } from '../lib/ticks.mjs';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sampleDir = join(wasmBuildDir, 'samples/startup');
const INTERVAL_US = 1000;

// Samples of a thread whose stack contains `scope`.
const samplesIn = (thread, scope) => thread.samples.filter((s) => s.stack.includes(scope)).length;

describe('startup session of the sample app', () => {
  let rec, session, analysis, byName, version, pageClock;

  before(async () => {
    let clockReadAt;
    rec = await recordPage({
      dir: sampleDir,
      beforeStop: async (page) => {
        version = await page.evaluate(() => Module.wasmtrace.version);
        // Taken before the page reads its clock: the page's nowMs is then at
        // or after it, however long the answer takes to come back.
        clockReadAt = Date.now();
        pageClock = await page.evaluate(() => ({ preRunMs: Module.preRunMs, nowMs: performance.now() }));
      },
    });
    // The sessions stop after the clock was read (one more evaluation, then
    // the stop's own tick): samples may follow it by as long as that took,
    // which a loaded machine stretches (seen: ~120 ms, Firefox over BiDi).
    // Measured from before the page read its clock to after the traces came
    // back, this is an upper bound at any load (read after the answer, it
    // fell short by the answer's own latency).
    pageClock.stoppedByMs = pageClock.nowMs + (rec.collectedAt - clockReadAt);
    session = rec.sessions[0];
    analysis = analyzeTrace(parseTrace(session.bytes));
    byName = new Map(analysis.threads.map((t) => [t.name, t]));
  });

  test('stop resolves and the trace comes back as a gzip Blob', () => {
    assert.equal(rec.sessions.length, 1);
    assert.equal(session.error, null);
    assert.equal(session.state, 'stopped');
    assert.equal(session.type, 'application/gzip');
    assert.equal(session.bytes[0], 0x1f);
    assert.equal(session.bytes[1], 0x8b);
    assert.equal(session.stats.bytesWritten, session.bytes.length);
  });

  test("Module.wasmtrace.version is the C library's, which is the package's", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    assert.equal(version, pkg.version);
  });

  test('timestamps are microseconds after navigation start on every thread, whatever the Emscripten clock', () => {
    // emscripten_get_now() counts from the Unix epoch since 3.1.28 (with
    // pthreads): the trace must not. Every sample lies between the page's
    // preRun (the session starts before main) and the moment we stopped.
    for (const t of analysis.threads) {
      for (const s of [t.samples[0], t.samples.at(-1)].filter(Boolean)) {
        const ms = s.ts / 1000;
        assert.ok(ms >= pageClock.preRunMs - 50 && ms <= pageClock.stoppedByMs + 50,
          `${t.name}: a sample at ${ms.toFixed(1)} ms; page: preRun at ${pageClock.preRunMs.toFixed(1)} ms, stopping from ` +
          `${pageClock.nowMs.toFixed(1)} ms, stopped by ${pageClock.stoppedByMs.toFixed(1)} ms`);
      }
    }
  });

  test('the trace names at least three threads: main and both decoders', () => {
    assert.ok(analysis.threads.length >= 3, `threads: ${analysis.threads.map((t) => t.name)}`);
    for (const name of ['main', 'asset-decoder-0', 'asset-decoder-1']) assert.ok(byName.has(name), `missing thread ${name}`);
  });

  test('every thread that did work has non-idle samples', () => {
    for (const name of ['main', 'asset-decoder-0', 'asset-decoder-1']) {
      const busy = byName.get(name).samples.filter((s) => s.stack.length > 0 && s.stack[0] !== '(idle)');
      assert.ok(busy.length >= 10, `${name}: ${busy.length} busy samples`);
    }
  });

  test("the app's scope names appear in the sampled stacks of the right threads", () => {
    const main = byName.get('main');
    for (const scope of ['startup', 'parse_config', 'tokenize', 'build_index', 'sort_keys']) {
      assert.ok(samplesIn(main, scope) > 0, `main: no sample inside ${scope}`);
    }
    for (const name of ['asset-decoder-0', 'asset-decoder-1']) {
      const t = byName.get(name);
      for (const scope of ['decode_assets', 'decode_asset', 'inflate_block', 'convert_pixels']) {
        assert.ok(samplesIn(t, scope) > 0, `${name}: no sample inside ${scope}`);
      }
      assert.equal(samplesIn(t, 'tokenize'), 0, `${name} has samples of a main-thread function`);
      // Nesting is kept: inflate_block is always under decode_asset under
      // decode_assets (the scope), which is under decode_assets (the
      // function: the thread's start routine, its base frame, as the
      // pthread_create wrapper pushes it).
      for (const s of t.samples.filter((x) => x.stack.includes('inflate_block'))) {
        assert.deepEqual(s.stack.slice(0, 4), ['decode_assets', 'decode_assets', 'decode_asset', 'inflate_block']);
      }
    }
  });

  test('every thread is sampled at every tick, and ticks plus missed slots cover the sampling grid', (t) => {
    const ticks = assertThreadsShareTicks(analysis, 'startup');
    const g = assertGridAccounting(analysis, 'startup', INTERVAL_US);
    t.diagnostic(`${g.text}; achieved rates belong to npm run bench`);
    assert.ok(ticks > 0);
  });

  test("the app's own scopes are sampled at every tick while they last", () => {
    // The decoders time decode_assets themselves, main parse_config (X
    // events from the thread's own clock).
    for (const name of ['asset-decoder-0', 'asset-decoder-1', 'main']) {
      assertScopeSampledAtEveryTick(analysis, byName.get(name), name === 'main' ? 'parse_config' : 'decode_assets');
    }
  });

  test('scopes are X events with a category, on the thread that ran them', () => {
    const main = byName.get('main');
    const names = new Set(main.scopes.map((s) => s.name));
    for (const n of ['parse_config', 'tokenize', 'build_index', 'hash_keys', 'sort_keys']) assert.ok(names.has(n), `main lacks ${n}`);
    const tokenize = main.scopes.filter((s) => s.name === 'tokenize');
    assert.equal(tokenize.length, 24); // the sample tokenizes 24 times
    for (const t of analysis.threads) for (const s of t.scopes) assert.equal(s.cat, 'app');
  });

  test('the accounting is exact: taken = written + dropped, and matches the samples in the file', () => {
    const st = analysis.stats;
    assert.equal(st.samplesTaken, st.samplesWritten + st.samplesDropped);
    const inFile = analysis.threads.reduce((n, t) => n + t.samples.length, 0);
    assert.equal(inFile, st.samplesWritten);
    assert.equal(session.stats.samplesWritten, st.samplesWritten);
  });
});

describe('bad startup config', () => {
  const run = (config) =>
    recordPage({ dir: sampleDir, path: `index.html?wasmtrace=${encodeURIComponent(config)}`,
      beforeStop: async (page) => {
        rec.extra = await page.evaluate(() => ({
          configError: Module.wasmtrace.configError,
          sessions: Module.wasmtrace.getStartupSessions().map((s) => ({ name: s.name, state: s.state, error: s.error })),
        }));
      } });
  const rec = {};

  test('malformed JSON: no session, a top-level error with its position, and the app still starts', async () => {
    const r = await run('{"sessions": [');
    assert.equal(r.sessions.length, 0);
    assert.deepEqual(rec.extra.sessions, []);
    assert.match(rec.extra.configError, /^config: malformed JSON at line 1, column \d+ .*from the 'wasmtrace' URL parameter/);
    assert.ok(r.console.some((l) => l.includes('wasmtrace: config error: config: malformed JSON')), 'error printed to the console');
  });

  test('an invalid session fails with the key path while a valid one records', async () => {
    const r = await run(JSON.stringify({ sessions: [
      { name: 'bad', sampling: { intervalUs: 5 } },
      { name: 'good', output: '/traces/good.json.gz' },
    ] }));
    assert.equal(rec.extra.sessions[0].state, 'failed');
    assert.equal(rec.extra.sessions[0].error, 'sessions[0].sampling.intervalUs: expected an integer from 50 to 1000000, got 5');
    const good = r.sessions.find((s) => s.name === 'good');
    assert.equal(good.state, 'stopped');
    assert.ok(analyzeTrace(parseTrace(good.bytes)).threads.length >= 3);
    const bad = r.sessions.find((s) => s.name === 'bad');
    assert.match(bad.error, /^sessions\[0\]\.sampling\.intervalUs/);
  });
});
