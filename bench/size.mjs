// What wasmtrace adds to an app's download (issue 28): a minimal two-thread
// pthread app (bench/size/app.c) built at -O2 with the guide's plain-emcc
// flags and no name section, with wasmtrace and without, and the parts of
// the difference. Sizes are bytes as served gzip'd (level 9), in kB (1000
// bytes). Deterministic for one toolchain and source tree: no intervals.
//
//   size.added.gzip_kb            (app + wasmtrace) - app, .wasm + .js
//   size.added.wasm_gzip_kb       the .wasm's part
//   size.added.js_gzip_kb         the .js's part
//   size.app.gzip_kb              the app alone (the baseline)
// and per component (size.component.<name>.gzip_kb):
//   JS, from builds that differ in one part (whole files gzip'd):
//     js_fs_runtime   Emscripten's FS runtime and the exported runtime
//                     methods the shim needs (-sFORCE_FILESYSTEM=1 ...)
//     js_shim         wasmtrace_library.js, _pre.js, _post.js as emcc emits them
//   and the opt-in parts, not in the default flags and so not in size.added
//   (exact: differences of whole builds):
//     js_server       the diagnostic server's page code (wasmtrace_server.js
//                     with its Worker's source; wasmtrace-server.pc)
//     wasm_formats    the firefox and folded encoders (wasmtrace-formats.pc)
//   wasm, from the same app linked with a non-LTO build of the library and
//   a name section (only to name functions: code bytes do not change): each
//   function's body is attributed to the object file (llvm-nm) or library
//   that defines it, and each component's bodies are gzip'd together (an
//   estimate: gzip of parts does not add up to gzip of the whole; the
//   totals above are exact):
//     wasm_core, wasm_encoder_chrome, wasm_server (server.c, stream.c), wasm_heap
//     (heap.c), wasm_zlib, wasm_cjson, wasm_libc (functions of the C
//     runtime the app alone does not link: printf's float formatting...),
//     wasm_data (the data section's growth: strings, tables)
//
//   bash scripts/build.sh wasm && node bench/size.mjs
//   WT_SIZE_WRITE=0   print only: leave docs/ alone
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readPc } from '../lib/native.mjs';
import { figure, replaceSection, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const kb = (n) => n / 1000;

/** Installs build tree `tree` into `prefix`; returns its plain-emcc { cflags, libs } (the pkg-config file). */
function install(tree, prefix) {
  rmSync(prefix, { recursive: true, force: true });
  run('cmake', ['--install', tree, '--prefix', prefix]);
  const pc = readPc(join(prefix, 'lib/pkgconfig/wasmtrace.pc')).fields;
  return { cflags: pc.Cflags.split(/\s+/), libs: pc.Libs.split(/\s+/) };
}

/** A non-LTO build of the library only (for attributing functions to objects). */
function noLtoTree(work) {
  const tree = join(work, 'nolto');
  run('emcmake', ['cmake', '-S', root, '-B', tree, '-DCMAKE_BUILD_TYPE=Release', '-DWASMTRACE_LTO=OFF',
    '-DWASMTRACE_BUILD_SAMPLES=OFF', '-DWASMTRACE_BUILD_TESTS=OFF', '-DWASMTRACE_BUILD_BENCH=OFF']);
  run('cmake', ['--build', tree, '--parallel']);
  return tree;
}

function link(work, name, flags) {
  const out = join(work, name);
  mkdirSync(out, { recursive: true });
  run('emcc', ['-O2', '-pthread', join(root, 'bench/size/app.c'), '-o', join(out, 'app.js'), '-sINITIAL_MEMORY=64MB', ...flags]);
  const files = readdirSync(out);
  const size = (suffix) => files.filter((f) => f.endsWith(suffix)).reduce((a, f) => a + gz(readFileSync(join(out, f))), 0);
  // .js: the main script and, on toolchains that still write one, the .worker.js.
  return { dir: out, wasm: size('.wasm'), js: size('.js'), wasmBytes: readFileSync(join(out, 'app.wasm')) };
}

// ---- a small reader of the wasm sections we need -------------------------
function wasmFunctions(bytes) {
  let p = 8;
  const u = () => {
    let r = 0, s = 0, x;
    do { x = bytes[p++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80);
    return r;
  };
  const name = () => { const n = u(); const t = bytes.subarray(p, p + n).toString(); p += n; return t; };
  let imported = 0, data = Buffer.alloc(0);
  const bodies = [], names = new Map();
  while (p < bytes.length) {
    const id = bytes[p++];
    const len = u();
    const end = p + len;
    if (id === 2) { // imports: count the functions, which come first in the index space
      for (let i = 0, n = u(); i < n; i++) {
        name(); name();
        const kind = bytes[p++];
        if (kind === 0) { u(); imported++; } else if (kind === 1) { p++; const f = u(); u(); if (f & 1) u(); } else if (kind === 2) { const f = u(); u(); if (f & 1) u(); } else if (kind === 3) { p += 2; } else throw new Error(`import kind ${kind}`);
      }
    } else if (id === 10) {
      for (let i = 0, n = u(); i < n; i++) { const sz = u(); bodies.push(bytes.subarray(p, p + sz)); p += sz; }
    } else if (id === 11) {
      data = bytes.subarray(p, end);
    } else if (id === 0 && name() === 'name') {
      while (p < end) {
        const sub = bytes[p++];
        const sl = u();
        const se = p + sl;
        if (sub === 1) for (let i = 0, n = u(); i < n; i++) { const idx = u(); names.set(idx, name()); }
        p = se;
      }
    }
    p = end;
  }
  return { functions: bodies.map((body, i) => ({ name: names.get(i + imported) ?? `(function ${i + imported})`, body })), data };
}

/** name -> component, from the archives' object files. */
function componentsOf(prefix) {
  const byName = new Map();
  const objComponent = (lib, obj) => {
    if (lib === 'libwasmtrace_zlib.a') return 'wasm_zlib';
    if (lib === 'libwasmtrace_cjson.a') return 'wasm_cjson';
    const base = obj.replace(/\.c\.o$|\.o$/, '');
    if (/^encoder_(chrome|firefox|folded)$/.test(base)) return `wasm_${base}`;
    if (base === 'server' || base === 'stream') return 'wasm_server';
    if (base === 'heap') return 'wasm_heap';
    return 'wasm_core';
  };
  for (const lib of ['libwasmtrace.a', 'libwasmtrace_zlib.a', 'libwasmtrace_cjson.a']) {
    let obj = null;
    for (const line of run('llvm-nm', ['--defined-only', join(prefix, 'lib', lib)]).split('\n')) {
      const header = /^(\S+\.o):$/.exec(line);
      if (header) { obj = header[1]; continue; }
      const sym = /^[0-9a-f]+ [TtWw] (\S+)$/.exec(line.trim());
      if (sym && obj) byName.set(sym[1], objComponent(lib, obj));
    }
  }
  return byName;
}

export function sizeBench({ log = () => {} } = {}) {
  const work = join(root, 'build/size');
  mkdirSync(work, { recursive: true });
  const tree = process.env.WASMTRACE_WASM_BUILD ? resolve(root, process.env.WASMTRACE_WASM_BUILD) : join(root, 'build/wasm');
  const emcc = `emcc ${/(\d+\.\d+\.\d+)/.exec(run('emcc', ['--version']))?.[1] ?? '(unknown version)'}`;
  log(`size: ${emcc}; the library of ${tree}`);
  const lib = install(tree, join(work, 'prefix'));
  const optLibs = (name) => readPc(join(work, `prefix/lib/pkgconfig/${name}.pc`)).fields.Libs.split(/\s+/);
  const fsFlags = lib.libs.filter((f) => /^-s(FORCE_FILESYSTEM|EXPORTED_RUNTIME_METHODS)=/.test(f));
  const builds = {
    app: link(work, 'app', ['-sPTHREAD_POOL_SIZE=1']),
    fs: link(work, 'fs', ['-sPTHREAD_POOL_SIZE=1', ...fsFlags]),
    full: link(work, 'full', ['-sPTHREAD_POOL_SIZE=2', ...lib.cflags, ...lib.libs]),
    formats: link(work, 'formats', ['-sPTHREAD_POOL_SIZE=2', ...lib.cflags, ...optLibs('wasmtrace-formats'), ...lib.libs]),
    server: link(work, 'server', ['-sPTHREAD_POOL_SIZE=2', ...lib.cflags, ...lib.libs, ...optLibs('wasmtrace-server')]),
  };
  log('size: built the app with and without wasmtrace');
  // Attribution (non-LTO, named).
  const nolto = install(noLtoTree(work), join(work, 'prefix-nolto'));
  const named = link(work, 'named', ['-sPTHREAD_POOL_SIZE=2', '--profiling-funcs', ...nolto.cflags, ...nolto.libs]);
  const appNamed = link(work, 'app-named', ['-sPTHREAD_POOL_SIZE=1', '--profiling-funcs']);
  const ours = componentsOf(join(work, 'prefix-nolto'));
  const inApp = new Set(wasmFunctions(appNamed.wasmBytes).functions.map((f) => f.name));
  const w = wasmFunctions(named.wasmBytes);
  const parts = new Map();
  for (const f of w.functions) {
    const c = ours.get(f.name) ?? (inApp.has(f.name) ? null : 'wasm_libc');
    if (!c) continue;
    if (!parts.has(c)) parts.set(c, []);
    parts.get(c).push(f.body);
  }
  const component = {};
  for (const [c, bodies] of parts) component[c] = { raw: bodies.reduce((a, b) => a + b.length, 0), gz: gz(Buffer.concat(bodies)) };
  const appData = wasmFunctions(appNamed.wasmBytes).data;
  component.wasm_data = { raw: w.data.length - appData.length, gz: gz(w.data) - gz(appData) };
  component.js_fs_runtime = { gz: builds.fs.js - builds.app.js };
  component.js_shim = { gz: builds.full.js - builds.fs.js };
  component.js_server = { gz: builds.server.js - builds.full.js, optIn: true };
  component.wasm_formats = { gz: builds.formats.wasm + builds.formats.js - builds.full.wasm - builds.full.js, optIn: true };
  return { emcc, builds, component, nolto: { wasm: named.wasm } };
}

export function sizeFigures(res) {
  const { builds: b, component } = res;
  const one = (name, bytes, target = null) => ({ ...figure(name, 'kB', [kb(bytes)], { target }), ci95: null, n: 1 });
  const out = [
    one('size.added.gzip_kb', b.full.wasm + b.full.js - b.app.wasm - b.app.js, '<= 40'),
    one('size.added.wasm_gzip_kb', b.full.wasm - b.app.wasm),
    one('size.added.js_gzip_kb', b.full.js - b.app.js),
    one('size.app.gzip_kb', b.app.wasm + b.app.js),
  ];
  for (const [c, v] of Object.entries(component)) if (v.gz !== null) out.push(one(`size.component.${c}.gzip_kb`, v.gz));
  return out;
}

export function sizeSection(res, command) {
  const { builds: b, component } = res;
  const row = (what, x) => `| ${what} | ${kb(x.wasm).toFixed(1)} | ${kb(x.js).toFixed(1)} | ${kb(x.wasm + x.js).toFixed(1)} |`;
  const comp = Object.entries(component).sort((x, y) => (y[1].gz ?? 0) - (x[1].gz ?? 0))
    .map(([c, v]) => `| \`${c}\`${v.optIn ? ' (opt-in)' : ''} | ${v.raw !== undefined ? (v.raw / 1000).toFixed(1) : '–'} | ${v.gz !== null ? kb(v.gz).toFixed(1) : '–'} |`);
  return `## 14. Download size

\`${command}\`; ${res.emcc}. A two-thread app (bench/size/app.c) at -O2 with the guide's plain-emcc flags, no name
section; kB = 1000 bytes, gzip -9.

| build | .wasm gzip kB | .js gzip kB | total |
|---|---|---|---|
${row('the app alone', b.app)}
${row('+ FS runtime and exported methods only', b.fs)}
${row('+ wasmtrace (default flags)', b.full)}
${row('+ the firefox and folded formats (opt-in: wasmtrace_formats)', b.formats)}
${row('+ the diagnostic server page code (opt-in: wasmtrace_server)', b.server)}

Added by wasmtrace: **${kb(b.full.wasm + b.full.js - b.app.wasm - b.app.js).toFixed(1)} kB** gzip
(\`size.added.gzip_kb\`, target <= 40): .wasm ${kb(b.full.wasm - b.app.wasm).toFixed(1)}, .js ${kb(b.full.js - b.app.js).toFixed(1)}.
Of it, what the product contract (DESIGN.md) itself requires: the Emscripten FS runtime for the VFS output
${kb(component.js_fs_runtime.gz).toFixed(1)} (shared with an app that has one), zlib's deflate ${kb(component.wasm_zlib.gz).toFixed(1)} and cJSON's parser
${kb(component.wasm_cjson.gz).toFixed(1)}: ~${kb(component.js_fs_runtime.gz + component.wasm_zlib.gz + component.wasm_cjson.gz).toFixed(0)} kB before any of wasmtrace's own code.

By component (wasm: functions attributed to their object file in a non-LTO link, each component's bodies gzip'd
together, an estimate that does not show the -Os of the control path, which acts through LTO; js and the opt-in
parts: differences of whole builds, exact):

| component | raw kB | gzip kB |
|---|---|---|
${comp.join('\n')}
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const res = sizeBench({ log: (m) => console.log(m) });
  const text = sizeSection(res, 'node bench/size.mjs');
  console.log(text);
  if (process.env.WT_SIZE_WRITE !== '0') {
    writeFigures(sizeFigures(res));
    replaceSection('## 14. Download size', stampSections(text));
  }
}
