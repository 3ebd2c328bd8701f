#!/usr/bin/env bash
# Runs every test: the native unit tests on the host (ASan+UBSan, then
# ThreadSanitizer) and as wasm under Node, the config and JSON escaper
# fuzzers, then the Node tests (the reader fuzzers among them) and the
# end-to-end tests in headless Chromium, and those about the product's
# behaviour in a page again in headless Firefox; then, on the second and
# third toolchains (Emscripten 3.1.69 from scripts/setup-emscripten.sh,
# build/wasm-3.1.69; Emscripten 6.x from scripts/setup-emscripten6.sh,
# build/wasm-6), the wasm unit tests and the browser tests that depend on
# the toolchain.
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
#
# Every pass runs even when an earlier one failed: the run ends with one
# summary of all passes and of every failing test (file and test name, from
# tests/lib/failures-reporter.mjs and ctest's list), and exits 1 if anything
# failed. Each pass's failures are also in build/test-results/<n>.txt.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
results=build/test-results
rm -rf "$results"
mkdir -p "$results"
# One line per pass for the summary: "ok|FAIL|skip <seconds> <title>", and
# its failing tests in $results/<n>.txt (n: the pass's number in the run).
passes=()
pass_no=0
# run_pass TITLE COMMAND...: runs one pass (its output as it comes), records
# its outcome; never stops the run.
run_pass() {
  local title=$1 start=$SECONDS rc
  shift
  pass_no=$((pass_no + 1))
  pass_file="$results/$pass_no.txt"
  : >"$pass_file"
  echo "== $title"
  "$@"
  rc=$?
  local took=$((SECONDS - start))
  echo "-- took $took s"
  local line
  if [ "$rc" = 0 ]; then
    printf -v line '%-4s %6s  %s' ok "$took s" "$title"
  else
    printf -v line '%-4s %6s  %s' FAIL "$took s" "$title"
    [ -s "$pass_file" ] || echo "(exit status $rc; see the output above)" >"$pass_file"
  fi
  passes+=("$line")
  return 0
}
skip_pass() {
  pass_no=$((pass_no + 1))
  echo "== $1: skipped ($2)"
  local line
  printf -v line '%-4s %6s  %s' skip - "$1 ($2)"
  passes+=("$line")
}
summary() {
  local failed=0 line n=0
  echo
  echo "== summary"
  for line in "${passes[@]}"; do
    n=$((n + 1))
    echo "  $line"
    case "$line" in
      FAIL*)
        failed=$((failed + 1))
        sed 's/^/      /' "$results/$n.txt"
        ;;
    esac
  done
  if [ "$failed" = 0 ]; then
    echo "== all ${#passes[@]} passes passed ($SECONDS s)"
    return 0
  fi
  echo "== $failed of ${#passes[@]} passes FAILED ($SECONDS s); per pass: $results/"
  return 1
}
# node_tests BROWSER WASM_TREE FILES...: the Node test runner in one browser
# on one wasm tree ('' for the default, build/wasm or $WASMTRACE_WASM_BUILD),
# with the pass's failing tests written for the summary (the readable report
# goes to the terminal).
node_tests() {
  local browser=$1 tree=${2:-${WASMTRACE_WASM_BUILD:-}}
  shift 2
  WASMTRACE_BROWSER=$browser WASMTRACE_WASM_BUILD=$tree node --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter="$root/tests/lib/failures-reporter.mjs" --test-reporter-destination="$pass_file" "$@"
}
# ctest on one tree, with its failing tests for the summary.
ctest_tests() {
  local dir=$1 rc=0
  # A tree without tests (not built) fails instead of passing empty.
  ctest --test-dir "$dir" --output-on-failure --no-tests=error || rc=$?
  if [ "$rc" != 0 ]; then
    if [ -s "$dir/Testing/Temporary/LastTestsFailed.log" ]; then
      sed "s|^[0-9]*:|$dir: |" "$dir/Testing/Temporary/LastTestsFailed.log" >>"$pass_file"
    else
      echo "$dir: ctest exited $rc (no test list: is the tree built?)" >>"$pass_file"
    fi
  fi
  return "$rc"
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
# Low heap (the allocator's room left) and the pthread wrappers (the link).
TOOLCHAIN_TESTS+=(tests/browser/lowheap.test.mjs tests/browser/wraps.test.mjs)
# The startup timeline: run dependencies, worker loading and wasm
# instantiation as each version does them.
TOOLCHAIN_TESTS+=(tests/browser/timeline.test.mjs)
# The main thread's long tasks (an observer in the pre-js, an export of the
# library each version must keep).
TOOLCHAIN_TESTS+=(tests/browser/longtask.test.mjs)
# The main thread's JS profile (the JS Self-Profiling API; Chromium).
TOOLCHAIN_TESTS+=(tests/browser/jsprofile.test.mjs)
# Heap profiling: the allocator shim on each version's dlmalloc and emmalloc,
# and a Lua-shaped heap past the address set's first table.
TOOLCHAIN_TESTS+=(tests/browser/heap.test.mjs tests/browser/heap-wrapper.test.mjs)
TOOLCHAIN_TESTS+=(tests/browser/package.test.mjs)
# The shapes real apps take (PROXY_TO_PTHREAD, MODULARIZE, EXPORT_ES6, memory
# growth, the default heap, C++ exceptions), built by each toolchain.
TOOLCHAIN_TESTS+=(tests/browser/shapes.test.mjs)
# Exact call counts: the hooks as each toolchain compiles and inlines them.
TOOLCHAIN_TESTS+=(tests/browser/calls.test.mjs)
# The tests about the product's behaviour in a page, run again in headless
# Firefox (Debian's firefox-esr through puppeteer-core; tests/lib/
# test-browser.mjs): the startup session, the session engine, sampling
# fidelity, every format and the readers that open it, `wasmtrace record`
# and its failure diagnoses, record under faults (abort, navigation), the
# JS API under bad values and faults (its messages carry the engine's own
# words), the pthread pool, the output policy, the Playwright helper
# (helper.test.mjs: report.test.mjs runs it in Chromium), the diagnostic
# server (Firefox carries a Worker's WebSocket through the page's main
# thread), low heap, the pthread wrappers' notice, the startup timeline
# and heap profiling. Not diff.test (record --repeat and diff
# read traces in Node; twelve recordings) nor calls.test (the counts are
# the wasm's own, and its Chromium run checks the firefox format carries
# them): neither depends on the browser, and npm test must fit CI's 90
# minutes on two cores. Tests marked notFirstPass (tests/lib/
# test-browser.mjs) run only in the first pass. On the default
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
  tests/browser/outputs.test.mjs tests/browser/helper.test.mjs tests/browser/serve.test.mjs
  tests/browser/lowheap.test.mjs tests/browser/wraps.test.mjs tests/browser/timeline.test.mjs
  tests/browser/jsprofile.test.mjs tests/browser/heap.test.mjs
  tests/browser/longtask.test.mjs)
# The two passes of one wasm tree: the native unit tests as wasm, then the
# toolchain tests in Chromium.
toolchain_passes() {
  local dir=$1 emcc_name
  emcc_name=$(emcc --version 2>/dev/null | sed -n '1s/.*) \([0-9][0-9.]*\).*/emcc \1/p')
  run_pass "native unit tests (wasm, Node; $dir, ${emcc_name:-emcc not found})" wasm_unit_tests "$dir"
  run_pass "browser tests (headless Chromium; $dir)" node_tests chromium "$dir" "${TOOLCHAIN_TESTS[@]}"
}
wasm_unit_tests() {
  local rc=0
  ctest_tests "$1" || rc=$?
  # Tests that cannot run as wasm say so (WT_TEST_HOST_ONLY): show why.
  grep -h '^\[ SKIP \]' "$1/Testing/Temporary/LastTest.log" 2>/dev/null
  return "$rc"
}
firefox_pass() {
  if [ "${WASMTRACE_SKIP_FIREFOX:-0}" = 1 ]; then
    skip_pass "browser tests in headless Firefox" "WASMTRACE_SKIP_FIREFOX=1"
    return
  fi
  run_pass "browser tests (headless $(firefox-esr --version 2>/dev/null || echo Firefox); build/wasm)" \
    node_tests firefox "" "${FIREFOX_TESTS[@]}"
}
fuzz_pass() {
  local target corpus rc=0
  # The reader fuzzers (fast-check) run with the Node tests below
  # (tests/node/fuzz-readers.test.mjs); long runs: npm run fuzz.
  cmake -S tests/fuzz -B build/fuzz -DCMAKE_C_COMPILER=clang >/dev/null || { echo "fuzz: cmake configure failed" >>"$pass_file"; return 1; }
  cmake --build build/fuzz >build/fuzz-build.log 2>&1 || { cat build/fuzz-build.log; echo "fuzz: build failed (build/fuzz-build.log)" >>"$pass_file"; return 1; }
  for target in config json; do
    corpus=tests/fuzz/corpus
    [ "$target" = json ] && corpus=tests/fuzz/corpus-json
    mkdir -p "build/fuzz/corpus-$target"
    if build/fuzz/fuzz_$target -max_total_time="${WASMTRACE_FUZZ_SECONDS:-10}" -print_final_stats=1 \
      "build/fuzz/corpus-$target" "$corpus" >"build/fuzz/last-run-$target.log" 2>&1; then
      echo "fuzz_$target: $(grep -E 'stat::number_of_executed_units' "build/fuzz/last-run-$target.log")"
    else
      tail -40 "build/fuzz/last-run-$target.log"
      echo "fuzz_$target: failed (build/fuzz/last-run-$target.log)" >>"$pass_file"
      rc=1
    fi
  done
  return "$rc"
}
toolchain_missing() {
  echo "Emscripten $1 is missing: run 'bash scripts/$2' and 'bash scripts/build.sh $3' (or set $4=1)" |
    tee -a "$pass_file" >&2
  return 1
}
# The other toolchains of the matrix (scripts/setup.sh installs them), as
# the run's last passes: NAME SETUP-SCRIPT TREE BUILD-TARGET SKIP-VARIABLE.
# The skip variable leaves one out, e.g. on a machine without Debian's
# package archive.
other_toolchain_passes() {
  local name=$1 script=$2 dir=$3 target=$4 skip=$5 env_line
  if [ "${!skip:-0}" = 1 ]; then
    skip_pass "Emscripten $name" "$skip=1"
    return
  fi
  if ! env_line=$(bash "scripts/$script" --env); then
    run_pass "Emscripten $name" toolchain_missing "$name" "$script" "$target" "$skip"
    return
  fi
  # In a subshell would lose the recorded passes: set PATH here, and put it
  # back for the next toolchain.
  local saved_path=$PATH saved_config=${EM_CONFIG-}
  eval "$env_line"
  toolchain_passes "$dir"
  PATH=$saved_path
  if [ -n "$saved_config" ]; then export EM_CONFIG=$saved_config; else unset EM_CONFIG; fi
}
next_passes() {
  other_toolchain_passes 3.1.69 setup-emscripten.sh build/wasm-3.1.69 wasm-next WASMTRACE_SKIP_NEXT
  other_toolchain_passes 6.x setup-emscripten6.sh build/wasm-6 wasm-6 WASMTRACE_SKIP_6
}

case "${1:-}" in
  firefox)
    firefox_pass
    ;;
  toolchain)
    toolchain_passes "${WASMTRACE_WASM_BUILD:-build/wasm}"
    ;;
  "")
    run_pass "native unit tests (host, address+undefined sanitizers)" ctest_tests build/host
    # Any TSan report fails its test (TSAN_OPTIONS set by the CMake test list).
    run_pass "native unit tests (host, thread sanitizer)" ctest_tests build/tsan
    run_pass "native unit tests (wasm, Node)" wasm_unit_tests build/wasm
    run_pass "config parser and JSON escaper fuzzing (libFuzzer, ${WASMTRACE_FUZZ_SECONDS:-10} s each)" fuzz_pass
    run_pass "Node tests and browser tests (headless Chromium; build/wasm)" node_tests chromium "" tests/node/ tests/browser/
    firefox_pass
    next_passes
    ;;
  *)
    echo "usage: bash scripts/test.sh [firefox|toolchain]" >&2
    exit 2
    ;;
esac
summary
