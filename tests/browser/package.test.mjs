// The package a user installs (issue 27), from a scratch project outside
// this repository that sees nothing of it but the tarball `npm pack` makes:
// install it with npm, fetch the cJSON and zlib sources with `npx wasmtrace
// deps`, build one small pthread app each of the three documented ways with
// the emcc on PATH, and `npx wasmtrace record` each in the browser under
// test:
//   - CMake: add_subdirectory(node_modules/wasmtrace) and the wasmtrace target;
//   - plain emcc: `npx wasmtrace flags --build`, then --cflags / --ldflags;
//   - the Emscripten port file (--use-port=.../wasmtrace.py, Emscripten >=
//     3.1.54: the 3.1.69 pass), with its options, and an unknown option
//     rejected by name.
// The test runs once per toolchain pass (3.1.6 and 3.1.69).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readProfile, functionTable } from '../../lib/profile.mjs';
import { recordArgs } from '../lib/test-browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(join(tmpdir(), 'wasmtrace-consumer-'));
const project = join(scratch, 'app');
const env = {
  ...process.env,
  NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs',
  PUPPETEER_SKIP_DOWNLOAD: '1',
  // Everything the package fetches or builds stays in the scratch directory.
  WASMTRACE_DEPS_DIR: join(scratch, 'deps'),
  WASMTRACE_CACHE: join(scratch, 'cache'),
};

function run(cmd, args, options = {}) {
  return new Promise((ok) => {
    execFile(cmd, args, { cwd: project, env, maxBuffer: 64 << 20, ...options }, (error, stdout, stderr) => {
      ok({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, all: `${stdout}\n${stderr}` });
    });
  });
}
async function mustRun(cmd, args, options) {
  const r = await run(cmd, args, options);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.all.slice(-4000)}`);
  return r;
}
const npx = (...args) => run('npx', ['--no-install', 'wasmtrace', ...args]);
// Whether an app's JS holds the diagnostic server's page code (opt-in).
const hasServerCode = (js) => readFileSync(js, 'utf8').includes('wasmtraceServerWorkerSource');

// The scratch app: two pthreads in a named hot function, main waiting.
const APP_C = `#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <wasmtrace/wasmtrace.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t consumer_crunch(uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 300000000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

static void *consumer_worker(void *arg) {
  WT_THREAD_NAME("crunch");
  sink += consumer_crunch((uint64_t)(uintptr_t)arg);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, consumer_worker, (void *)(uintptr_t)(i + 1));
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("consumer done %llu\\n", (unsigned long long)sink);
  return 0;
}
`;
const INDEX_HTML = `<!doctype html><meta charset="utf-8"><title>consumer</title>
<script>var Module = { postRun: [function () { window.appDone = true; }] };</script>
<script src="app.js"></script>
`;
// 2 app threads + 1 for the wasmtrace worker; function names kept.
const APP_LINK = ['-O2', '-sPTHREAD_POOL_SIZE=3', '-sINITIAL_MEMORY=64MB', '--profiling-funcs'];

// The typescript the repository checks its own types with (package.json).
const TS_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies.typescript;

let emccVersion = null;
const versionAtLeast = (v, min) => {
  const a = v.split('.').map(Number), b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
};

/** Records the app in `dir` with the installed CLI; returns the profile of its trace. */
async function recordApp(dir, name) {
  writeFileSync(join(dir, 'index.html'), INDEX_HTML);
  const r = await npx('record', dir, '--wait-for', 'window.appDone === true', '--startup', '20s',
    '--out', join(scratch, 'traces', name), '--load-timeout', '120s', '--timeout', '120s', ...recordArgs);
  assert.equal(r.status, 0, r.all);
  const file = join(scratch, 'traces', name, 'startup.json.gz');
  assert.ok(existsSync(file), `no trace at ${file}:\n${r.all}`);
  const rep = await npx('report', file, '--thread', 'crunch', '--top', '3');
  assert.equal(rep.status, 0, rep.all);
  assert.match(rep.stdout, /by self time:\n.*\n\s+[\d.]+\s+[\d.]+%.*consumer_crunch\n/);
  return readProfile(readFileSync(file));
}

/** The crunch threads ran consumer_crunch, by its name. */
function assertCrunched(profile) {
  const crunch = profile.threads.filter((t) => t.name === 'crunch');
  assert.equal(crunch.length, 2, `threads: ${profile.threads.map((t) => t.name).join(', ')}`);
  for (const t of crunch) {
    const top = functionTable(t)[0];
    assert.equal(top?.name, 'consumer_crunch', `crunch's top function: ${JSON.stringify(top)}`);
  }
}

describe('the npm package, installed into a project outside the repository', () => {
  before(async () => {
    const v = await run('emcc', ['--version'], { cwd: scratch });
    emccVersion = /(\d+\.\d+\.\d+)/.exec(v.stdout)?.[1] ?? null;
    assert.ok(emccVersion, `no emcc on PATH: ${v.all}`);
    mkdirSync(project, { recursive: true });
    const pack = await mustRun('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], { cwd: root });
    const tarball = join(scratch, pack.stdout.trim().split('\n').pop());
    assert.ok(existsSync(tarball), `npm pack wrote no ${tarball}`);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    await mustRun('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', '-D', tarball]);
    writeFileSync(join(project, 'app.c'), APP_C);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('the tarball holds the library\'s sources and tools, and nothing of the repository\'s tests', () => {
    const pkg = join(project, 'node_modules/wasmtrace');
    for (const f of ['bin/wasmtrace.mjs', 'lib/index.mjs', 'lib/index.d.ts', 'js/playwright.mjs', 'js/playwright.d.ts',
      'config/wasmtrace.schema.json', 'CMakeLists.txt', 'cmake/wasmtraceConfig.cmake.in', 'cmake/wasmtrace.pc.in',
      'native/include/wasmtrace/wasmtrace.h', 'native/src/worker.c', 'port/wasmtrace.py']) {
      assert.ok(existsSync(join(pkg, f)), `the package has no ${f}`);
    }
    for (const d of ['tests', 'samples', 'bench', 'docs', 'scripts', '.deps', 'build']) {
      assert.ok(!existsSync(join(pkg, d)), `the package ships ${d}/`);
    }
    assert.equal(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).private, undefined);
  });

  test('the CLI answers, and flags before the library is built says how to build it', async () => {
    const v = await npx('--version');
    assert.equal(v.status, 0, v.all);
    assert.equal(v.stdout.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const f = await npx('flags', '--cflags');
    assert.equal(f.status, 1, f.all);
    assert.match(f.stderr, new RegExp(`^wasmtrace flags: the library is not built for emcc ${emccVersion.replace(/\./g, '\\.')} .*run 'npx wasmtrace flags --build' once`));
  });

  test('the Node API, the Playwright helper, the schema and the types resolve from the installed package', async () => {
    const r = await run(process.execPath, ['--input-type=module', '-e', `
      const api = await import('wasmtrace');
      const pw = await import('wasmtrace/playwright');
      const { createRequire } = await import('node:module');
      const schema = createRequire(process.cwd() + '/').resolve('wasmtrace/schema.json');
      console.log(typeof api.readProfile, typeof api.toPprof, typeof pw.collectTraces, typeof pw.compare, schema.endsWith('wasmtrace.schema.json'));
    `]);
    assert.equal(r.status, 0, r.all);
    assert.equal(r.stdout.trim(), 'function function function function true');
    // A TypeScript user's strict build, with typescript from npm.
    await mustRun('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', '-D', `typescript@${TS_VERSION}`]);
    mkdirSync(join(project, 'ts'), { recursive: true });
    writeFileSync(join(project, 'ts/tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['check.ts'],
    }));
    writeFileSync(join(project, 'ts/check.ts'), `import { readProfile, functionTable, toPprof } from 'wasmtrace';
import { compare, assertRan, type CollectedTrace } from 'wasmtrace/playwright';
import type { WasmtraceModule, WasmtraceConfig } from 'wasmtrace';
declare const Module: WasmtraceModule;
const config: WasmtraceConfig = { sessions: [{ name: 'startup', heap: { sampleBytes: 4096 }, sampling: { intervalUs: 500 } }] };
export async function check(bytes: Uint8Array, runs: CollectedTrace[]): Promise<string> {
  Module.wasmtraceConfig = config;
  const blobs: Blob[] = await Promise.all(Module.wasmtrace.getStartupSessions().map(async (s) => (await s.stop()).getTraceBlob()));
  const p = readProfile(bytes);
  assertRan(p, 'main');
  const verdict: 'slower' | 'faster' | 'same' | 'undecided' = compare(runs, runs).verdict;
  return functionTable(p.threads[0]).map((r) => r.name).join() + toPprof(p).length + verdict + blobs.length;
}
`);
    const ok = await run('npx', ['--no-install', 'tsc', '-p', 'ts']);
    assert.equal(ok.status, 0, ok.all);
    // ...and it is checked: a misuse fails.
    writeFileSync(join(project, 'ts/check.ts'), `import { readProfile } from 'wasmtrace';\nexport const n: number = readProfile(new Uint8Array()).threads;\n`);
    const bad = await run('npx', ['--no-install', 'tsc', '-p', 'ts']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout, /check\.ts\(2,14\): error TS2322: Type 'ProfileThread\[\]' is not assignable to type 'number'/);
  });

  test('deps fetches the cJSON and zlib sources into the cache', async () => {
    const r = await npx('deps');
    assert.equal(r.status, 0, r.all);
    assert.match(r.stdout, new RegExp(`cJSON: ${env.WASMTRACE_DEPS_DIR}/cjson-[^/\\n]+\\nzlib: +${env.WASMTRACE_DEPS_DIR}/zlib-`));
  });

  test('CMake: add_subdirectory of the installed package; the app is recorded', async () => {
    const dir = join(project, 'cmake-app');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.16)
project(consumer C)
add_subdirectory(\${CMAKE_SOURCE_DIR}/../node_modules/wasmtrace wasmtrace)
add_executable(app ../app.c)
target_link_libraries(app PRIVATE wasmtrace)
wasmtrace_instrument(app)
wasmtrace_server(app)
target_link_options(app PRIVATE ${APP_LINK.join(' ')})
set_target_properties(app PROPERTIES SUFFIX ".js" RUNTIME_OUTPUT_DIRECTORY "\${CMAKE_BINARY_DIR}/site")
`);
    await mustRun('emcmake', ['cmake', '-S', dir, '-B', join(dir, 'build'), '-DCMAKE_BUILD_TYPE=Release']);
    // Both cores (make alone builds one file at a time: ~20 s of a pass).
    await mustRun('cmake', ['--build', join(dir, 'build'), '--parallel', String(availableParallelism())]);
    assert.ok(hasServerCode(join(dir, 'build/site/app.js')), 'wasmtrace_server(app) links the server page code');
    // wasmtrace_instrument, called from this project's scope, gives the
    // link the instrument part of the link contract (a -flto link fails
    // without it); it used to read a variable set only in wasmtrace's own.
    const link = readFileSync(join(dir, 'build/CMakeFiles/app.dir/link.txt'), 'utf8');
    assert.match(link, /--undefined=__cyg_profile_func_enter/, link);
    assertCrunched(await recordApp(join(dir, 'build/site'), 'cmake'));
  });

  test('plain emcc: flags --build, then --cflags and --ldflags; the app is recorded', async () => {
    const b = await npx('flags', '--build');
    assert.equal(b.status, 0, b.all);
    assert.match(b.stderr, new RegExp(`building wasmtrace .* with emcc ${emccVersion.replace(/\./g, '\\.')} into ${env.WASMTRACE_CACHE}/`));
    // As many jobs as cores, never make's unbounded -j.
    assert.match(b.stderr, new RegExp(`\\$ cmake --build \\S+ --parallel ${availableParallelism()}\\n`));
    const cflags = (await npx('flags', '--cflags')).stdout.trim();
    const ldflags = (await npx('flags', '--ldflags')).stdout.trim();
    assert.match(cflags, /^-pthread -I\/\S+\/include$/);
    assert.match(ldflags, /libwasmtrace\.a .*--js-library \S+wasmtrace_library\.js .*-Wl,--wrap=pthread_create/);
    // The diagnostic server's page code is opt-in.
    assert.doesNotMatch(ldflags, /wasmtrace_server\.js/);
    const withServer = (await npx('flags', '--ldflags', '--with-server')).stdout.trim();
    assert.equal(withServer.slice(0, ldflags.length), ldflags);
    assert.match(withServer.slice(ldflags.length), /^ --post-js \/\S+\/wasmtrace_server\.js$/);
    // So are the firefox and folded formats.
    assert.doesNotMatch(ldflags, /libwasmtrace_formats\.a/);
    const withFormats = (await npx('flags', '--ldflags', '--formats')).stdout.trim();
    assert.match(withFormats, /^\/\S+\/libwasmtrace_formats\.a -Wl,--undefined=wt_encoder_firefox,--undefined=wt_encoder_folded /);
    assert.equal(withFormats.slice(withFormats.length - ldflags.length), ldflags);
    // pkg-config reads the same file the same way (when it is installed).
    const pc = await run('pkg-config', ['--libs', 'wasmtrace'], { env: { ...env, PKG_CONFIG_PATH: join(cflags.split('-I')[1], '../lib/pkgconfig') } });
    if (pc.status === 0) assert.equal(pc.stdout.trim().replace(/\/lib\/pkgconfig\/\.\.\/\.\./g, ''), ldflags);
    const site = join(project, 'flags-app');
    mkdirSync(site, { recursive: true });
    const split = (s) => s.split(/\s+/).filter(Boolean);
    await mustRun('emcc', ['-O2', ...split(cflags), '-finstrument-functions-after-inlining', '-c', 'app.c', '-o', join(site, 'app.o')]);
    await mustRun('emcc', [join(site, 'app.o'), '-o', join(site, 'app.js'), ...split(ldflags), ...APP_LINK]);
    assert.ok(!hasServerCode(join(site, 'app.js')), 'the default flags leave the server page code out');
    assertCrunched(await recordApp(site, 'flags'));
  });

  test('the Emscripten port: --use-port with options; an unknown option is rejected by name', async (t) => {
    if (!versionAtLeast(emccVersion, '3.1.54')) {
      t.skip(`emcc ${emccVersion} has no external ports (--use-port=<file>.py: 3.1.54 and later)`);
      return;
    }
    const port = join(project, 'node_modules/wasmtrace/port/wasmtrace.py');
    const site = join(project, 'port-app');
    mkdirSync(site, { recursive: true });
    const use = `--use-port=${port}:instrument=after-inlining:heap=1:server=1:formats=1`;
    await mustRun('emcc', ['-O2', '-pthread', use, '-c', 'app.c', '-o', join(site, 'app.o')]);
    await mustRun('emcc', [join(site, 'app.o'), '-o', join(site, 'app.js'), '-pthread', use, ...APP_LINK]);
    assert.ok(hasServerCode(join(site, 'app.js')), 'server=1 links the server page code');
    const profile = await recordApp(site, 'port');
    // formats=1 linked the firefox encoder: a firefox-format recording.
    const ffDir = join(scratch, 'traces', 'port-firefox');
    const ff = await npx('record', site, '--wait-for', 'window.appDone === true', '--startup', '20s', '--format', 'firefox',
      '--out', ffDir, '--load-timeout', '120s', '--timeout', '120s', ...recordArgs);
    assert.equal(ff.status, 0, ff.all);
    const ffFile = readdirSync(ffDir).find((f) => f.endsWith('.gz'));
    assert.ok(ffFile, ff.all);
    assert.ok(JSON.parse(gunzipSync(readFileSync(join(ffDir, ffFile))).toString()).meta, 'a Firefox Profiler profile');
    assertCrunched(readProfile(readFileSync(join(ffDir, ffFile))));
    assertCrunched(profile);
    const bad = await run('emcc', [`--use-port=${port}:colour=blue`, '-c', 'app.c', '-o', join(site, 'bad.o')]);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /`colour` is not supported; available options are .*instrument.*heap/);
    const badValue = await run('emcc', [`--use-port=${port}:instrument=some`, '-c', 'app.c', '-o', join(site, 'bad.o')]);
    assert.notEqual(badValue.status, 0);
    assert.match(badValue.stderr, /instrument=some: expected one of none, after-inlining, full/);
    assert.ok(!readdirSync(site).includes('bad.o'));
  });
});
