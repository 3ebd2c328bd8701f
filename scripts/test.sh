#!/usr/bin/env bash
# Runs every test: native unit tests on the host (ASan+UBSan), then the
# end-to-end tests in headless Chromium. Assumes scripts/build.sh ran.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "== native unit tests (host, address+undefined sanitizers)"
ctest --test-dir build/host --output-on-failure
echo "== browser tests (headless Chromium)"
node --test --test-concurrency=1 tests/node/ tests/browser/
