// The link contract (cmake/link-contract.txt) is the one place the flags an
// app's link needs are written: the CMake helper (run here by real CMake),
// the pkg-config fields it writes, the Emscripten port (run here by Python
// with Emscripten's port objects stood in for: the real port links in
// tests/browser/package.test.mjs), the guide's plain-emcc command and
// table, and the plain-emcc sample all say what it says, and nothing else
// in the tree writes those flags.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BEGIN, END, flagOf, guideBlock, readContract } from '../../scripts/link-table.mjs';

const root = new URL('../..', import.meta.url).pathname;
const read = (f) => readFileSync(join(root, f), 'utf8');
const items = readContract();
const of = (part, ...kinds) => items.filter((i) => i.part === part && (!kinds.length || kinds.includes(i.kind))).map((i) => i.value);
const tmp = mkdtempSync(join(tmpdir(), 'wt-contract-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('the contract reads, and a bad line is named', () => {
  assert.ok(of('core', 'threads').includes('-Wl,--wrap=pthread_create'));
  assert.ok(of('heap', 'archive').includes('wasmtrace_heap'));
  assert.deepEqual(of('server'), ['wasmtrace_server.js']);
  assert.throws(() => readContract('core ldflag -Wl,--a why; not\n'), /link-contract\.txt:1: cannot read/);
  assert.throws(() => readContract('# c\ncore wrongkind x\n'), /link-contract\.txt:2:/);
  assert.throws(() => readContract('everyone ldflag x\n'), /cannot read 'everyone ldflag x'/);
});

test("docs/GUIDE.md's plain-emcc command and table are the contract's (node scripts/link-table.mjs writes them)", () => {
  const guide = read('docs/GUIDE.md');
  const a = guide.indexOf(BEGIN), b = guide.indexOf(END);
  assert.ok(a > 0 && b > a, 'the markers');
  assert.equal(guide.slice(a + BEGIN.length + 1, b), `${guideBlock(items)}\n`, 'run node scripts/link-table.mjs');
  // Every flag of the contract but -pthread (compile and link: the text
  // before the block says so) has a row that says why.
  const table = guide.slice(guide.indexOf('| flag | why |', a), b);
  for (const it of items.filter((i) => i.value !== '-pthread')) assert.ok(table.includes(flagOf(it)), `${flagOf(it)}: no row in the table`);
});

test('samples/plain-emcc/build.sh links with exactly the contract\'s flags, in its order', () => {
  const sh = read('samples/plain-emcc/build.sh').replace(/\\\n/g, ' ');
  const link = sh.split('\n').find((l) => /^emcc -O2 "\$out\/primes\.o"/.test(l));
  assert.ok(link, 'the link command');
  const tokens = link.replace(/"\$prefix\/lib\//g, '$WT/lib/').replace(/"\$prefix\/share\/wasmtrace\/js\//g, '$WT/share/wasmtrace/js/')
    .replace(/"/g, '').split(/\s+/).filter(Boolean);
  const flags = tokens.filter((t, i) => /^(-|\$WT)/.test(t) && !['-O2', '-o'].includes(t) && tokens[i - 1] !== '-o');
  const want = items.filter((i) => ['core', 'instrument'].includes(i.part) && i.kind !== 'cflag')
    .flatMap((i) => flagOf(i).split(' '));
  const got = flags.filter((f) => !/^(-sPTHREAD_POOL_SIZE|-sINITIAL_MEMORY|--profiling-funcs|\$@)/.test(f));
  assert.deepEqual(got, want);
});

test('no file but the contract writes the link flags', () => {
  const flags = ['--wrap=pthread_create', '--wrap=emscripten_futex_wait', '--undefined=wt_js_startup_count', 'EXPORTED_RUNTIME_METHODS=FS',
    '--wrap=realloc', '--undefined=wt_encoder_firefox', '--undefined=__cyg_profile_func_enter'];
  for (const f of ['CMakeLists.txt', 'cmake/wasmtraceConfig.cmake.in', 'cmake/wasmtrace.pc.in', 'cmake/wasmtrace-heap.pc.in',
    'cmake/wasmtrace-formats.pc.in', 'cmake/wasmtrace-server.pc.in', 'port/wasmtrace.py']) {
    const code = read(f).split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    for (const flag of flags) assert.ok(!code.includes(flag), `${f} writes ${flag}: take it from cmake/link-contract.txt`);
  }
});

describe('CMake reads the contract (cmake/WasmtraceLink.cmake, run by cmake -P)', () => {
  const run = (body) => {
    const script = join(tmp, 'probe.cmake');
    writeFileSync(script, `include("${join(root, 'cmake/WasmtraceLink.cmake')}")\n${body}\n`);
    return execFileSync('cmake', ['-P', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const lines = (out) => out.split('\n').filter((l) => l.startsWith('-- ')).map((l) => l.slice(3));
  test('link options of each part, with the JS files under the given directory', () => {
    for (const part of ['core', 'instrument', 'formats', 'heap', 'server']) {
      const out = run(`wasmtrace_contract_link(${part} "/js dir" o d)\nforeach(x IN LISTS o)\nmessage(STATUS "$\{x}")\nendforeach()\nforeach(x IN LISTS d)\nmessage(STATUS "dep $\{x}")\nendforeach()`);
      const want = items.filter((i) => i.part === part).flatMap((i) => {
        if (i.kind === 'link' || i.kind === 'ldflag') return [i.value];
        if (i.kind === 'threads') return [`$<$<NOT:$<STREQUAL:$<TARGET_PROPERTY:WASMTRACE_THREADS>,OFF>>:${i.value}>`];
        if (i.kind === 'setting') return [`-s${i.value}`];
        if (/-js$|js-library/.test(i.kind)) return [`SHELL:--${i.kind} "/js dir/${i.value}"`];
        return [];
      });
      const deps = items.filter((i) => i.part === part && /-js$|js-library/.test(i.kind)).map((i) => `dep /js dir/${i.value}`);
      assert.deepEqual(lines(out), [...want, ...deps], part);
    }
  });
  test('pkg-config Libs and the compile flags', () => {
    for (const part of ['core', 'heap', 'formats', 'server']) {
      const [libs] = lines(run(`wasmtrace_contract_pc(${part} l)\nmessage(STATUS "$\{l}")`));
      const want = items.filter((i) => i.part === part && i.kind !== 'cflag')
        .map((i) => flagOf(i).replace('$WT/lib/', '${libdir}/').replace('$WT/share/wasmtrace/js/', '${jsdir}/'));
      assert.equal(libs, want.join(' '), part);
    }
    assert.deepEqual(lines(run('wasmtrace_contract_values(core cflag c)\nmessage(STATUS "$\{c}")')), of('core', 'cflag'));
  });
});

describe('the Emscripten port takes the contract (port/wasmtrace.py under Python, Emscripten\'s objects stood in for)', () => {
  // get() hands wasm-ld its flags after the libraries; linker_setup() adds
  // the JS files and settings. The cache and the settings are plain objects.
  const probe = (options) => {
    const py = `
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location('wasmtrace_port', ${JSON.stringify(join(root, 'port/wasmtrace.py'))})
port = importlib.util.module_from_spec(spec); spec.loader.exec_module(port)
port.handle_options(json.loads(sys.argv[1]), lambda m: sys.exit('bad option: ' + m))
class Cache:
  def get_lib(self, name, create, what=None): return 'LIB:' + name.split('-')[0]
class Shared:
  cache = Cache()
  def exit_with_error(self, m): sys.exit(m)
class Ports:
  def get_build_dir(self): return ${JSON.stringify(tmp)}
class Settings:
  JS_LIBRARIES = []; PRE_JS_FILES = []; POST_JS_FILES = []; EXPORTED_RUNTIME_METHODS = ['ccall']; FORCE_FILESYSTEM = 0
s = Settings()
got = port.get(Ports(), s, Shared())
port.linker_setup(Ports(), s)
print(json.dumps({'get': got, 'js': [os.path.basename(p) for p in s.JS_LIBRARIES + s.PRE_JS_FILES + s.POST_JS_FILES],
                  'methods': s.EXPORTED_RUNTIME_METHODS, 'fs': s.FORCE_FILESYSTEM}))`;
    const env = { ...process.env, WASMTRACE_CJSON_DIR: tmp, WASMTRACE_ZLIB_DIR: tmp };
    return JSON.parse(execFileSync('python3', ['-c', py, JSON.stringify(options)], { encoding: 'utf8', env }));
  };
  const wasmLd = (parts) => parts.flatMap((p) => of(p, 'ldflag', 'threads')).flatMap((f) => f.replace(/^-Wl,/, '').split(','));
  test('the default link: the core\'s flags, JS files and settings', () => {
    const r = probe({});
    assert.deepEqual(r.get.filter((f) => !f.startsWith('LIB:')), wasmLd(['core']));
    assert.deepEqual(r.js, ['wasmtrace_library.js', 'wasmtrace_pre.js', 'wasmtrace_startup.js', 'wasmtrace_post.js']);
    assert.deepEqual(r.methods, ['ccall', 'FS', 'UTF8ToString', 'stringToUTF8', 'lengthBytesUTF8']);
    assert.equal(r.fs, 1);
  });
  test('every option: instrument, heap, formats, server', () => {
    const r = probe({ instrument: 'full', heap: '1', formats: '1', server: '1' });
    assert.deepEqual(r.get.filter((f) => !f.startsWith('LIB:')), wasmLd(['core', 'instrument', 'heap', 'formats']));
    assert.deepEqual(r.get.filter((f) => f.startsWith('LIB:')).slice(0, 2), ['LIB:libwasmtrace_heap', 'LIB:libwasmtrace_formats'], 'the shim\'s archive first');
    assert.ok(r.js.at(-1).startsWith('wasmtrace_server-'), r.js.join());
  });
});
