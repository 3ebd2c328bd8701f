#!/usr/bin/env bash
# Installs what wasmtrace's build, demo, benchmark and tests need on a Debian
# machine. Idempotent and quick when everything is present.
#
#   bash scripts/setup.sh            everything (npm test: all of the below)
#   bash scripts/setup.sh demo       what npm run demo needs: emcc, cmake,
#                                    Chromium, the cJSON and zlib sources,
#                                    the npm packages
#   bash scripts/setup.sh bench      the demo's, plus what npm run bench
#                                    adds: a host C compiler with cJSON and
#                                    zlib (native figures) and Firefox ESR
#   ... --dry-run                    print what the profile needs and what is
#                                    missing; change nothing
#   ... --defer-6                    leave Emscripten 6.x's root to
#                                    scripts/build.sh, which makes it in the
#                                    background while the first trees build
#                                    (npm test: set-up 258 -> 66 s on two
#                                    cores)
#
# Only the full set adds the test matrix's extras: clang and libFuzzer (host
# sanitizer and fuzz builds), the second Emscripten (3.1.69, ~250 MB,
# scripts/setup-emscripten.sh) and the third (6.x in a Debian sid root,
# ~900 MB, scripts/setup-emscripten6.sh). Set WASMTRACE_SKIP_SETUP=1 to skip
# setup (e.g. on a machine prepared another way), WASMTRACE_SKIP_NEXT=1 to
# leave out the second Emscripten, WASMTRACE_SKIP_6=1 the third.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
profile=all
dry=0
defer6=0
for arg in "$@"; do
  case "$arg" in
    demo | bench | all) profile=$arg ;;
    --dry-run) dry=1 ;;
    --defer-6) defer6=1 ;;
    *) echo "usage: bash scripts/setup.sh [demo|bench|all] [--dry-run] [--defer-6]" >&2; exit 2 ;;
  esac
done
[ "$dry" = 1 ] || [ "${WASMTRACE_SKIP_SETUP:-0}" != 1 ] || exit 0
say() { echo "wasmtrace setup ($profile): $*"; }
# The second Emscripten: the test matrix only.
with_next=0
[ "$profile" = all ] && [ "${WASMTRACE_SKIP_NEXT:-0}" != 1 ] && with_next=1
with_6=0
[ "$profile" = all ] && [ "${WASMTRACE_SKIP_6:-0}" != 1 ] && with_6=1

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "wasmtrace setup: need root (or sudo) to run: $*" >&2; exit 1; fi
}

# 1. Debian packages: `deb PACKAGE TEST...` lists a package the profile
#    needs, with the command that proves it is present.
need=()
have=()
deb() {
  local pkg=$1
  shift
  if "$@" >/dev/null 2>&1; then have+=("$pkg"); else need+=("$pkg"); fi
}
# The demo: build the sample with emcc and record it in headless Chromium.
deb emscripten command -v emcc
deb cmake command -v cmake
deb make command -v make
deb chromium test -x /usr/bin/chromium
deb dpkg-dev command -v dpkg-source  # unpacks 'apt-get source'
if [ "$profile" != demo ]; then
  # The benchmark's native figures (build/bench-host) and the host tests.
  deb gcc command -v gcc
  deb libcjson-dev test -f /usr/include/cjson/cJSON.h
  deb zlib1g-dev test -f /usr/include/zlib.h
  # The second browser of the tests, of the benchmark's Firefox section and
  # of `record --browser firefox`: Debian's ESR, driven by puppeteer-core
  # (never a downloaded build).
  deb firefox-esr test -x /usr/bin/firefox-esr
fi
if [ "$profile" = all ]; then
  deb clang command -v clang  # host fuzz/sanitizer builds
  deb libclang-rt-14-dev dpkg -s libclang-rt-14-dev  # libFuzzer runtime
fi
# Emscripten 3.1.69's JS optimizer imports acorn (scripts/setup-emscripten.sh);
# Debian's emscripten pulls it in, an emsdk on PATH does not.
if [ "$with_next" = 1 ]; then deb node-acorn test -f /usr/share/nodejs/acorn/package.json; fi
# Emscripten 6.x's root is made with mmdebstrap (scripts/setup-emscripten6.sh).
if [ "$with_6" = 1 ]; then deb mmdebstrap command -v mmdebstrap; fi
if [ "$dry" = 1 ]; then
  say "Debian packages needed: ${need[*]:-none}; present: ${have[*]:-none}"
elif [ ${#need[@]} -gt 0 ]; then
  say "installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# 2. cJSON and zlib sources for the wasm build (never committed: fetched as
#    Debian source packages into .deps/, which git ignores).
deps="$root/.deps"
have_src() { compgen -G "$deps/cjson-*/cJSON.c" >/dev/null && compgen -G "$deps/zlib-*/deflate.c" >/dev/null; }
if [ "$dry" = 1 ]; then
  if have_src; then say "cJSON and zlib sources: present in .deps/"; else say "cJSON and zlib sources: would fetch into .deps/ (apt-get source)"; fi
elif ! have_src; then
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    src=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)
    if [ -n "$src" ]; then
      say "enabling Debian source packages ($src -> wasmtrace-deb-src.sources)"
      sed 's/^Types:.*/Types: deb-src/' "$src" | as_root tee /etc/apt/sources.list.d/wasmtrace-deb-src.sources >/dev/null
    elif [ -f /etc/apt/sources.list ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | as_root tee /etc/apt/sources.list.d/wasmtrace-deb-src.list >/dev/null
    fi
    as_root apt-get update -qq
  fi
  mkdir -p "$deps"
  say "fetching cJSON and zlib sources into .deps/"
  # One package at a time, newest first; a mirror may list a security update
  # whose source files it does not hold (seen: zlib's, 404), so fall back to
  # the release's own version (pkg/<codename>).
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  fetch_src() {
    local pkg=$1 pattern=$2
    compgen -G "$deps/$pattern" >/dev/null && return 0
    (cd "$deps" && apt-get source -qq "$pkg" >/dev/null 2>&1) && compgen -G "$deps/$pattern" >/dev/null && return 0
    [ -n "$codename" ] && (cd "$deps" && apt-get source -qq "$pkg/$codename" >/dev/null 2>&1) &&
      compgen -G "$deps/$pattern" >/dev/null && { say "$pkg: the newest source is not on the mirror; took $codename's"; return 0; }
    echo "wasmtrace setup: 'apt-get source $pkg' failed; set WASMTRACE_CJSON_DIR and WASMTRACE_ZLIB_DIR to unpacked sources instead" >&2
    exit 1
  }
  fetch_src cjson 'cjson-*/cJSON.c'
  fetch_src zlib 'zlib-*/deflate.c'
  have_src || { echo "wasmtrace setup: sources not found under .deps after download" >&2; exit 1; }
fi

# 3. npm packages (playwright-core drives the system Chromium, puppeteer-core
#    the system Firefox; never 'playwright install', and no puppeteer
#    browser download: both would fetch a browser build).
npm_ready() {
  [ -d "$root/node_modules/playwright-core" ] && [ -d "$root/node_modules/puppeteer-core" ] &&
    ! [ "$root/package.json" -nt "$root/node_modules/.package-lock.json" ]
}
if [ "$dry" = 1 ]; then
  if npm_ready; then say "npm packages: present"; else say "npm packages: would run npm install"; fi
elif ! npm_ready; then
  say "installing npm packages"
  (cd "$root" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)
fi

# 4. The second toolchain of the test matrix (npm test only): Emscripten
#    3.1.69 under .deps/ (scripts/setup-emscripten.sh; nothing from a newer
#    Debian release is installed into the system).
if [ "$with_next" = 1 ]; then
  if [ "$dry" = 1 ]; then
    if bash "$root/scripts/setup-emscripten.sh" --env >/dev/null 2>&1; then
      say "Emscripten 3.1.69: present in .deps/"
    else
      say "Emscripten 3.1.69: would install into .deps/ (scripts/setup-emscripten.sh, ~250 MB download)"
    fi
  else
    bash "$root/scripts/setup-emscripten.sh" --quiet
  fi
fi

# 5. The third toolchain (npm test only): Emscripten 6.x in a Debian sid root
#    under .deps/ (scripts/setup-emscripten6.sh; the system's packages and
#    apt sources are left as they are).
if [ "$with_6" = 1 ]; then
  if [ "$dry" = 1 ]; then
    if bash "$root/scripts/setup-emscripten6.sh" --env >/dev/null 2>&1; then
      say "Emscripten 6.x: present in .deps/"
    else
      say "Emscripten 6.x: would make a Debian sid root in .deps/ (scripts/setup-emscripten6.sh, ~900 MB)"
    fi
  elif [ "$defer6" = 1 ]; then
    # scripts/build.sh sees the mark and makes the root beside its first trees.
    if ! bash "$root/scripts/setup-emscripten6.sh" --env >/dev/null 2>&1; then
      mkdir -p "$deps"
      : >"$deps/emscripten-6.deferred"
      say "Emscripten 6.x: scripts/build.sh makes its root in the background while the first trees build"
    fi
  else
    bash "$root/scripts/setup-emscripten6.sh" --quiet
  fi
fi
