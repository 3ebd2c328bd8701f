#!/usr/bin/env bash
# Builds the plain-emcc sample with emcc alone, against an installed wasmtrace,
# using exactly the flags docs/GUIDE.md documents ("Plain emcc"). Used by tests/browser/cli.test.mjs.
#
#   build.sh PREFIX OUT_DIR [extra emcc link flags...]
#
# PREFIX is where `cmake --install build/wasm --prefix PREFIX` put wasmtrace.
# Extra flags come last, so they override the defaults (the tests build a
# variant with -sPTHREAD_POOL_SIZE=0 -sPTHREAD_POOL_SIZE_STRICT=2 to check
# what `wasmtrace record` says when the worker gets no pool slot).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PREFIX OUT_DIR [extra emcc link flags...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "$1" && pwd)
out=$2
shift 2
mkdir -p "$out"
# emcc 3.1.6 (Debian) finds its node modules (acorn) only through NODE_PATH.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# Compile: -pthread for every object of a pthread build; the header path;
# -finstrument-functions-after-inlining puts the functions of this file that
# survive inlining on the shadow stack (WT_INSTRUMENT=-finstrument-functions:
# every function, at a higher cost).
emcc -O2 -pthread -I"$prefix/include" "${WT_INSTRUMENT:--finstrument-functions-after-inlining}" \
  -c "$here/primes.c" -o "$out/primes.o"

# Link: the three static libraries, the JS shim, and what the shim needs;
# the two --wrap flags let wasmtrace see every pthread from its start and
# mark samples of a thread blocked in a wait; the --undefined flags take
# the hooks before LTO for instrumented code (docs/GUIDE.md).
#   -sPTHREAD_POOL_SIZE=2: 1 app thread + 1 for the wasmtrace worker.
#   --profiling-funcs: keep function names (the wasm name section).
emcc -O2 "$out/primes.o" -o "$out/primes.js" \
  -pthread \
  "$prefix/lib/libwasmtrace.a" "$prefix/lib/libwasmtrace_cjson.a" "$prefix/lib/libwasmtrace_zlib.a" \
  --js-library "$prefix/share/wasmtrace/js/wasmtrace_library.js" \
  --pre-js "$prefix/share/wasmtrace/js/wasmtrace_pre.js" \
  --pre-js "$prefix/share/wasmtrace/js/wasmtrace_startup.js" \
  --post-js "$prefix/share/wasmtrace/js/wasmtrace_post.js" \
  -Wl,--undefined=wt_js_startup_count \
  -Wl,--wrap=pthread_create -Wl,--wrap=emscripten_futex_wait \
  -Wl,--undefined=__cyg_profile_func_enter,--undefined=__cyg_profile_func_exit,--undefined=emscripten_return_address \
  -sFORCE_FILESYSTEM=1 \
  -sEXPORTED_RUNTIME_METHODS=FS,UTF8ToString,stringToUTF8,lengthBytesUTF8 \
  -sPTHREAD_POOL_SIZE=2 \
  -sINITIAL_MEMORY=64MB \
  --profiling-funcs \
  "$@"
cp "$here/index.html" "$out/index.html"
