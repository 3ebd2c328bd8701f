// What `npm pack` would publish: the CLI, the Node API, the Playwright
// helper, the JS shim with its types, the config schema, and the library's
// native sources with the CMake files, pkg-config templates and port file
// that build it with the user's emcc; nothing else (no tests, build trees,
// samples or docs), and every file a packaged module imports, and every
// native source, is packaged too. (tests/browser/package.test.mjs installs
// the tarball and builds with it.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
  cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'],
}))[0].files.map((f) => f.path).sort();

const REQUIRED = [
  'package.json',
  'README.md',
  'bin/wasmtrace.mjs',
  'lib/cli.mjs',
  'lib/commands/record.mjs',
  'lib/commands/common.mjs',
  'lib/index.mjs',
  'lib/index.d.ts',
  'lib/profile.mjs',
  'lib/names.mjs',
  'lib/report.mjs',
  'lib/flamegraph.js',
  'lib/serve.mjs',
  'lib/browser.mjs',
  'js/playwright.mjs',
  'js/playwright.d.ts',
  'js/trace-assertions.mjs',
  'js/trace-assertions.d.ts',
  'js/wasmtrace.d.ts',
  'js/wasmtrace_library.js',
  'js/wasmtrace_pre.js',
  'js/wasmtrace_startup.js',
  'js/wasmtrace_post.js',
  'js/wasmtrace_server.js',
  'js/wasmtrace_server_worker.js',
  'config/wasmtrace.schema.json',
  'lib/pprof.mjs',
  'lib/native.mjs',
  'CMakeLists.txt',
  'cmake/wasmtraceConfig.cmake.in',
  'cmake/wasmtrace.pc.in',
  'cmake/wasmtrace-heap.pc.in',
  'cmake/wasmtrace-server.pc.in',
  'cmake/wasmtrace-formats.pc.in',
  // The link contract, and the CMake helper that reads it (the installed config includes both).
  'cmake/link-contract.txt',
  'cmake/WasmtraceLink.cmake',
  'port/wasmtrace.py',
  'native/src/hot-path.txt',
  'native/include/wasmtrace/wasmtrace.h',
  'native/src/worker.c',
  'native/src/heap_shim.c',
  // The supported and tested Emscripten versions (CMakeLists.txt and `wasmtrace flags` read it).
  'cmake/emscripten-versions.txt',
];
const ALLOWED = new RegExp('^(package\\.json|README\\.md|LICENSE|bin/[\\w.-]+\\.mjs|lib/(commands/)?[\\w.-]+\\.(mjs|js|d\\.ts)|js/[\\w.-]+\\.(js|mjs|d\\.ts)' +
  '|config/wasmtrace\\.schema\\.json|CMakeLists\\.txt|cmake/[\\w.-]+\\.in|cmake/link-contract\\.txt|cmake/WasmtraceLink\\.cmake|port/wasmtrace\\.py|native/(src|include/wasmtrace)/[\\w.-]+\\.[ch]|native/src/hot-path\\.txt|cmake/emscripten-versions\\.txt)$');

test('npm pack contains everything a user needs', () => {
  for (const f of REQUIRED) assert.ok(packed.includes(f), `missing from the package: ${f}`);
});

test('npm pack contains nothing else', () => {
  const extra = packed.filter((f) => !ALLOWED.test(f));
  assert.deepEqual(extra, [], `not for users: ${extra.join(', ')}`);
});

test('every native source of the repository is packaged (the package builds the library)', () => {
  const sources = execFileSync('git', ['ls-files', 'native/src', 'native/include'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  assert.ok(sources.length > 40, `native sources: ${sources.length}`);
  for (const f of sources) assert.ok(packed.includes(f), `${f} is not packaged`);
});

test('bin, exports and types point at packaged files', () => {
  const targets = [pkg.bin.wasmtrace, pkg.types];
  for (const entry of Object.values(pkg.exports)) {
    if (typeof entry === 'string') targets.push(entry);
    else targets.push(...Object.values(entry));
  }
  for (const t of targets) assert.ok(packed.includes(normalize(t)), `${t} is not packaged`);
  assert.ok(pkg.exports['./playwright'], 'wasmtrace/playwright export');
  assert.match(readFileSync(join(root, pkg.bin.wasmtrace), 'utf8'), /^#!\/usr\/bin\/env node\n/);
});

test('every file a packaged module imports is packaged', () => {
  for (const f of packed.filter((p) => /\.(mjs|js|d\.ts)$/.test(p))) {
    const text = readFileSync(join(root, f), 'utf8');
    const refs = [...text.matchAll(/(?:from\s+|import\(\s*|new URL\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
    for (const ref of refs) {
      const target = normalize(join(dirname(f), ref));
      // Type imports name './x.js' for x.d.ts.
      const found = packed.includes(target) || packed.includes(target.replace(/\.js$/, '.d.ts'));
      assert.ok(found, `${f} imports ${ref}, which is not packaged`);
    }
  }
});

// A small reader of the engines ranges npm packages write (">=18",
// ">= 14", "^20.19.0 || >=23", "6.* || >= 10.*", "*"): does `version`
// satisfy `range`? Anything else is an error, so that a new form is seen.
function satisfies(version, range) {
  const v = version.split('.').map(Number);
  const cmp = (a, b) => { for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0); return 0; };
  const parse = (s) => s.replace(/\.?\*$/, '').split('.').filter(Boolean).map(Number);
  return range.split('||').some((alt) => {
    const parts = alt.trim().replace(/([<>]=?|\^)\s+/g, '$1').split(/\s+/).filter(Boolean);
    return parts.every((p) => {
      let m;
      if (p === '*' || p === 'x') return true;
      if ((m = /^(>=|>|<=|<)(\d+(?:\.\d+){0,2}(?:\.\*)?)$/.exec(p))) {
        const c = cmp(v, parse(m[2]));
        return { '>=': c >= 0, '>': c > 0, '<=': c <= 0, '<': c < 0 }[m[1]];
      }
      if ((m = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(p))) return v[0] === Number(m[1]) && cmp(v, m.slice(1).map(Number)) >= 0;
      if ((m = /^(\d+)\.\*$/.exec(p)) || (m = /^(\d+)$/.exec(p))) return v[0] === Number(m[1]);
      throw new Error(`engines range not understood: ${range}`);
    });
  });
}

test('engines reader: the forms the lockfile has', () => {
  assert.ok(satisfies('20.0.0', '>=18') && satisfies('20.0.0', '>= 14') && satisfies('20.0.0', '*'));
  assert.ok(!satisfies('20.0.0', '>=22.12.0') && !satisfies('20.0.0', '>= 24'));
  assert.ok(satisfies('20.19.0', '^20.19.0 || ^22.12.0 || >=23') && !satisfies('20.0.0', '^20.19.0 || ^22.12.0 || >=23'));
  assert.ok(satisfies('20.0.0', '6.* || 8.* || >= 10.*') && !satisfies('7.0.0', '6.* || 8.* || >= 10.*'));
  assert.ok(satisfies('20.0.0', '>=20.19.0 <22.0.0 || >=20') && !satisfies('21.0.0', '>=20.19.0 <21.0.0'));
});

// npm i of the package warned EBADENGINE once (puppeteer-core 25 asks for
// Node 22.12 while engines said 18): every package a user installs accepts
// the lowest Node that engines names.
test("engines is true: every runtime dependency in the lockfile accepts engines' lowest Node", () => {
  const lowest = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(pkg.engines?.node ?? '');
  assert.ok(lowest, `engines.node is ${pkg.engines?.node}: a ">=N" floor`);
  const floor = lowest[1].split('.').concat(['0', '0']).slice(0, 3).join('.');
  assert.ok(satisfies(process.versions.node, pkg.engines.node), `this Node (${process.versions.node}) is below engines`);
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const refusing = Object.entries(lock.packages).filter(([name, p]) => name && !p.dev && typeof p.engines?.node === 'string' &&
    !satisfies(floor, p.engines.node)).map(([name, p]) => `${name}@${p.version} (node ${p.engines.node})`);
  assert.deepEqual(refusing, [], `runtime dependencies that refuse Node ${floor}`);
});

test('the runtime dependencies the CLI needs are dependencies, not devDependencies', () => {
  assert.ok(pkg.dependencies?.['playwright-core'], 'playwright-core in dependencies (record in Chromium)');
  assert.ok(pkg.dependencies?.['puppeteer-core'], 'puppeteer-core in dependencies (record --browser firefox)');
  assert.ok(pkg.dependencies?.['pprof-format'], 'pprof-format in dependencies (convert --to pprof)');
  assert.equal(pkg.private, undefined, 'the package is publishable');
});
