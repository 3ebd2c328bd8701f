#!/usr/bin/env bash
# Runs every test: the native unit tests on the host (ASan+UBSan, then
# ThreadSanitizer) and as wasm under Node, the config fuzzer, then the
# end-to-end tests in headless Chromium. Assumes scripts/build.sh ran.
# Each native test has a generous ctest TIMEOUT (tests/native/CMakeLists.txt):
# a hang fails the run instead of blocking it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# How long each section took, for the budget of the whole run (printed
# only: nothing asserts a duration).
section_start=$SECONDS
took() {
  echo "-- took $((SECONDS - section_start)) s"
  section_start=$SECONDS
}
echo "== native unit tests (host, address+undefined sanitizers)"
ctest --test-dir build/host --output-on-failure
took
echo "== native unit tests (host, thread sanitizer)"
# Any TSan report fails its test (TSAN_OPTIONS set by the CMake test list).
ctest --test-dir build/tsan --output-on-failure
took
echo "== native unit tests (wasm, Node)"
ctest --test-dir build/wasm --output-on-failure
# Tests that cannot run as wasm say so (WT_TEST_HOST_ONLY): show why.
grep -h '^\[ SKIP \]' build/wasm/Testing/Temporary/LastTest.log || true
took
echo "== config parser fuzzing (libFuzzer, ${WASMTRACE_FUZZ_SECONDS:-10} s)"
cmake -S tests/fuzz -B build/fuzz -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/fuzz >build/fuzz-build.log 2>&1 || { cat build/fuzz-build.log; exit 1; }
mkdir -p build/fuzz/corpus
build/fuzz/fuzz_config -max_total_time="${WASMTRACE_FUZZ_SECONDS:-10}" -print_final_stats=1 \
  build/fuzz/corpus tests/fuzz/corpus >build/fuzz/last-run.log 2>&1 || { tail -40 build/fuzz/last-run.log; exit 1; }
grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units' build/fuzz/last-run.log
took
echo "== browser tests (headless Chromium)"
node --test --test-concurrency=1 tests/node/ tests/browser/
took
