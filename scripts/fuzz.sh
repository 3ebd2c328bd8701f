#!/usr/bin/env bash
# Long fuzzing runs (npm run fuzz): the JS reader fuzzers (fast-check,
# tests/fuzz/reader-fuzzers.mjs: chrome, firefox and folded readers, byte
# edits of gzip and plain files, the wasm name-section parser) and the
# libFuzzer targets (config parser, JSON string escaper; clang with ASan and
# UBSan). Prints the executions each fuzzer ran and its rate; exit status 1
# on any finding (its seed / crash file is printed).
#
#   bash scripts/fuzz.sh                 10,000,000 executions per fuzzer
#   WASMTRACE_FUZZ_RUNS=1000000 bash scripts/fuzz.sh
#   WASMTRACE_FUZZ_ONLY=folded-crafted bash scripts/fuzz.sh   one JS fuzzer
#   WASMTRACE_FUZZ_JOBS=2 (default)      parallel processes (one per core)
# Runs the JS fuzzers in chunks of 100,000 with successive seeds (a finding
# prints the seed to replay: node tests/fuzz/run-readers.mjs --seed S
# --only NAME --runs 100000). At the rates measured on a loaded 2-core box
# (docs/INTERNALS.md, "Fuzzing") 10 M executions of every fuzzer take hours: pick a
# smaller WASMTRACE_FUZZ_RUNS for a quick check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${WASMTRACE_FUZZ_RUNS:-10000000}
jobs=${WASMTRACE_FUZZ_JOBS:-2}
seed=${WASMTRACE_FUZZ_SEED:-$RANDOM$RANDOM}
mkdir -p build/fuzz
echo "== building the libFuzzer targets (clang, build/fuzz)"
cmake -S tests/fuzz -B build/fuzz -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/fuzz -j"$jobs" >build/fuzz-build.log 2>&1 || { cat build/fuzz-build.log; exit 1; }

names=$(node --input-type=module -e "import { fuzzers } from './tests/fuzz/reader-fuzzers.mjs'; console.log(fuzzers().map((f) => f.name).join(' '))")
[ -n "${WASMTRACE_FUZZ_ONLY:-}" ] && names=$WASMTRACE_FUZZ_ONLY
pids=()
logs=()
run() { # name, log, command...
  local log=$2
  shift 2
  "$@" >"$log" 2>&1 &
  pids+=($!)
  logs+=("$log")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
}
for name in $names; do
  run "$name" "build/fuzz/long-$name.log" node tests/fuzz/run-readers.mjs --runs "$runs" --seed "$seed" --only "$name"
done
if [ -z "${WASMTRACE_FUZZ_ONLY:-}" ]; then
  for target in config json; do
    corpus=tests/fuzz/corpus
    [ "$target" = json ] && corpus=tests/fuzz/corpus-json
    mkdir -p "build/fuzz/corpus-$target"
    run "fuzz_$target" "build/fuzz/long-fuzz_$target.log" build/fuzz/fuzz_$target -runs="$runs" -print_final_stats=1 \
      -artifact_prefix=build/fuzz/ "build/fuzz/corpus-$target" "$corpus"
  done
fi
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || status=1
  log=${logs[$i]}
  if grep -q '^fuzzer ' "$log"; then
    grep '^fuzzer ' "$log"
  else
    echo "$(basename "$log" .log | sed 's/^long-//'): $(grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec' "$log" | tr -s ' ' | tr '\n' ' ')"
  fi
done
[ "$status" = 0 ] && echo "== no finding" || { echo "== FINDINGS: see build/fuzz/long-*.log"; exit 1; }
