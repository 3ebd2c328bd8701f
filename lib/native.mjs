// The native library from an installed package: `wasmtrace deps` fetches
// the cJSON and zlib sources it compiles with, `wasmtrace flags --build`
// builds and installs it once per emcc version with the user's own emcc
// (no prebuilt .a tied to one LLVM), and `wasmtrace flags --cflags /
// --ldflags` prints the plain-emcc flags from the pkg-config files that
// install wrote (cmake/wasmtrace.pc.in: CMake is the one source of them).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export class NativeError extends Error {}

/** The package's (or the checkout's) root: where CMakeLists.txt is. */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const VERSION = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version;

function cacheHome(env) {
  return env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
}

/** Where `wasmtrace deps` puts the sources (CMakeLists.txt looks there too). */
export function depsDir(env = process.env) {
  return env.WASMTRACE_DEPS_DIR || join(cacheHome(env), 'wasmtrace', 'deps');
}

// emcc 3.1.6 from Debian finds its node modules (acorn) only through NODE_PATH.
function toolEnv(env) {
  if (env.NODE_PATH || !existsSync('/usr/share/nodejs')) return env;
  return { ...env, NODE_PATH: '/usr/share/nodejs' };
}

/** The version of the emcc on PATH ('3.1.6'), or a NativeError saying there is none. */
export function emccVersion(env = process.env) {
  const r = spawnSync('emcc', ['--version'], { env: toolEnv(env), encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new NativeError(`no working emcc on PATH (${r.error ? r.error.code ?? r.error.message : (r.stderr || '').trim().split('\n').pop()}): activate your Emscripten first (emsdk_env.sh)`);
  }
  const m = /(\d+\.\d+\.\d+)/.exec(r.stdout);
  if (!m) throw new NativeError(`cannot read emcc's version from '${r.stdout.split('\n')[0]}'`);
  return m[1];
}

/**
 * What the package says of emcc `version` (cmake/emscripten-versions.txt,
 * which CMakeLists.txt reads too): a line when it is older than the oldest
 * supported or of a newer major than the newest tested, else null.
 */
export function emccVersionNote(version) {
  let oldest = null, tested = [];
  try {
    for (const line of readFileSync(join(packageRoot, 'cmake', 'emscripten-versions.txt'), 'utf8').split('\n')) {
      const m = /^(oldest|tested) (.+)$/.exec(line.trim());
      if (m && m[1] === 'oldest') oldest = m[2];
      else if (m) tested = m[2].split(/\s+/);
    }
  } catch {
    return null;
  }
  const parts = (v) => v.split('.').map(Number);
  const less = (a, b) => { const x = parts(a), y = parts(b); for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i]; return false; };
  const newest = tested.at(-1);
  if (oldest && less(version, oldest)) {
    return `emcc ${version} is older than ${oldest}, the oldest wasmtrace supports (tested: ${tested.join(', ')}); the build may fail or the traces lack parts`;
  }
  if (newest && parts(version)[0] > parts(newest)[0]) {
    return `emcc ${version} is newer than the newest major wasmtrace is tested on (${parts(newest)[0]}.x; tested: ${tested.join(', ')}); it may work: check it with scripts/test.sh toolchain (docs/GUIDE.md, "Emscripten versions")`;
  }
  return null;
}

/** Where the library built with emcc `version` is installed. */
export function libraryPrefix(version, env = process.env) {
  return join(env.WASMTRACE_CACHE || join(cacheHome(env), 'wasmtrace'), `lib-${VERSION}-emcc-${version}`);
}

// Each source package: the prefix of its unpacked directory and a file in it.
const SOURCES = { cjson: ['cjson-', 'cJSON.c'], zlib: ['zlib-', 'deflate.c'] };

/** The unpacked directory of package pkg under dir, or undefined. */
function findOne(dir, pkg) {
  const [prefix, marker] = SOURCES[pkg];
  const n = existsSync(dir) ? readdirSync(dir).find((x) => x.startsWith(prefix) && existsSync(join(dir, x, marker))) : undefined;
  return n && join(dir, n);
}

function findSources(dir) {
  const cjson = findOne(dir, 'cjson');
  const zlib = findOne(dir, 'zlib');
  return cjson && zlib ? { cjson, zlib } : null;
}

/** The Debian or Ubuntu release's codename (bookworm), or '' when unknown. */
function releaseCodename() {
  try {
    const m = /^VERSION_CODENAME=["']?([a-z0-9-]+)/m.exec(readFileSync('/etc/os-release', 'utf8'));
    return m ? m[1] : '';
  } catch {
    return '';
  }
}

/**
 * The cJSON and zlib sources: those already present, else fetched with
 * `apt-get source` (Debian, Ubuntu) into depsDir. progress(line) is told
 * what happens. Throws NativeError saying what to do where it cannot.
 */
export function ensureDeps({ env = process.env, progress = () => {} } = {}) {
  if (env.WASMTRACE_CJSON_DIR && env.WASMTRACE_ZLIB_DIR) {
    // Trusted only when they hold the sources (cJSON.c, deflate.c).
    for (const [name, marker] of [['WASMTRACE_CJSON_DIR', 'cJSON.c'], ['WASMTRACE_ZLIB_DIR', 'deflate.c']]) {
      if (!existsSync(join(env[name], marker))) throw new NativeError(`${name}=${env[name]} has no ${marker}: point it at the unpacked sources`);
    }
    return { cjson: env.WASMTRACE_CJSON_DIR, zlib: env.WASMTRACE_ZLIB_DIR, fetched: false };
  }
  const dir = depsDir(env);
  const found = findSources(dir) ?? findSources(join(packageRoot, '.deps'));
  if (found) return { ...found, fetched: false };
  const manual = 'unpack cJSON 1.7.x and zlib 1.2.x sources and set WASMTRACE_CJSON_DIR and WASMTRACE_ZLIB_DIR';
  const apt = spawnSync('apt-get', ['--version'], { encoding: 'utf8' });
  if (apt.error) throw new NativeError(`the cJSON and zlib sources are not in ${dir}, and there is no apt-get to fetch them: ${manual}`);
  mkdirSync(dir, { recursive: true });
  progress(`fetching the cJSON and zlib sources into ${dir} (apt-get source cjson zlib)`);
  // One package at a time, newest first; a mirror may list a security update
  // whose source files it does not hold (seen: zlib's, 404), so then the
  // release's own version (pkg/<codename>), as scripts/setup.sh does.
  const codename = releaseCodename();
  let why = '';
  for (const pkg of Object.keys(SOURCES)) {
    for (const spec of [pkg, ...(codename ? [`${pkg}/${codename}`] : [])]) {
      if (findOne(dir, pkg)) break;
      // Bounded: a hung apt-get (a lock, a dead mirror) must not hang deps.
      const r = spawnSync('apt-get', ['source', '-qq', spec], { cwd: dir, encoding: 'utf8', timeout: 300000, killSignal: 'SIGKILL' });
      if (r.status === 0 && findOne(dir, pkg)) {
        if (spec !== pkg) progress(`${pkg}: the newest source is not on the mirror; took ${codename}'s`);
        break;
      }
      why = r.error?.code === 'ETIMEDOUT' ? 'no answer in 5 minutes' : (r.stderr || r.error?.message || '').trim().split('\n').filter(Boolean).pop() ?? '';
    }
  }
  const got = findSources(dir);
  if (!got) {
    throw new NativeError(`'apt-get source cjson zlib' failed${why ? ` (${why})` : ''}: enable source packages (a deb-src entry) or ${manual}`);
  }
  return { ...got, fetched: true };
}

function run(cmd, args, env, progress) {
  progress(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { env: toolEnv(env), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error || r.status !== 0) {
    const tail = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new NativeError(`${cmd} failed${r.error ? ` (${r.error.code ?? r.error.message})` : ` (exit status ${r.status})`}:\n${tail}`);
  }
}

/**
 * Builds and installs the library with the emcc on PATH into
 * libraryPrefix(emcc's version). Returns the prefix.
 */
export function buildLibrary({ env = process.env, progress = () => {}, cmakeArgs = [] } = {}) {
  const version = emccVersion(env);
  const deps = ensureDeps({ env, progress });
  const prefix = libraryPrefix(version, env);
  const build = join(prefix, 'build');
  progress(`building wasmtrace ${VERSION} with emcc ${version} into ${prefix}`);
  run('emcmake', ['cmake', '-S', packageRoot, '-B', build, '-DCMAKE_BUILD_TYPE=Release',
    `-DCMAKE_INSTALL_PREFIX=${prefix}`, '-DWASMTRACE_BUILD_SAMPLES=OFF', '-DWASMTRACE_BUILD_TESTS=OFF',
    '-DWASMTRACE_BUILD_BENCH=OFF', `-DWASMTRACE_CJSON_DIR=${deps.cjson}`, `-DWASMTRACE_ZLIB_DIR=${deps.zlib}`,
    ...cmakeArgs], env, progress);
  // As many jobs as the machine has cores (a bare --parallel is make's
  // unbounded -j: a dozen emcc links at once on a 2-core machine).
  run('cmake', ['--build', build, '--parallel', String(availableParallelism())], env, progress);
  run('cmake', ['--install', build], env, progress);
  return prefix;
}

/** Reads a .pc file: { vars, fields } with ${...} expanded (${pcfiledir} too). */
export function readPc(file) {
  const vars = { pcfiledir: dirname(file) };
  const fields = {};
  const expand = (s, depth = 0) => (depth > 20 ? s : s.replace(/\$\{([A-Za-z0-9_.]+)\}/g, (m, k) => (k in vars ? expand(vars[k], depth + 1) : m)));
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const field = /^([A-Za-z.]+):\s*(.*)$/.exec(line);
    const v = /^([A-Za-z0-9_.]+)=(.*)$/.exec(line);
    // Absolute paths tidied (prefix=${pcfiledir}/../.. leaves '..' in them).
    if (field) fields[field[1]] = expand(field[2]).replace(/\/[^\s,]*/g, (p) => normalize(p));
    else if (v) vars[v[1]] = expand(v[2]);
  }
  return { vars, fields };
}

/**
 * The plain-emcc flags of the library built for the emcc on PATH:
 * { prefix, version, cflags, ldflags } (strings). { heap } adds the
 * allocator shim, whose archive goes first; { formats } the firefox and
 * folded encoders (before wasmtrace's archive); { server } the diagnostic
 * server's page code (its --post-js, last). Throws NativeError saying how to
 * build it when it is not built.
 */
export function libraryFlags({ env = process.env, heap = false, server = false, formats = false } = {}) {
  const version = emccVersion(env);
  const prefix = libraryPrefix(version, env);
  const pc = join(prefix, 'lib', 'pkgconfig', 'wasmtrace.pc');
  if (!existsSync(pc)) {
    throw new NativeError(`the library is not built for emcc ${version} (no ${pc}): run 'npx wasmtrace flags --build' once (it builds it with your emcc in about a minute)`);
  }
  const main = readPc(pc).fields;
  const libs = [];
  if (heap) libs.push(readPc(join(dirname(pc), 'wasmtrace-heap.pc')).fields.Libs);
  if (formats) libs.push(readPc(join(dirname(pc), 'wasmtrace-formats.pc')).fields.Libs);
  libs.push(main.Libs);
  if (server) libs.push(readPc(join(dirname(pc), 'wasmtrace-server.pc')).fields.Libs);
  return { prefix, version, cflags: main.Cflags, ldflags: libs.join(' ') };
}
