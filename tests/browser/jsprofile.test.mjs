// The page main thread's JavaScript and wasm as the browser samples them
// (js/wasmtrace_startup.js starts the JS Self-Profiling API; lib/jsprofile.mjs
// adds it to each trace as "main (JS)"), and each pthread worker's ("worker
// N (JS)"), in the browser under test and the wasm tree under test.
// Chromium, served with Document-Policy: js-profiling and launched with the
// workers' features (lib/browser.mjs): every format has the thread, its
// stacks hold both the Emscripten glue's JS functions and named wasm
// functions, its samples of main() fall inside main() and inside the main
// thread's own sampled activity, the decoder pthreads' workers show their
// entry function in the pthreads' time, and DevTools' engine and the
// Firefox Profiler open it. Without the policy, or in
// Firefox (no API): no thread, and the reason.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { testBrowser } from '../lib/test-browser.mjs';
import { importWithDevTools } from '../lib/devtools.mjs';
import { importWithFirefoxProfiler, profilerCliPath } from '../lib/firefox-profiler.mjs';
import { JS_THREAD_NAME, wasmFunctionLocator } from '../../lib/jsprofile.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { parseTrace } from '../../lib/trace.mjs';
import { startupMoments } from '../../lib/startup.mjs';

const sampleDir = join(wasmBuildDir, 'samples/startup');
const SESSIONS = ['chrome', 'firefox', 'folded'].map((format) => ({
  name: `js-${format}`, format, output: `/traces/js-${format}.gz`, compression: 'gzip', sampling: { intervalUs: 1000 },
}));
const CONFIG = { sessions: SESSIONS };
const chromium = testBrowser === 'chromium';

async function record(jsProfiling) {
  const rec = await recordPage({
    dir: sampleDir,
    path: `index.html?wasmtrace=${encodeURIComponent(JSON.stringify(CONFIG))}`,
    jsProfiling,
    beforeStop: (page) => page.evaluate(async () => {
      await Promise.all(Module.wasmtrace.getStartupSessions().map((s) => s.stop()));
    }),
  });
  const byName = new Map(rec.sessions.map((s) => [s.name, s]));
  for (const { name } of SESSIONS) assert.equal(byName.get(name)?.state, 'stopped', `${name}: ${byName.get(name)?.error}`);
  return byName;
}

describe(`the main thread's JS profile in ${testBrowser} (${wasmBuildDir})`, () => {
  let byName, chrome, events;
  before(async () => {
    byName = await record(true);
    chrome = readProfile(byName.get('js-chrome').bytes);
    events = parseTrace(byName.get('js-chrome').bytes);
  });

  test('Firefox has no JS Self-Profiling API: no thread, and the reason', { skip: chromium && 'Chromium has the API' }, () => {
    for (const { name } of SESSIONS) {
      const s = byName.get(name);
      assert.equal(s.jsProfile.samples, 0);
      assert.match(s.jsProfile.reason, /no JS Self-Profiling API/);
      assert.ok(!readProfile(s.bytes).threads.some((t) => t.name === JS_THREAD_NAME));
    }
  });

  test('every format has the thread, with the samples the helper says it added', { skip: !chromium && 'Chromium only' }, (t) => {
    const counts = SESSIONS.map(({ name }) => {
      const s = byName.get(name);
      assert.equal(s.jsProfile.reason, '', name);
      const th = readProfile(s.bytes).threads.find((x) => x.name === JS_THREAD_NAME);
      assert.ok(th, `${name}: no "${JS_THREAD_NAME}" thread`);
      if (name !== 'js-folded') assert.equal(th.samples.length, s.jsProfile.samples, name);
      return s.jsProfile.samples;
    });
    t.diagnostic(`samples: ${counts.join(', ')}`);
    // The windows start together (the startup phases) and end at each
    // session's stop. The timestamps come from the timestamped session
    // (chrome or firefox) that stopped last: its samples are a superset of
    // every earlier-stopping session's (chrome's own end at its stop, so
    // they cannot bound a session that stopped after it). Each count lies between those
    // samples up to the earliest stop and up to the latest (folded, without
    // timestamps, may stop after both: then only the lower bound is known).
    const stops = SESSIONS.map(({ name }) => readProfile(byName.get(name).bytes).stats.stopTimeUs);
    const timed = [0, 1].sort((a, b) => stops[b] - stops[a])[0];
    // Firefox times count from the session's start (stats.startTimeUs);
    // chrome's and the stops are on the page's clock.
    const timedProfile = readProfile(byName.get(SESSIONS[timed].name).bytes);
    const base = SESSIONS[timed].format === 'firefox' ? timedProfile.stats.startTimeUs : 0;
    assert.ok(Number.isFinite(base), 'the firefox trace has no startTimeUs');
    const ts = timedProfile.threads.find((x) => x.name === JS_THREAD_NAME).samples.map((x) => x.ts + base);
    const upTo = (stop) => ts.filter((x) => x <= stop).length;
    const minStop = Math.min(...stops);
    counts.forEach((n, i) => {
      const why = `${SESSIONS[i].name}: counts ${counts}, stops ${stops}, timestamps of ${SESSIONS[timed].name}`;
      assert.ok(n >= upTo(minStop), why);
      if (stops[i] <= stops[timed]) assert.ok(n <= upTo(stops[timed]), why);
    });
    assert.ok(counts[0] >= 20, `only ${counts[0]} samples at 10 ms over the startup`);
  });

  test('its stacks hold the Emscripten glue\'s JS functions and named wasm functions', { skip: !chromium && 'Chromium only' }, (t) => {
    const chunk = events.find((e) => e.ph === 'P' && e.name === 'ProfileChunk' &&
      events.some((m) => m.name === 'thread_name' && m.tid === e.tid && m.args?.name === JS_THREAD_NAME));
    assert.ok(chunk, 'no ProfileChunk of the thread');
    const nodes = new Map(chunk.args.data.cpuProfile.nodes.map((n) => [n.id, n]));
    const kinds = (id) => {
      const out = { js: new Set(), wasm: new Set() };
      for (let n = nodes.get(id); n; n = nodes.get(n.parent)) {
        const f = n.callFrame;
        if (/\.js$/.test(f.url) && f.functionName && f.functionName !== '(anonymous)') out.js.add(f.functionName);
        if (/\.wasm$/.test(f.url) && !/^wasm-function|^\(wasm /.test(f.functionName)) out.wasm.add(f.functionName);
      }
      return out;
    };
    const mixed = chunk.args.data.cpuProfile.samples.map(kinds).filter((k) => k.js.size && k.wasm.size);
    assert.ok(mixed.length > 0, 'no sample with both a JS function and a named wasm function on its stack');
    const glue = new Set(mixed.flatMap((k) => [...k.js]));
    const wasm = new Set(mixed.flatMap((k) => [...k.wasm]));
    t.diagnostic(`JS: ${[...glue].slice(0, 8).join(', ')}; wasm: ${[...wasm].slice(0, 8).join(', ')}`);
    assert.ok(glue.has('callMain'), `callMain not among ${[...glue]}`);
    assert.ok(wasm.has('main'), `main not among ${[...wasm]}`);
  });

  test('its samples of main() fall inside main(), beside the main thread\'s own scopes', { skip: !chromium && 'Chromium only' }, (t) => {
    const js = chrome.threads.find((x) => x.name === JS_THREAD_NAME);
    const main = chrome.threads.find((x) => x.name === 'main');
    const m = startupMoments(chrome.startup);
    const inMain = js.samples.filter((s) => s.stack.includes('callMain') && s.stack.includes('main'));
    assert.ok(inMain.length > 0, 'no sample in main()');
    // main()'s end: the timeline's "main()" span, or the stop if main() had not returned.
    const mainSpan = chrome.startup.phases.find((p) => p.kind === 'span' && p.name === 'main()');
    const end = mainSpan ? mainSpan.end : chrome.stats.stopTimeUs;
    // The scopes the app opens in main() (times read at enter and exit, not sampled).
    const scopes = main.scopes;
    assert.ok(scopes.length > 0, 'no scope on the main thread');
    const first = Math.min(...scopes.map((x) => x.ts));
    const last = Math.max(...scopes.map((x) => x.ts + x.dur));
    t.diagnostic(`${inMain.length} samples in main() from ${inMain[0].ts} to ${inMain[inMain.length - 1].ts} us; ` +
      `main() ${m.main}-${end} us; the main thread's scopes ${first}-${last} us`);
    // One clock (the page's performance.now()): 1 ms for the roundings.
    for (const s of inMain) assert.ok(s.ts >= m.main - 1000 && s.ts <= end + 1000, `a sample in main() at ${s.ts} us, main() ran ${m.main}-${end}`);
    assert.ok(inMain[0].ts <= last && inMain[inMain.length - 1].ts >= first, 'the browser\'s main() and the app\'s scopes do not overlap');
    // And the window: nothing before the first startup phase or after the stop.
    const from = Math.min(...chrome.startup.phases.map((p) => p.begin));
    const stop = chrome.stats.stopTimeUs;
    for (const s of js.samples) assert.ok(s.ts >= from && s.ts <= stop, `sample at ${s.ts} outside ${from}-${stop}`);
  });

  test('each decoder pthread\'s worker has its own "worker N (JS)" thread, named wasm frames, in the pthread\'s time', { skip: !chromium && 'Chromium only' }, (t) => {
    const s = byName.get('js-chrome');
    t.diagnostic(`workers: ${s.jsProfile.workers.map((w) => `${w.name} ${w.samples}`).join(', ')}; ${s.jsProfile.workersReason || 'all answered'}`);
    // -sPTHREAD_POOL_SIZE=4 (samples/CMakeLists.txt): every pool worker answers (wasmtrace's own never does, and is not asked).
    assert.deepEqual(s.jsProfile.workers.map((w) => w.name).sort(), ['worker 1 (JS)', 'worker 2 (JS)', 'worker 3 (JS)', 'worker 4 (JS)']);
    assert.equal(s.jsProfile.workersReason, '');
    const workers = chrome.threads.filter((x) => /^worker \d+ \(JS\)$/.test(x.name));
    // The decoders' entry function, by its name-section name, on busy samples of the workers that ran them.
    const ran = workers.filter((w) => w.samples.some((x) => x.stack.includes('decode_assets')));
    assert.equal(ran.length, 2, `workers that ran decode_assets: ${ran.map((w) => w.name)}`);
    // When the decoder pthreads ran decode_assets: its scope (WT_SCOPE, times read at enter and exit).
    const scopes = chrome.threads.filter((x) => /^asset-decoder-\d$/.test(x.name))
      .flatMap((x) => x.scopes.filter((sc) => sc.name === 'decode_assets'));
    assert.equal(scopes.length, 2, 'a decode_assets scope per decoder pthread');
    const from = Math.min(...scopes.map((x) => x.ts));
    const to = Math.max(...scopes.map((x) => x.ts + x.dur));
    for (const w of ran) {
      const inDecoder = w.samples.filter((x) => x.stack.includes('decode_assets'));
      t.diagnostic(`${w.name}: ${inDecoder.length} samples in decode_assets, ${inDecoder[0].ts}-${inDecoder[inDecoder.length - 1].ts} us; decoders ran ${from}-${to} us`);
      // Its clock moved onto the page's (each worker's timeOrigin differs): inside the scope, 2 ms for the roundings and the function's few lines around its scope.
      for (const x of inDecoder) assert.ok(x.ts >= from - 2000 && x.ts <= to + 2000, `${w.name}: decode_assets at ${x.ts} us, the decoders ran ${from}-${to}`);
    }
  });

  test('a stripped build would name each wasm frame the same: the code offset finds the function the name section names (inlined code aside)', { skip: !chromium && 'Chromium only' }, (t) => {
    const bytes = readFileSync(join(sampleDir, 'startup.wasm'));
    const at = wasmFunctionLocator(new Uint8Array(bytes));
    assert.ok(at, 'the locator cannot read startup.wasm');
    // The name section's function names (subsection 1: index -> name).
    const sec = new Uint8Array(WebAssembly.Module.customSections(new WebAssembly.Module(bytes), 'name')[0]);
    let p = 0;
    const leb = () => {
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        const c = sec[p++];
        v += (c & 0x7f) * 2 ** shift;
        if (!(c & 0x80)) return v;
      }
    };
    const names = new Map();
    while (p < sec.length) {
      const id = sec[p++];
      const end = leb() + p;
      if (id === 1) {
        for (let n = leb(); n > 0; n--) {
          const index = leb();
          const len = leb();
          names.set(index, Buffer.from(sec.subarray(p, p + len)).toString('utf8'));
          p += len;
        }
      }
      p = end;
    }
    // Every (name, column) pair Chromium gave a wasm frame, in every (JS)
    // thread of the trace. Chromium's optimising tier inlines small
    // functions (also through call_indirect), and a frame of inlined code
    // can carry one function's name and another's offset: seen once in CI,
    // under load, where a frame named for a caller had the 13-byte
    // `wanted.573`'s offset. The locator cannot name those frames as V8
    // does (a stripped build names them for the code they run); every
    // other frame it must name exactly, so a locator that is off (wrong
    // section, a body or an import miscounted) fails on nearly every pair.
    const pairs = new Map();
    for (const e of events) {
      if (e.ph !== 'P' || e.name !== 'ProfileChunk') continue;
      for (const n of e.args.data.cpuProfile.nodes) {
        const f = n.callFrame;
        if (/\.wasm$/.test(f.url) && f.columnNumber >= 0) pairs.set(`${f.functionName}@${f.columnNumber + 1}`, [f.functionName, f.columnNumber + 1]);
      }
    }
    const agree = [...pairs.values()].filter(([name, column]) => names.get(at(column)) === name);
    const off = [...pairs.values()].filter(([name, column]) => names.get(at(column)) !== name);
    t.diagnostic(`${pairs.size} named wasm frames; the locator names ${agree.length} as Chromium does`);
    if (off.length) t.diagnostic(`named otherwise (inlined code): ${off.map(([name, column]) => `${name} at ${column} -> ${names.get(at(column))}`).join(', ')}`);
    assert.ok(agree.length >= 5, `only ${agree.length} wasm frames named alike`);
    assert.ok(off.length * 5 <= pairs.size, `the locator names ${off.length} of ${pairs.size} frames otherwise: ${off.slice(0, 5).map(([name, column]) => `${name} at ${column} -> ${names.get(at(column))}`).join(', ')}`);
  });

  test('DevTools\' trace engine and the Firefox Profiler open it', { skip: !chromium && 'Chromium only' }, async (t) => {
    const dt = await importWithDevTools(events);
    const th = dt.threads.find((x) => x.name === JS_THREAD_NAME);
    assert.ok(th, `DevTools sees threads ${dt.threads.map((x) => x.name).join(', ')}`);
    assert.ok(th.cpuSamples > 0 && th.profileCalls > 0, `DevTools: ${th.cpuSamples} samples, ${th.profileCalls} profile calls`);
    assert.ok(th.functionSelfMs.some(([name]) => name === 'main'), `DevTools: no self time in main`);
    if (!profilerCliPath()) {
      t.diagnostic('the Firefox Profiler CLI is not installed: its check is skipped');
      return;
    }
    const fx = await importWithFirefoxProfiler(byName.get('js-firefox').bytes, { fileName: 'js-firefox.json.gz' });
    const fth = fx.threads.find((x) => x.name === JS_THREAD_NAME);
    assert.ok(fth, `the Firefox Profiler sees ${fx.threads.map((x) => x.name).join(', ')}`);
    // It counts the weight column (our samples' weights are in the session's 1 ms periods).
    const ours = readProfile(byName.get('js-firefox').bytes).threads.find((x) => x.name === JS_THREAD_NAME);
    assert.equal(fth.totalSamples, ours.samples.reduce((n, x) => n + x.weight, 0));
    assert.ok(fth.selfSamples.some(([name]) => name === 'main'), `its self functions: ${fth.selfSamples.slice(0, 8)}`);
  });

  test('a document served without Document-Policy: js-profiling: no thread, and the reason', { skip: !chromium && 'Chromium only' }, async () => {
    const plain = await record(false);
    for (const { name } of SESSIONS) {
      const s = plain.get(name);
      assert.equal(s.jsProfile.samples, 0);
      assert.match(s.jsProfile.reason, /Document-Policy: js-profiling/);
      assert.ok(!readProfile(s.bytes).threads.some((x) => x.name === JS_THREAD_NAME));
    }
  });
});
