// `wasmtrace record` end to end in the browser under test (Chromium, or
// Firefox with WASMTRACE_BROWSER=firefox: tests/lib/test-browser.mjs), as a
// user runs it:
//   - on the sample (the page's own config and its "startup done" signal);
//   - on a second app, samples/plain-emcc, built here with only the emcc
//     flags docs/GUIDE.md documents against an installed wasmtrace
//     (cmake --install), and again through find_package(wasmtrace);
//   - on the failures a user meets first, each of which must exit non-zero
//     with a message that says what to do: a session that fails (a bad
//     session in the config), no pthread pool slot for the
//     worker (strict pool, and a pool one too small, which deadlocks the
//     app), a page that is not cross-origin isolated, a module that never
//     loads, an app not linked with wasmtrace, a page without sessions.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readProfile } from '../../lib/profile.mjs';
import { assertRan } from '../../js/playwright.mjs';
import { buildSuffix, wasmBuildDir } from '../lib/build-dir.mjs';
import { browserSuffix, inFirefox, notDefaultTree, recordArgs } from '../lib/test-browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/wasmtrace.mjs');
const work = join(root, `build/plain-emcc${buildSuffix}`);
const prefix = join(work, 'prefix');
const app = (variant) => join(work, variant);
const out = join(work, `traces${browserSuffix}`);
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };

/** Runs a command; resolves with { status, stdout, stderr } whatever the status. */
function run(cmd, args, options = {}) {
  return new Promise((ok) => {
    execFile(cmd, args, { cwd: root, env, maxBuffer: 64 << 20, ...options }, (error, stdout, stderr) => {
      ok({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, all: `${stdout}\n${stderr}` });
    });
  });
}

async function mustRun(cmd, args) {
  const r = await run(cmd, args);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.all}`);
  return r;
}

// `record` runs in the browser under test.
const wasmtrace = (...args) => run(process.execPath, [cli, ...args, ...(args[0] === 'record' ? recordArgs : [])]);
// For the runs that must succeed: wait for the page as long as a loaded
// machine may need (the defaults are 30 s to load, 60 s to finish).
const PATIENT = ['--load-timeout', '120s', '--timeout', '120s'];

const mtime = (f) => (existsSync(f) ? statSync(f).mtimeMs : 0);
// Newest input of the plain-emcc builds: the library, the shim, the sample.
function inputsStamp() {
  const dirs = [join(root, 'js'), join(root, 'samples/plain-emcc'), join(root, 'cmake')];
  const files = [join(wasmBuildDir, 'libwasmtrace.a'), ...dirs.flatMap((d) => readdirSync(d).map((f) => join(d, f)))];
  return Math.max(...files.map(mtime));
}

/** Builds unless the output is newer than every input (repeated local runs). */
async function buildIfStale(output, steps) {
  if (mtime(output) > inputsStamp()) return;
  await steps();
}

describe('wasmtrace record', () => {
  before(async () => {
    mkdirSync(work, { recursive: true });
    rmSync(out, { recursive: true, force: true });
    await mustRun('cmake', ['--install', wasmBuildDir, '--prefix', prefix]);
    const build = join(root, 'samples/plain-emcc/build.sh');
    const script = (variant, ...flags) => buildIfStale(join(app(variant), 'primes.js'),
      () => mustRun('bash', [build, prefix, app(variant), ...flags]));
    await Promise.all([
      // With the opt-in formats (the plain-emcc flags the guide gives for
      // them): a test below records it in the firefox format.
      script('app', join(prefix, 'lib/libwasmtrace_formats.a'), '-Wl,--undefined=wt_encoder_firefox,--undefined=wt_encoder_folded'),
      // No pool slot at all, and creating a thread without one fails (EAGAIN).
      script('strict', '-sPTHREAD_POOL_SIZE=0', '-sPTHREAD_POOL_SIZE_STRICT=2'),
      // One slot: the app's own thread only. The wasmtrace worker used to take
      // it (the app's thread never started, main() blocked in pthread_join);
      // with a config before main() wasmtrace adds a pool worker of its own.
      script('pool1', '-sPTHREAD_POOL_SIZE=1'),
      // No pool worker for the app's thread, not strict: main() blocks in
      // pthread_join for a thread that can never start (issue 18).
      script('pool0', '-sPTHREAD_POOL_SIZE=0'),
      buildIfStale(join(app('cmake'), 'primes.js'), async () => {
        rmSync(app('cmake'), { recursive: true, force: true });
        await mustRun('emcmake', ['cmake', '-S', join(root, 'samples/plain-emcc'), '-B', app('cmake'),
          `-Dwasmtrace_DIR=${prefix}/lib/cmake/wasmtrace`, '-DCMAKE_BUILD_TYPE=Release']);
        await mustRun('cmake', ['--build', app('cmake')]);
      }),
    ]);
  });

  test('records the sample with its own config until its startup-done signal', async () => {
    const r = await wasmtrace('record', join(wasmBuildDir, 'samples/startup'), '--wait-for', 'window.sampleStartupComplete === true',
      '--out', join(out, 'sample'), ...PATIENT);
    assert.equal(r.status, 0, r.all);
    // The browser asked for is the one that ran.
    assert.match(r.stderr, inFirefox ? /wasmtrace record: browser: Mozilla Firefox \d+/ : /wasmtrace record: browser: Chromium \d+/);
    assert.match(r.stderr, /recording 'startup'; waiting for --wait-for/);
    assert.match(r.stdout, /session 'startup': stopped, chrome trace .*startup\.json\.gz/);
    assert.match(r.stdout, /\n {2}main +\d+ +\d+ +\S/);
    // samples, idle, then the marker columns (partial stack, waiting share).
    assert.match(r.stdout, /\n {2}asset-decoder-0 +\d+ +\d+ +(\d+%? +)*inflate_block/);
    assert.match(r.stdout, /top self functions, all threads/);
    assert.match(r.stdout, /wasmtrace report .*startup\.json\.gz --html/);
    const p = readProfile(readFileSync(join(out, 'sample/startup.json.gz')));
    assertRan(p, 'inflate_block', { thread: 'asset-decoder-1', minSamples: 20 });
    assertRan(p, 'tokenize', { thread: 'main', minSamples: 20 });
  });

  // Issue 25's command: the sample links the allocator shim.
  test('records the sample\'s heap, says so in the summary, and report --heap prints its sites', async () => {
    const config = '{"sessions":[{"name":"heap","durationMs":3000,"format":"firefox","heap":{"sampleBytes":4096}}]}';
    const r = await wasmtrace('record', join(wasmBuildDir, 'samples/startup'), '--config', config, '--out', join(out, 'heap'), ...PATIENT);
    assert.equal(r.status, 0, r.all);
    assert.match(r.stdout, /session 'heap': stopped, firefox trace .*heap\.json\.gz/);
    // (Live at stop depends on the toolchain: 3.1.6's pthread stacks stay allocated, 3.1.69's are gone.)
    assert.match(r.stdout, /\n {2}heap: [1-9]\d* sampled allocations \(every 4\.0 KiB on average\), ~[\d.]+ MiB live at the peak, ~[\d.]+ (B|KiB|MiB) at stop \(by site: wasmtrace report --heap\)/);
    const file = join(out, 'heap/heap.json.gz');
    const rep = await wasmtrace('report', file, '--heap');
    assert.equal(rep.status, 0, rep.all);
    // build_index's 4.8 MB of keys (600,000 x 8 B, freed when it returns) are live at the peak.
    assert.match(rep.stdout, /live at the peak: [\d.]+ MiB at [\d.]+ ms, by allocation site\n(.*\n)*\s+4\.58 MiB .*build_index {2}\[main\]/);
    assert.match(rep.stdout, /allocated in all: /);
  });

  test('records the plain-emcc app with a config from the command line, and report reads it', async () => {
    const r = await wasmtrace('record', app('app'), '--interval', '1ms', '--format', 'firefox', '--wait-for', 'window.appDone',
      '--out', join(out, 'plain'), ...PATIENT);
    assert.equal(r.status, 0, r.all);
    assert.match(r.stdout, /session 'startup': stopped, firefox trace/);
    const file = join(out, 'plain/startup.json.gz');
    const p = readProfile(readFileSync(file));
    assert.equal(p.format, 'firefox');
    assert.equal(p.intervalUs, 1000, 'the --interval preset reached the page');
    // Names from -finstrument-functions-after-inlining + --profiling-funcs,
    // on the right threads. After inlining, clang 14 and 19 fold the small
    // static helpers into their one caller (checksum_table into warm_up,
    // count_primes and mark_multiples into sieve_worker): what stays is
    // what the guide's default shows (GUIDE.md, "Instrumentation: after
    // inlining or every function").
    assertRan(p, 'warm_up', { thread: 'main', minSamples: 10 });
    assertRan(p, 'sieve_worker', { thread: 'sieve', minSamples: 10 });
    const rep = await wasmtrace('report', file);
    assert.equal(rep.status, 0, rep.all);
    assert.match(rep.stdout, /thread 'sieve'/);
    assert.match(rep.stdout, /by self time:\n.*\n.*(sieve_worker|count_primes|mark_multiples)/);
  });

  test('the same app built with find_package(wasmtrace) records too', async () => {
    const r = await wasmtrace('record', app('cmake'), '--startup', '10s', '--wait-for', 'window.appDone', '-q', '--out', join(out, 'cmake'), ...PATIENT);
    assert.equal(r.status, 0, r.all);
    const p = readProfile(readFileSync(join(out, 'cmake/startup.json.gz')));
    assertRan(p, 'sieve_worker', { thread: 'sieve', minSamples: 10 });
  });

  // Issue 40: the optimizing tier from the first call, stamped in the trace.
  test('--tier optimized records, says so, and every trace says how it was recorded', { skip: notDefaultTree }, async () => {
    const r = await wasmtrace('record', app('cmake'), '--startup', '10s', '--tier', 'optimized', '--wait-for', 'window.appDone',
      '--out', join(out, 'tier'), ...PATIENT);
    assert.equal(r.status, 0, r.all);
    assert.match(r.stderr, /wasmtrace record: browser: .*, wasm tier: optimized/);
    const p = readProfile(readFileSync(join(out, 'tier/startup.json.gz')));
    // Recorded (not how much of the app: with the optimizing tier only, each
    // worker compiles with TurboFan, so wasmtrace's own worker may start
    // sampling after the app's short sieve thread is done: seen on 6.0.5).
    assert.ok(p.threads.some((t) => t.name === 'main' && t.samples.length > 0), `threads: ${p.threads.map((t) => t.name)}`);
    const w = p.stats.recordedWith;
    assert.equal(w.tier, 'optimized');
    assert.equal(w.browser, inFirefox ? 'firefox' : 'chromium');
    assert.match(w.version, inFirefox ? /Firefox \d+/ : /Chromium \d+/);
    if (inFirefox) assert.deepEqual(w.prefs, { 'javascript.options.wasm_baselinejit': false, 'javascript.options.wasm_optimizingjit': true });
    else assert.deepEqual(w.args, ['--js-flags=--no-liftoff']);
  });

  // What reaches the browser's command line: Chromium lists it on chrome://version.
  test('the optimized tier\'s V8 flag and a user\'s own V8 flags reach Chromium as one --js-flags', { skip: (inFirefox && 'Chromium switch') || notDefaultTree }, async () => {
    const { launch } = await import('../../lib/browser.mjs');
    const { mergeJsFlags, tierOptions } = await import('../../lib/tier.mjs');
    const b = await launch({ args: mergeJsFlags([...tierOptions('optimized', 'chromium').args, '--js-flags=--stack-size=900']) });
    try {
      const page = await b.newPage();
      await page.goto('chrome://version');
      const text = await page.evaluate(() => document.body.innerText);
      assert.match(text, /--js-flags="?--no-liftoff --stack-size=900/);
    } finally {
      await b.close();
    }
  });

  // Chromium only: its --user-agent is a command-line switch the page can
  // see; Firefox takes a user agent from a pref, not an argument.
  test('--browser-arg reaches the browser: the page sees the user agent it sets', { skip: (inFirefox && 'Chromium switch') || notDefaultTree }, async () => {
    const ua = 'wasmtrace-browser-arg-test';
    const r = await wasmtrace('record', app('cmake'), '--startup', '10s', `--browser-arg=--user-agent=${ua}`,
      '--wait-for', `window.appDone && navigator.userAgent === '${ua}'`, '-q', '--out', join(out, 'browser-arg'), ...PATIENT);
    assert.equal(r.status, 0, r.all);
    assertRan(readProfile(readFileSync(join(out, 'browser-arg/startup.json.gz'))), 'sieve_worker', { thread: 'sieve', minSamples: 10 });
  });

  test('a session that fails: exit 1, its error and what to do, while the other session records', async () => {
    const config = JSON.stringify({ sessions: [
      { name: 'bad', sampling: { intervalUs: 5 } },
      { name: 'good', output: '/traces/good.json.gz' },
      // Failing on an unknown key, it keeps its name (issue 23: it was 'startup-2').
      { name: 'mine', durationMs: 2000, bogus: 1 },
    ] });
    const r = await wasmtrace('record', join(wasmBuildDir, 'samples/startup'), '--config', config,
      '--wait-for', 'window.sampleStartupComplete === true', '--out', join(out, 'failed-session'), ...PATIENT);
    assert.equal(r.status, 1, r.all);
    assert.match(r.stderr, /session 'bad' failed: sessions\[0\]\.sampling\.intervalUs: expected an integer from 50 to 1000000, got 5/);
    assert.match(r.stdout, /session 'bad': FAILED: sessions\[0\]\.sampling\.intervalUs/);
    assert.match(r.stdout, /what to do: fix the config \(see config\/wasmtrace\.schema\.json\)/);
    assert.match(r.stdout, /session 'mine': FAILED: sessions\[2\]\.bogus: unknown key/);
    assert.doesNotMatch(r.all, /startup-2/);
    assert.match(r.stdout, /session 'good': stopped, chrome trace .*good\.json\.gz/);
    assertRan(readProfile(readFileSync(join(out, 'failed-session/good.json.gz'))), 'inflate_block', { thread: 'asset-decoder-0' });
  });

  // The failure cases mostly wait (for timeouts), so they run at once.
  describe('failures: non-zero exit and what to do', () => {
    let server;
    const results = {};

    before(async () => {
      // The sample, served WITHOUT the isolation headers.
      server = createServer((req, res) => {
        const file = join(wasmBuildDir, 'samples/startup', new URL(req.url, 'http://x').pathname);
        if (!existsSync(file)) {
          res.writeHead(404);
          res.end();
          return;
        }
        res.writeHead(200, { 'Content-Type': file.endsWith('.js') ? 'text/javascript' : file.endsWith('.wasm') ? 'application/wasm' : 'text/html' });
        res.end(readFileSync(file));
      });
      await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
      const pages = join(work, `pages${browserSuffix}`);
      mkdirSync(join(pages, 'empty'), { recursive: true });
      mkdirSync(join(pages, 'unlinked'), { recursive: true });
      writeFileSync(join(pages, 'empty/index.html'), '<!doctype html><p>no app here</p>');
      writeFileSync(join(pages, 'unlinked/index.html'), '<!doctype html><script>var Module = { print: console.log };</script>');
      const x = join(out, 'failures');
      // The cases that wait for a page that loads something (the apps, the
      // non-isolated sample) get 60 s, so that a loaded machine (seven
      // browsers start at once here) cannot make a slow page look like a
      // different failure. The two pages that never get a wasmtrace module
      // (static HTML, no wasm) wait the full --load-timeout whatever the
      // machine does: 20 s, not 60 (40 s of every pass; npm test runs four).
      const runs = {
        strict: ['record', app('strict'), '--startup', '2s', '--out', x],
        pool1: ['record', app('pool1'), '--startup', '2s', '--load-timeout', '60s', '--out', x],
        noConfig: ['record', app('app'), '--load-timeout', '60s', '--out', x],
        pool0: ['record', app('pool0'), '--startup', '2s', '--load-timeout', '30s', '--out', x],
        notIsolated: ['record', `http://127.0.0.1:${server.address().port}/index.html`, '--load-timeout', '60s', '--out', x],
        empty: ['record', join(pages, 'empty'), '--load-timeout', '20s', '--out', x],
        unlinked: ['record', join(pages, 'unlinked'), '--load-timeout', '20s', '--out', x],
      };
      // Off the default tree only the pool cases run (the app's pthread pool
      // is the toolchain's); the rest are the browser's and the CLI's.
      if (notDefaultTree) for (const k of ['noConfig', 'notIsolated', 'empty', 'unlinked']) delete runs[k];
      await Promise.all(Object.entries(runs).map(async ([k, args]) => { results[k] = await wasmtrace(...args); }));
    });
    after(() => server?.close());

    // (Issue 12: wasmtrace brings its own pool worker when a config is
    // present before main(); these two used to fail and to deadlock.)
    test('no pool slot at all, strict: wasmtrace brings its own worker and records', () => {
      const r = results.strict;
      assert.equal(r.status, 0, r.all);
      assert.match(r.stdout, /session 'startup': stopped, chrome trace/);
    });

    test('a pool of exactly the app\'s threads: the app keeps it, no deadlock, and its thread is recorded', () => {
      const r = results.pool1;
      assert.equal(r.status, 0, r.all);
      assert.match(r.stdout, /session 'startup': stopped, chrome trace/);
      assert.match(r.stdout, /\n {2}sieve +\d+ +\d+ +\d+ +\S/);
    });

    test('no pool worker for the app\'s thread (-sPTHREAD_POOL_SIZE=0): names the cause and the pool size to set', () => {
      const r = results.pool0;
      assert.equal(r.status, 1, r.all);
      assert.match(r.stderr, /the page.s main thread is blocked: main\(\) waits for a pthread that cannot start \(no free worker in the pthread pool\)/);
      // primes starts 1 thread: 1 + 1 for wasmtrace.
      assert.match(r.stderr, /link the app with -sPTHREAD_POOL_SIZE=2 /);
    });

    test('a page that sets no config and gets none: no sessions, and how to give one', { skip: notDefaultTree }, () => {
      const r = results.noConfig;
      assert.equal(r.status, 1, r.all);
      assert.match(r.stderr, /no wasmtrace sessions: give a config \(--startup 5s/);
    });

    test('not cross-origin isolated: says which headers to send', { skip: notDefaultTree }, () => {
      const r = results.notIsolated;
      assert.equal(r.status, 1, r.all);
      assert.match(r.stderr, /is not cross-origin isolated/);
      assert.match(r.stderr, /Cross-Origin-Opener-Policy: same-origin/);
      assert.match(r.stderr, /Cross-Origin-Embedder-Policy: require-corp/);
    });

    test('no module ever loads: says so after --load-timeout', { skip: notDefaultTree }, () => {
      const r = results.empty;
      assert.equal(r.status, 1, r.all);
      assert.match(r.stderr, /no Module object \(globalThis\.Module\) appeared in 20 s/);
    });

    test('a module not linked with wasmtrace: says how to link it', { skip: notDefaultTree }, () => {
      const r = results.unlinked;
      assert.equal(r.status, 1, r.all);
      assert.match(r.stderr, /Module\.wasmtrace never appeared in 20 s: the app is not linked with wasmtrace/);
    });
  });
});
