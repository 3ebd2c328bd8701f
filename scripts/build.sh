#!/usr/bin/env bash
# Builds wasmtrace: `build.sh wasm`, `build.sh wasm-next`, `build.sh wasm-6`,
# `build.sh host`, `build.sh tsan`, or all five (default; WASMTRACE_SKIP_NEXT=1
# leaves out wasm-next, WASMTRACE_SKIP_6=1 wasm-6); `build.sh demo`: only what
# `npm run demo` runs (the library and samples/startup, in the wasm tree:
# its tests and benchmarks are npm test's and npm run bench's to build).
# wasm: the library, samples,
# test apps, benchmark programs (`all` leaves them out: npm test uses none)
# and the native unit tests as Node programs, with the emcc first
# on PATH, into $WASMTRACE_WASM_BUILD (default build/wasm); wasm-next: the
# same with the Emscripten that scripts/setup-emscripten.sh installs, into
# build/wasm-3.1.69; wasm-6: the same with Emscripten 6.x in the root that
# scripts/setup-emscripten6.sh makes, into build/wasm-6; host: the native unit tests under ASan+UBSan; tsan: the
# same tests under ThreadSanitizer. Incremental: re-running is fast when
# nothing changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
# emcc 3.1.6 (Debian) finds its node modules (acorn) only through NODE_PATH.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# One wasm tree: configure once (the tree remembers its emcc, so building
# it with another would silently keep the first one: refuse), then build.
build_wasm() {
  local dir=$1 log version
  shift
  local extra=("$@") # more -D options for the first configure
  log=$(dirname "$dir")/$(basename "$dir")
  version=$(emcc --version 2>/dev/null | sed -n 1p) || { echo "wasmtrace build: emcc not found" >&2; exit 1; }
  mkdir -p "$(dirname "$dir")"
  # (Trees configured before this check have no stamp: they get one.)
  if [ -f "$dir/CMakeCache.txt" ] && [ -f "$dir/.emcc-version" ] && [ "$(cat "$dir/.emcc-version")" != "$version" ]; then
    echo "wasmtrace build: $dir was configured with another emcc ($(cat "$dir/.emcc-version"));" \
      "the emcc on PATH is: $version. Build into another directory (WASMTRACE_WASM_BUILD=build/wasm-mine) or remove $dir." >&2
    exit 1
  fi
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >"$log-configure.log" 2>&1 || {
      cat "$log-configure.log"; exit 1; }
  fi
  [ -f "$dir/.emcc-version" ] || echo "$version" >"$dir/.emcc-version"
  local targets=()
  for t in ${WT_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
  if ! cmake --build "$dir" -j"$jobs" "${targets[@]}" >"$log-build.log" 2>&1; then cat "$log-build.log"; exit 1; fi
  grep -E 'warning|error' "$log-build.log" | grep -v 'Wpthreads-mem-growth' || true
  echo "wasmtrace build: wasm OK ($dir, $(emcc --version 2>/dev/null | sed -n '1s/.*) \([0-9][0-9.]*\).*/emcc \1/p'))"
}
# Emscripten 6.x's root, when `setup.sh --defer-6` left it to this build
# (npm test): made in the background (~3.5 min of downloads and unpacking)
# while the first trees build, waited for before its own tree.
six_setup_pid=
if [ "$what" = all ] && [ "${WASMTRACE_SKIP_6:-0}" != 1 ] && [ -f .deps/emscripten-6.deferred ]; then
  mkdir -p build
  echo "wasmtrace build: making Emscripten 6.x's root in the background (build/setup-emscripten6.log)"
  bash scripts/setup-emscripten6.sh --quiet >build/setup-emscripten6.log 2>&1 &
  six_setup_pid=$!
  # A failed build above stops the script that makes the root, so it never
  # marks the root ready (a running mmdebstrap may finish on its own); the
  # next npm test makes it again.
  trap '[ -z "$six_setup_pid" ] || kill "$six_setup_pid" 2>/dev/null || true' EXIT
fi
wait_six_setup() {
  [ -n "$six_setup_pid" ] || return 0
  local pid=$six_setup_pid
  six_setup_pid=
  if wait "$pid"; then
    rm -f .deps/emscripten-6.deferred
    echo "wasmtrace build: Emscripten 6.x's root is ready"
  else
    tail -30 build/setup-emscripten6.log
    echo "wasmtrace build: making Emscripten 6.x's root failed (build/setup-emscripten6.log; bash scripts/setup-emscripten6.sh retries)" >&2
    exit 1
  fi
}
if [ "$what" = wasm ]; then
  # The benchmark programs too (not in the tree's `all`: npm test uses none).
  WT_BUILD_TARGETS="all wasmtrace_bench" build_wasm "${WASMTRACE_WASM_BUILD:-build/wasm}"
elif [ "$what" = all ]; then
  build_wasm "${WASMTRACE_WASM_BUILD:-build/wasm}"
fi
if [ "$what" = demo ]; then
  # build.sh demo [SAMPLE]: samples/startup by default (scripts/demo.mjs passes its own).
  WT_BUILD_TARGETS=${2:-startup} build_wasm "${WASMTRACE_WASM_BUILD:-build/wasm}"
fi
# The other toolchains of the test matrix: NAME SETUP-SCRIPT TREE. Each is
# built with its own emcc first on PATH (in a subshell: the other trees keep
# the PATH's emcc).
other_toolchain() {
  local name=$1 script=$2 dir=$3 target=$4 env_line
  if env_line=$(bash "scripts/$script" --env 2>/dev/null); then
    # The tests use no benchmark program: the other toolchains' trees build
    # none (a fifth of their links). npm run bench measures build/wasm.
    (eval "$env_line" && build_wasm "$dir" -DWASMTRACE_BUILD_BENCH=OFF)
  elif [ "$what" = "$target" ]; then
    echo "wasmtrace build: Emscripten $name is not installed: run 'bash scripts/$script' first" >&2
    exit 1
  else
    echo "wasmtrace build: $target skipped: Emscripten $name is not installed (bash scripts/$script)"
  fi
}
if { [ "$what" = all ] && [ "${WASMTRACE_SKIP_NEXT:-0}" != 1 ]; } || [ "$what" = wasm-next ]; then
  other_toolchain 3.1.69 setup-emscripten.sh build/wasm-3.1.69 wasm-next
fi
if { [ "$what" = all ] && [ "${WASMTRACE_SKIP_6:-0}" != 1 ]; } || [ "$what" = wasm-6 ]; then
  wait_six_setup
  other_toolchain 6.x setup-emscripten6.sh build/wasm-6 wasm-6
fi
if [ "$what" = all ] || [ "$what" = host ]; then
  if [ ! -f build/host/CMakeCache.txt ]; then
    cmake -S . -B build/host -DCMAKE_BUILD_TYPE=Debug -DWASMTRACE_SANITIZE=address,undefined >/dev/null
  fi
  if ! cmake --build build/host -j"$jobs" >build/host-build.log 2>&1; then cat build/host-build.log; exit 1; fi
  grep -E 'warning|error' build/host-build.log || true
  echo "wasmtrace build: host OK (build/host)"
fi
if [ "$what" = all ] || [ "$what" = tsan ]; then
  # A third tree: TSan cannot be combined with ASan. No benchmarks here.
  if [ ! -f build/tsan/CMakeCache.txt ]; then
    cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=Debug -DWASMTRACE_SANITIZE=thread \
      -DWASMTRACE_BUILD_BENCH=OFF >/dev/null
  fi
  if ! cmake --build build/tsan -j"$jobs" >build/tsan-build.log 2>&1; then cat build/tsan-build.log; exit 1; fi
  grep -E 'warning|error' build/tsan-build.log || true
  echo "wasmtrace build: tsan OK (build/tsan)"
fi
