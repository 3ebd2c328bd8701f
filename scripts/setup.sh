#!/usr/bin/env bash
# Installs what wasmtrace's build, demo and tests need on a Debian machine.
# Idempotent and quick when everything is present. Set WASMTRACE_SKIP_SETUP=1
# to skip it (e.g. on a machine prepared another way), WASMTRACE_SKIP_NEXT=1
# to leave out the second Emscripten of the test matrix.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ "${WASMTRACE_SKIP_SETUP:-0}" = 1 ] && exit 0

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "wasmtrace setup: need root (or sudo) to run: $*" >&2; exit 1; fi
}

# 1. Debian packages: command or file that proves each one is present.
need=()
command -v emcc >/dev/null || need+=(emscripten)
command -v cmake >/dev/null || need+=(cmake)
command -v make >/dev/null || need+=(make)
command -v gcc >/dev/null || need+=(gcc)
command -v clang >/dev/null || need+=(clang)        # host fuzz/sanitizer builds
dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || need+=(libclang-rt-14-dev)  # libFuzzer runtime
[ -x /usr/bin/chromium ] || need+=(chromium)
# The second browser of the tests and of `record --browser firefox`:
# Debian's ESR, driven by puppeteer-core (never a downloaded build).
[ -x /usr/bin/firefox-esr ] || need+=(firefox-esr)
[ -f /usr/include/cjson/cJSON.h ] || need+=(libcjson-dev)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)  # unpacks 'apt-get source'
# Emscripten 3.1.69's JS optimizer imports acorn (scripts/setup-emscripten.sh);
# Debian's emscripten pulls it in, an emsdk on PATH does not.
[ "${WASMTRACE_SKIP_NEXT:-0}" = 1 ] || [ -f /usr/share/nodejs/acorn/package.json ] || need+=(node-acorn)
if [ ${#need[@]} -gt 0 ]; then
  echo "wasmtrace setup: installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# 2. cJSON and zlib sources for the wasm build (never committed: fetched as
#    Debian source packages into .deps/, which git ignores).
deps="$root/.deps"
have_src() { compgen -G "$deps/cjson-*/cJSON.c" >/dev/null && compgen -G "$deps/zlib-*/deflate.c" >/dev/null; }
if ! have_src; then
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    src=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)
    if [ -n "$src" ]; then
      echo "wasmtrace setup: enabling Debian source packages ($src -> wasmtrace-deb-src.sources)"
      sed 's/^Types:.*/Types: deb-src/' "$src" | as_root tee /etc/apt/sources.list.d/wasmtrace-deb-src.sources >/dev/null
    elif [ -f /etc/apt/sources.list ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | as_root tee /etc/apt/sources.list.d/wasmtrace-deb-src.list >/dev/null
    fi
    as_root apt-get update -qq
  fi
  mkdir -p "$deps"
  echo "wasmtrace setup: fetching cJSON and zlib sources into .deps/"
  (cd "$deps" && apt-get source -qq cjson zlib >/dev/null 2>&1) || {
    echo "wasmtrace setup: 'apt-get source cjson zlib' failed; set WASMTRACE_CJSON_DIR and WASMTRACE_ZLIB_DIR to unpacked sources instead" >&2
    exit 1
  }
  have_src || { echo "wasmtrace setup: sources not found under .deps after download" >&2; exit 1; }
fi

# 3. npm packages (playwright-core drives the system Chromium, puppeteer-core
#    the system Firefox; never 'playwright install', and no puppeteer
#    browser download: both would fetch a browser build).
if [ ! -d "$root/node_modules/playwright-core" ] || [ ! -d "$root/node_modules/puppeteer-core" ] ||
  [ "$root/package.json" -nt "$root/node_modules/.package-lock.json" ]; then
  echo "wasmtrace setup: installing npm packages"
  (cd "$root" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)
fi

# 4. The second toolchain of the test matrix: Emscripten 3.1.69 under
#    .deps/ (scripts/setup-emscripten.sh; nothing from a newer Debian release
#    is installed into the system).
if [ "${WASMTRACE_SKIP_NEXT:-0}" != 1 ]; then
  bash "$root/scripts/setup-emscripten.sh" --quiet
fi
