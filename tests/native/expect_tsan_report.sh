#!/bin/sh
# Runs a program that races on purpose (tsan_canary.c) and passes only if
# ThreadSanitizer reported the race and the program exited with the code
# TSAN_OPTIONS sets (66): the TSan tree fails a test on any report.
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if ! printf '%s\n' "$out" | grep -q 'WARNING: ThreadSanitizer: data race'; then
  echo "expect_tsan_report: no data race reported (is the build instrumented?)" >&2
  exit 1
fi
if [ "$rc" -ne 66 ]; then
  echo "expect_tsan_report: exit status $rc, expected 66 (TSAN_OPTIONS halt_on_error/exitcode)" >&2
  exit 1
fi
echo "expect_tsan_report: race reported, run failed with status 66 as it should"
