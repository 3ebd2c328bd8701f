# wasmtrace as an Emscripten external port (Emscripten >= 3.1.54):
#
#   emcc app.c -o app.js -pthread --use-port=node_modules/wasmtrace/port/wasmtrace.py
#   emcc ... --use-port=node_modules/wasmtrace/port/wasmtrace.py:instrument=after-inlining:heap=1:server=1:formats=1
#
# Give the same --use-port to every compile and to the link: compiles get the
# include path (and the instrumentation flag, if asked); the link builds the
# library once into Emscripten's cache with your emcc (LTO and all, as the
# system libraries) and adds the JS shim and the settings it needs, as the
# CMake target and the plain-emcc flags do (docs/GUIDE.md). Your app still
# chooses -sPTHREAD_POOL_SIZE (count one for the wasmtrace worker) and keeps
# the name section (--profiling-funcs).
#
# The cJSON and zlib sources the library compiles with come from
# WASMTRACE_CJSON_DIR / WASMTRACE_ZLIB_DIR, else the directory
# `npx wasmtrace deps` fetches them into ($WASMTRACE_DEPS_DIR, else
# ~/.cache/wasmtrace/deps).
#
# `--use-port=<path>/wasmtrace.py:help` lists the options.

import glob
import hashlib
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, 'package.json')) as f:
  VERSION = json.load(f)['version']


def _source_hash():
  # The cached libraries are named after the sources they were built from
  # and this file (their flags): a changed source (a new package, or a
  # checkout) builds them again.
  h = hashlib.sha256()
  for p in sorted(glob.glob(os.path.join(glob.escape(ROOT), 'native', '**', '*.[ch]'), recursive=True) +
                  [os.path.join(ROOT, 'native', 'src', 'hot-path.txt'), os.path.abspath(__file__)]):
    h.update(p[len(ROOT):].encode())
    with open(p, 'rb') as f:
      h.update(f.read())
  return h.hexdigest()[:10]


TAG = VERSION.replace('.', '_') + '-' + _source_hash()
DESCRIPTION = 'wasmtrace: in-page tracing and sampling profiler for Emscripten pthread apps'
URL = 'https://www.npmjs.com/package/wasmtrace'
LICENSE = 'MIT license'

OPTIONS = {
  'instrument': 'none (default), after-inlining (-finstrument-functions-after-inlining) or full '
                '(-finstrument-functions): put the functions of the sources compiled with this port on the shadow stack',
  'heap': '0 (default) or 1: link the allocator shim, for sessions with "heap" (sampled heap profiles)',
  'server': '0 (default) or 1: link the diagnostic server\'s page code (wasmtrace serve, suspend, streaming)',
  'formats': '0 (default) or 1: link the firefox and folded output formats (chrome is always there)',
}

INSTRUMENT = {
  'none': [],
  'after-inlining': ['-finstrument-functions-after-inlining'],
  'full': ['-finstrument-functions'],
}

opts = {'instrument': 'none', 'heap': '0', 'server': '0', 'formats': '0'}

# What the library is made of (CMakeLists.txt's WT_SOURCES with the
# Emscripten platform layer); heap_shim.c is its own library.
NATIVE = os.path.join(ROOT, 'native')
# The firefox and folded encoders are an opt-in archive (formats=1), as in
# CMakeLists.txt.
FORMAT_SOURCES = ['encoder_firefox.c', 'encoder_folded.c']
SOURCES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(glob.escape(NATIVE), 'src', '*.c'))
                 if os.path.basename(p) not in ['platform_host.c', 'heap_shim.c', 'heap_grow.c'] + FORMAT_SOURCES)
ZLIB_SOURCES = ['adler32.c', 'crc32.c', 'deflate.c', 'trees.c', 'zutil.c']
# The per-call, per-tick and per-byte sources, built at -O2 into a second
# archive; the rest at -Os (native/src/hot-path.txt says why).
with open(os.path.join(NATIVE, 'src', 'hot-path.txt')) as f:
  HOT = [l.strip() for l in f if l.strip() and not l.startswith('#')]
# The link contract (cmake/link-contract.txt: the flags, written once, with
# why of each): {part: [(kind, value)]}. The port builds its own archives,
# so it takes the contract's flags, JS files and settings.
CONTRACT = {}
with open(os.path.join(ROOT, 'cmake', 'link-contract.txt')) as f:
  for line in f:
    if line.strip() and not line.startswith('#'):
      part, kind, value = line.split(' ', 3)[:3]
      CONTRACT.setdefault(part, []).append((kind, value.strip()))


def _contract(part, *kinds):
  return [value for kind, value in CONTRACT.get(part, []) if kind in kinds]


def _wasm_ld(flags):
  """-Wl,a,b flags as the separate flags a port hands to wasm-ld."""
  return [f for flag in flags for f in flag[len('-Wl,'):].split(',')]


# A package path may hold glob characters ('[', '*'): paths are escaped
# before their patterns are added (an unescaped '[' matched no source and
# built an empty library).
def handle_options(options, error_handler):
  for name, value in options.items():
    if name == 'instrument' and value not in INSTRUMENT:
      error_handler(f'instrument={value}: expected one of {", ".join(INSTRUMENT)}')
      continue  # (the handler normally exits; if it returns, the value is not kept)
    if name in ('heap', 'server', 'formats') and value not in ('0', '1'):
      error_handler(f'{name}={value}: expected 0 or 1')
      continue
    opts[name] = value


def _deps_dir():
  if os.environ.get('WASMTRACE_DEPS_DIR'):
    return os.environ['WASMTRACE_DEPS_DIR']
  cache = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
  return os.path.join(cache, 'wasmtrace', 'deps')


def _find(env, pattern, marker):
  if os.environ.get(env):
    return os.environ[env]
  for root in (_deps_dir(), os.path.join(ROOT, '.deps')):
    for d in sorted(glob.glob(os.path.join(glob.escape(root), pattern))):
      if os.path.isfile(os.path.join(d, marker)):
        return d
  return None


def _sources(shared):
  cjson = _find('WASMTRACE_CJSON_DIR', 'cjson-*', 'cJSON.c')
  zlib = _find('WASMTRACE_ZLIB_DIR', 'zlib-*', 'deflate.c')
  if not cjson or not zlib:
    shared.exit_with_error(
      f'wasmtrace port: the cJSON and zlib sources are not in {_deps_dir()}: run `npx wasmtrace deps` '
      '(Debian, Ubuntu: apt-get source), or set WASMTRACE_CJSON_DIR and WASMTRACE_ZLIB_DIR to unpacked sources')
  return cjson, zlib


def _server_js(ports):
  """js/wasmtrace_server.js with its Worker's source embedded (as CMakeLists.txt writes it)."""
  out_dir = os.path.join(ports.get_build_dir(), 'wasmtrace')
  os.makedirs(out_dir, exist_ok=True)
  out = os.path.join(out_dir, f'wasmtrace_server-{TAG}.js')
  with open(os.path.join(ROOT, 'js', 'wasmtrace_server_worker.js')) as f:
    worker = f.read()
  with open(os.path.join(ROOT, 'js', 'wasmtrace_server.js')) as f:
    server = f.read()
  text = ('// Generated by wasmtrace.py from js/wasmtrace_server_worker.js and js/wasmtrace_server.js.\n'
          'var wasmtraceServerWorkerSource = String.raw`' + worker + '`;\n' + server)
  if not os.path.exists(out) or open(out).read() != text:
    with open(out, 'w') as f:
      f.write(text)
  return out


def get(ports, settings, shared):
  cjson, zlib = _sources(shared)
  base = ['-pthread', '-O2', '-Wno-error']

  # cJSON and zlib at -Os, as CMakeLists.txt builds them (the download; zlib
  # loses 0-5 % of its throughput: bench/deflate.mjs).
  def create_cjson(final):
    ports.build_port(cjson, final, 'wasmtrace_cjson', srcs=['cJSON.c'], flags=base + ['-w', '-Os'])

  def create_zlib(final):
    ports.build_port(zlib, final, 'wasmtrace_zlib', srcs=ZLIB_SOURCES, flags=base + ['-w', '-Os', '-DHAVE_UNISTD_H', '-DDYNAMIC_CRC_TABLE'])

  def create_core(final):
    ports.build_port(os.path.join(NATIVE, 'src'), final, 'wasmtrace', srcs=[s for s in SOURCES if s not in HOT],
                     includes=[os.path.join(NATIVE, 'include'), cjson, zlib], flags=base + ['-Wall', '-Os'])

  def create_hot(final):
    ports.build_port(os.path.join(NATIVE, 'src'), final, 'wasmtrace_hot', srcs=[s for s in SOURCES if s in HOT],
                     includes=[os.path.join(NATIVE, 'include'), cjson, zlib], flags=base + ['-Wall'])

  def create_formats(final):
    ports.build_port(os.path.join(NATIVE, 'src'), final, 'wasmtrace_formats', srcs=FORMAT_SOURCES,
                     includes=[os.path.join(NATIVE, 'include'), cjson, zlib], flags=base + ['-Wall'])

  def create_heap(final):
    ports.build_port(os.path.join(NATIVE, 'src'), final, 'wasmtrace_heap', srcs=['heap_shim.c', 'heap_grow.c'],
                     includes=[os.path.join(NATIVE, 'include')], flags=base + ['-Wall'])

  libs = []
  if opts['heap'] == '1':
    libs.append(shared.cache.get_lib(f'libwasmtrace_heap-{TAG}.a', create_heap, what='port'))
  if opts['formats'] == '1':
    libs.append(shared.cache.get_lib(f'libwasmtrace_formats-{TAG}.a', create_formats, what='port'))
  libs.append(shared.cache.get_lib(f'libwasmtrace-{TAG}.a', create_core, what='port'))
  libs.append(shared.cache.get_lib(f'libwasmtrace_hot-{TAG}.a', create_hot, what='port'))
  libs.append(shared.cache.get_lib(f'libwasmtrace_cjson-{TAG}.a', create_cjson, what='port'))
  libs.append(shared.cache.get_lib(f'libwasmtrace_zlib-{TAG}.a', create_zlib, what='port'))
  # Linker flags go to wasm-ld beside the libraries (the contract says why
  # of each): pull in the code that starts sessions before main(); see every
  # pthread from its start and waits as waiting; take the hooks before LTO
  # for instrumented code; for the shim, wrap realloc, sbrk and
  # emscripten_resize_heap; for the formats, pull their objects out.
  parts = ['core'] + [p for p in ('instrument', 'heap', 'formats')
                      if opts[p] not in ('0', 'none')]
  flags = _wasm_ld([f for p in parts for f in _contract(p, 'ldflag', 'threads')])
  return libs + flags


def clear(ports, settings, shared):
  for name in ('wasmtrace_heap', 'wasmtrace_formats', 'wasmtrace', 'wasmtrace_hot', 'wasmtrace_cjson', 'wasmtrace_zlib'):
    shared.cache.erase_lib(f'lib{name}-{TAG}.a')


def linker_setup(ports, settings):
  js = os.path.join(ROOT, 'js')
  # The JS shim (the contract's files): C-callable imports, Module.wasmtrace,
  # and (server=1) the diagnostic server's page code, with its Worker inside.
  lists = {'js-library': settings.JS_LIBRARIES, 'pre-js': settings.PRE_JS_FILES, 'post-js': settings.POST_JS_FILES}
  for part in ['core'] + (['server'] if opts['server'] == '1' else []):
    for kind, value in CONTRACT[part]:
      if kind in lists:
        lists[kind].append(_server_js(ports) if value == 'wasmtrace_server.js' else os.path.join(js, value))
  # The settings the shim needs (it reads finished traces with FS.readFile,
  # and calls the runtime methods listed).
  for value in _contract('core', 'setting'):
    name, _, val = value.partition('=')
    if isinstance(getattr(settings, name), list):
      setattr(settings, name, getattr(settings, name) + val.split(','))
    else:
      setattr(settings, name, int(val))


def process_args(ports):
  return ['-I' + os.path.join(NATIVE, 'include')] + INSTRUMENT[opts['instrument']]


def show():
  return f'wasmtrace {VERSION} (--use-port=<path>/wasmtrace.py; {LICENSE})'
