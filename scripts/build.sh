#!/usr/bin/env bash
# Builds wasmtrace: `build.sh wasm`, `build.sh host`, `build.sh tsan`, or all
# three (default). wasm: the library, samples and test apps, and the native
# unit tests as Node programs; host: the native unit tests under ASan+UBSan;
# tsan: the same tests under ThreadSanitizer. Incremental: re-running is
# fast when nothing changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
# emcc 3.1.6 (Debian) finds its node modules (acorn) only through NODE_PATH.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

if [ "$what" = all ] || [ "$what" = wasm ]; then
  mkdir -p build
  if [ ! -f build/wasm/CMakeCache.txt ]; then
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >build/wasm-configure.log 2>&1 || {
      mkdir -p build; cat build/wasm-configure.log; exit 1; }
  fi
  if ! cmake --build build/wasm -j"$jobs" >build/wasm-build.log 2>&1; then cat build/wasm-build.log; exit 1; fi
  grep -E 'warning|error' build/wasm-build.log | grep -v 'Wpthreads-mem-growth' || true
  echo "wasmtrace build: wasm OK (build/wasm)"
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
