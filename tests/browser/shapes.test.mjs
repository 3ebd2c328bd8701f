// The shapes real apps take (tests/shapes/CMakeLists.txt), on the wasm tree
// under test: each records a startup session with every app thread named
// and sampled, a startup timeline with its pool workers and main(),
// Module.wasmtrace reachable (after awaiting the factory where there is
// one), no page error, and the app's own output exactly what the program
// prints (computed here), with wasmtrace's session running.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { emccVersion, wasmBuildDir } from '../lib/build-dir.mjs';
import { testBrowser } from '../lib/test-browser.mjs';
import { launch } from '../../lib/browser.mjs';
import { readProfile } from '../../lib/profile.mjs';
import { serve } from '../../lib/serve.mjs';
import { analyzeTrace, parseTrace } from '../../lib/trace.mjs';
import { collectTraces } from '../../js/playwright.mjs';

const dir = join(wasmBuildDir, 'tests/shapes');
const CONFIG = { sessions: [{ name: 'startup', output: '/traces/startup.json.gz', durationMs: 20000 }] };
const SHAPES = [
  { app: 'shapes_default', kind: 'classic', what: "Emscripten's default heap (no memory flag)" },
  { app: 'shapes_proxy', kind: 'classic', what: '-sPROXY_TO_PTHREAD (main on a pthread), default heap', proxy: true },
  { app: 'shapes_modular', kind: 'modular', what: '-sMODULARIZE (the factory awaited)' },
  { app: 'shapes_es6', kind: 'es6', what: '-sMODULARIZE -sEXPORT_ES6 from a module script' },
  { app: 'shapes_growth', kind: 'classic', what: '-sALLOW_MEMORY_GROWTH with -sMAXIMUM_MEMORY' },
  { app: 'shapes_exceptions', kind: 'classic', what: 'C++ with -fexceptions' },
  { app: 'shapes_wasm_exceptions', kind: 'classic', what: 'C++ with -fwasm-exceptions' },
  // Fills all but 1.5 MiB of what would be free without wasmtrace: the
  // session stops early (the app's heap ran low) and gives its memory back.
  { app: 'shapes_heapfill', kind: 'classic', what: '-sPROXY_TO_PTHREAD at the default heap, filled by the app', fill: true, proxy: true },
];
// What the app prints, in every shape: its threads' results computed here
// the way tests/shapes/shapes.c computes them (unsigned 32-bit arithmetic).
function mix(seed, n) {
  for (let i = 0; i < n; i++) seed = (Math.imul(seed, 1664525) + 1013904223 + (seed >>> 13)) >>> 0;
  return seed;
}
const crunch = (which) => { let seed = 17 + which; for (let r = 0; r < 60; r++) seed = mix(seed, 400000); return seed; };
const EXPECTED = [`shapes: a=${crunch(0)} b=${crunch(1)}`, 'shapes: cxx 3', 'shapes: done'];

let server, browser;
before(async () => {
  server = await serve(dir);
  browser = await launch({ browser: testBrowser });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Loads one shape, with or without the startup config; returns what the page did. */
async function run(shape, withSession, args = '') {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e && e.message || e)));
  if (withSession) await page.addInitScript((c) => { globalThis.wasmtraceConfig = c; }, CONFIG);
  try {
    await page.goto(`${server.url}index.html?app=${shape.app}&kind=${shape.kind}${args ? `&args=${args}` : ''}`);
    await page.waitForFunction('(globalThis.shapesDone === true && !!window.shapesApp) || window.shapesErrors.length > 0',
      null, { timeout: 90000, polling: 50 });
    const state = await page.evaluate(() => ({
      output: window.shapesOutput.slice(), errors: window.shapesErrors.slice(), fillBytes: globalThis.shapesFillBytes,
      stackBytes: globalThis.shapesStackBytes,
      hasApi: !!(window.shapesApp && window.shapesApp.wasmtrace &&
        typeof window.shapesApp.wasmtrace.getStartupSessions === 'function'),
    }));
    let sessions = [];
    if (withSession && state.hasApi) {
      sessions = await collectTraces(page, { parse: false, module: 'window.shapesApp', timeoutMs: 60000 });
    }
    return { ...state, pageErrors: errors, sessions };
  } finally {
    await page.close();
  }
}

// Where the toolchain gives a pthread 2 MiB by default (3.1.x), a
// -sPROXY_TO_PTHREAD app at the default 16 MiB heap (main() on a 5 MiB
// pthread stack, beside the 5 MiB main stack) leaves itself less than the
// 2 MiB headroom once its two threads exist: the session must stop early
// (docs/GUIDE.md, "Memory"), and the app complete as it does alone.
const stopsEarly = (shape, r) => shape.fill || (shape.proxy && r.stackBytes >= 1 << 20);

describe(`the shapes real apps take, in ${testBrowser} (${wasmBuildDir}, emcc ${emccVersion.join('.')})`, () => {
  for (const shape of SHAPES) {
    const built = existsSync(join(dir, shape.app + (shape.kind === 'es6' ? '.mjs' : '.js')));
    test(`${shape.what}: records every thread, the timeline and main(), and the app prints what it prints alone`,
      { skip: built ? false : `${shape.app} is not built in this tree` }, async (t) => {
        const expected = shape.fill ? ['shapes: filled the heap', ...EXPECTED] : EXPECTED;
        // The filling app runs alone first (how much it fills depends on the
        // heap it has without wasmtrace), then fills as much with a session.
        let fillArg = '';
        if (shape.fill) {
          const alone = await run(shape, false);
          assert.deepEqual(alone.pageErrors, [], `${shape.app} without a session: page errors`);
          assert.deepEqual(alone.output, expected, `${shape.app} without a session printed:\n${alone.output.join('\n')}`);
          assert.ok(alone.fillBytes > 1 << 20, `${shape.app} filled only ${alone.fillBytes} bytes alone`);
          fillArg = String(alone.fillBytes);
        }
        const rec = await run(shape, true, fillArg);
        const early = stopsEarly(shape, rec);
        assert.deepEqual(rec.pageErrors, [], `${shape.app}: page errors with a session`);
        assert.deepEqual(rec.errors, [], `${shape.app}: the factory failed with a session`);
        // The app's own output, exactly (wasmtrace prints on the console, never through the app's print).
        assert.deepEqual(rec.output, expected, `${shape.app}: the output differs with a session`);
        assert.ok(rec.hasApi, `${shape.app}: Module.wasmtrace is not on the instance`);

        assert.equal(rec.sessions.length, 1);
        const s = rec.sessions[0];
        assert.equal(s.state, 'stopped', `${shape.app}: session ${s.state} ${s.error ?? ''}`);
        const bytes = Buffer.from(s.bytes);
        const analysis = analyzeTrace(parseTrace(bytes));
        const stoppedEarly = readProfile(bytes).stats?.stoppedEarly;
        // stats() says it too, with the console line's text.
        assert.equal(s.stats?.stoppedEarly, early ? stoppedEarly : undefined, `${shape.app}: stats().stoppedEarly`);
        if (early) {
          assert.match(String(stoppedEarly), /^the app's heap ran low: \d+ KiB free, below the \d+ KiB wasmtrace keeps free for the app/,
            `${shape.app}: the trace does not say why the session stopped early`);
        }
        if (shape.fill) {
          // What makes the app's completion independent of the machine's
          // load (docs/GUIDE.md, "Memory"): what wasmtrace held at the stop
          // (the threshold less the 2 MiB headroom of the default 16 MiB
          // heap) is less than the 1.5 MiB the app leaves free, so the app
          // never waits on the stop giving memory back.
          const held = Number(/below the (\d+) KiB/.exec(stoppedEarly)[1]) - 2048;
          assert.ok(held < 1536, `${shape.app}: wasmtrace held ${held} KiB at the stop, more than the 1536 KiB the app leaves free`);
        } else if (!early) {
          assert.equal(stoppedEarly, undefined, `${shape.app}: stopped early: ${stoppedEarly}`);
        }
        const byName = new Map(analysis.threads.map((t) => [t.name, t]));
        // A session stopped for the app's own stacks (3.1.x's proxied main)
        // had no room for its threads' records: what it has is the page's
        // main thread, the timeline, and the reason.
        for (const name of early && !shape.fill ? [] : ['crunch-a', 'crunch-b']) {
          const t = byName.get(name);
          assert.ok(t, `${shape.app}: no thread ${name} in ${[...byName.keys()]}`);
          assert.ok(t.samples.some((x) => x.stack.includes('crunch round')),
            `${shape.app}: ${name} has no sample in its 'crunch round' scope`);
        }
        assert.ok(byName.has('main'), `${shape.app}: no main thread in ${[...byName.keys()]}`);
        // The startup timeline: the pool's workers and main().
        const timeline = readProfile(bytes).startup;
        assert.ok(timeline, `${shape.app}: no startup timeline`);
        const names = timeline.phases.map((p) => `${p.kind} ${p.name}`);
        for (const want of [/^span worker 1 load$/, /^instant worker 1 ready$/, /^span wasmtrace worker load$/,
          /^instant main\(\) starts$/, /^span constructors$/]) {
          assert.ok(names.some((n) => want.test(n)), `${shape.app}: no ${want} in the timeline:\n  ${names.join('\n  ')}`);
        }
      });
  }
});

// Shapes wasmtrace does not support are refused at link time, with one line
// naming the flag (js/wasmtrace_library.js), by the emcc first on PATH (the
// toolchain of the tree under test). A toolchain without the setting skips it.
describe(`shapes wasmtrace refuses, with the emcc on PATH (emcc ${emccVersion.join('.')})`, () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  // -nostdlib: the refusal comes from the JS library, read before any
  // system library is linked, and a fresh Emscripten cache has neither the
  // wasm64 nor the Wasm Workers libraries: building them took 202 s of the
  // 3.1.69 pass and 143 + 170 s of the 6.0.5 pass on two cores, for nothing
  // this test reads.
  for (const [flags, what] of [[['-sWASM_WORKERS'], '-sWASM_WORKERS'], [['-sMEMORY64'], '-sMEMORY64 (-m64)']]) {
    test(`${flags.join(' ')}: one line at link time`, (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'wasmtrace-refuse-'));
      try {
        writeFileSync(join(dir, 'a.c'), 'int main(void) { return 0; }\n');
        const r = spawnSync('emcc', ['-pthread', ...flags, '-nostdlib', 'a.c', '-o', 'a.js', '--js-library', join(root, 'js/wasmtrace_library.js')],
          { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' } });
        const text = `${r.stdout}${r.stderr}`;
        if (/non-existent setting|Invalid command line option|unknown setting/i.test(text)) {
          t.skip(`this emcc has no ${flags.join(' ')}`);
          return;
        }
        if (!text.includes('wasmtrace: ')) {
          // An emcc that cannot link the shape at all, with or without
          // wasmtrace (Debian's 3.1.6 has no wasm64 system libraries: a
          // Python traceback): nothing of ours to refuse.
          const bare = spawnSync('emcc', ['-pthread', ...flags, 'a.c', '-o', 'b.js'],
            { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' } });
          if (bare.status !== 0) {
            t.skip(`this emcc cannot link ${flags.join(' ')} without wasmtrace either`);
            return;
          }
        }
        assert.notEqual(r.status, 0, `emcc linked ${flags.join(' ')}: ${text}`);
        const lines = text.split('\n').filter((l) => l.includes('wasmtrace: '));
        assert.equal(lines.length, 1, text);
        assert.ok(lines[0].includes(`wasmtrace: ${what} is not supported: `), lines[0]);
        assert.ok(!existsSync(join(dir, 'a.js')), 'no output was written');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
