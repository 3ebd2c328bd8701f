#!/usr/bin/env bash
# Runs every test: the native unit tests on the host (ASan+UBSan, then
# ThreadSanitizer) and as wasm under Node, the config and JSON escaper
# fuzzers, then the Node tests (the reader fuzzers among them) and the
# end-to-end tests in headless Chromium, and those about the product's
# behaviour in a page again in headless Firefox; then, on the second toolchain
# (Emscripten 3.1.69 from scripts/setup-emscripten.sh, build/wasm-3.1.69),
# the wasm unit tests and the browser tests that depend on the toolchain.
# Assumes scripts/build.sh ran.
#
#   bash scripts/test.sh             everything
#   bash scripts/test.sh firefox     only the browser tests that run in
#                                    headless Firefox
#   bash scripts/test.sh toolchain   only the toolchain-dependent tests, on
#                                    the tree $WASMTRACE_WASM_BUILD (default
#                                    build/wasm) with the emcc first on PATH:
#                                    how to check your own emsdk
#                                    (docs/GUIDE.md, "Emscripten versions")
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
# The tests whose outcome depends on the Emscripten version: the startup
# session, names and sampling fidelity, every output format and the readers
# that open it, `wasmtrace record` (which also builds apps with emcc), and
# the pthread pool (limits: wasmtrace adds a pool worker through internals),
# the JS API under faults (shim: it reads Emscripten's abort and exit
# state), the output policy (outputs: the damage check stats the VFS through
# Emscripten's fstat), `record` under faults (record-faults: aborts and
# exits as each version reports them), the waiting state (waiting: it
# relies on every blocking wait ending in emscripten_futex_wait, which the
# link wraps), the moving-stack test (the hooks' stores as each emcc
# compiles them, raced by the sampler) and clone suffixes (each linker
# numbers namesakes its own way).
TOOLCHAIN_TESTS=(tests/browser/startup.test.mjs tests/browser/fidelity.test.mjs
  tests/browser/formats.test.mjs tests/browser/readers.test.mjs tests/browser/cli.test.mjs
  tests/browser/limits.test.mjs tests/browser/shim.test.mjs tests/browser/outputs.test.mjs
  tests/browser/record-faults.test.mjs tests/browser/waiting.test.mjs tests/browser/moving.test.mjs
  tests/browser/clones.test.mjs)
# The diagnostic server (serve): its Worker reads Emscripten's wasmMemory and
# suspend holds startup with a run dependency.
TOOLCHAIN_TESTS+=(tests/browser/serve.test.mjs)
# Native unit tests as wasm, then the toolchain tests, on one wasm tree.
toolchain_tests() {
  local dir=$1
  echo "== native unit tests (wasm, Node; $dir, $(emcc --version | sed -n '1s/.*) \([0-9][0-9.]*\).*/emcc \1/p'))"
  ctest --test-dir "$dir" --output-on-failure
  grep -h '^\[ SKIP \]' "$dir/Testing/Temporary/LastTest.log" || true
  took
  echo "== browser tests (headless Chromium; $dir)"
  WASMTRACE_BROWSER=chromium WASMTRACE_WASM_BUILD=$dir node --test --test-concurrency=1 "${TOOLCHAIN_TESTS[@]}"
  took
}
# The tests about the product's behaviour in a page, run again in headless
# Firefox (Debian's firefox-esr through puppeteer-core; tests/lib/
# test-browser.mjs): the startup session, the session engine, sampling
# fidelity, every format and the readers that open it, `wasmtrace record`
# and its failure diagnoses, record under faults (abort, navigation), the
# JS API under bad values and faults (its messages carry the engine's own
# words), the pthread pool, the output policy and the Playwright helper
# (helper.test.mjs: report.test.mjs runs it in Chromium). On the default
# tree only: what the toolchain changes is checked in Chromium on both
# trees, what the browser changes in both browsers on one (a second pass on
# 3.1.69 would add ~4.5 min to CI's budget). The rest pass in Firefox too when run by hand
# (WASMTRACE_BROWSER=firefox node --test tests/browser/X.test.mjs), except
# report.test.mjs, which drives the HTML report with Playwright locators.
# tests/browser/engines.test.mjs compares the two browsers' traces of the
# same apps; it runs with the Chromium tests. WASMTRACE_SKIP_FIREFOX=1
# skips the Firefox pass and that test (a machine without Firefox).
FIREFOX_TESTS=(tests/browser/startup.test.mjs tests/browser/engine.test.mjs tests/browser/fidelity.test.mjs
  tests/browser/formats.test.mjs tests/browser/readers.test.mjs tests/browser/cli.test.mjs
  tests/browser/record-faults.test.mjs tests/browser/shim.test.mjs tests/browser/limits.test.mjs
  tests/browser/outputs.test.mjs tests/browser/helper.test.mjs)
firefox_tests() {
  if [ "${WASMTRACE_SKIP_FIREFOX:-0}" = 1 ]; then
    echo "== browser tests in headless Firefox: skipped (WASMTRACE_SKIP_FIREFOX=1)"
    return
  fi
  echo "== browser tests (headless $(firefox-esr --version 2>/dev/null || echo Firefox); build/wasm)"
  WASMTRACE_BROWSER=firefox node --test --test-concurrency=1 "${FIREFOX_TESTS[@]}"
  took
}
if [ "${1:-}" = firefox ]; then
  firefox_tests
  exit 0
fi
if [ "${1:-}" = toolchain ]; then
  toolchain_tests "${WASMTRACE_WASM_BUILD:-build/wasm}"
  exit 0
fi
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
echo "== config parser and JSON escaper fuzzing (libFuzzer, ${WASMTRACE_FUZZ_SECONDS:-10} s each)"
# The reader fuzzers (fast-check) run with the Node tests below
# (tests/node/fuzz-readers.test.mjs); long runs: npm run fuzz.
cmake -S tests/fuzz -B build/fuzz -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/fuzz >build/fuzz-build.log 2>&1 || { cat build/fuzz-build.log; exit 1; }
for target in config json; do
  corpus=tests/fuzz/corpus
  [ "$target" = json ] && corpus=tests/fuzz/corpus-json
  mkdir -p "build/fuzz/corpus-$target"
  build/fuzz/fuzz_$target -max_total_time="${WASMTRACE_FUZZ_SECONDS:-10}" -print_final_stats=1 \
    "build/fuzz/corpus-$target" "$corpus" >"build/fuzz/last-run-$target.log" 2>&1 ||
    { tail -40 "build/fuzz/last-run-$target.log"; exit 1; }
  echo "fuzz_$target: $(grep -E 'stat::number_of_executed_units' "build/fuzz/last-run-$target.log")"
done
took
echo "== browser tests (headless Chromium)"
WASMTRACE_BROWSER=chromium node --test --test-concurrency=1 tests/node/ tests/browser/
took
firefox_tests
# The second toolchain (scripts/setup.sh installs it; WASMTRACE_SKIP_NEXT=1
# skips it, e.g. on a machine without Debian's package archive).
if [ "${WASMTRACE_SKIP_NEXT:-0}" = 1 ]; then
  echo "== Emscripten 3.1.69: skipped (WASMTRACE_SKIP_NEXT=1)"
else
  env_line=$(bash scripts/setup-emscripten.sh --env) || {
    echo "wasmtrace test: Emscripten 3.1.69 is missing: run 'bash scripts/setup-emscripten.sh' and 'bash scripts/build.sh wasm-next' (or set WASMTRACE_SKIP_NEXT=1)" >&2
    exit 1
  }
  eval "$env_line"
  toolchain_tests build/wasm-3.1.69
fi
echo "== all tests passed ($((SECONDS)) s)"
