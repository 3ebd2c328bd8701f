#!/usr/bin/env bash
# Installs today's Emscripten (6.x, Debian sid's `emscripten` package) beside
# the system's 3.1.6, in a Debian sid root under .deps/emscripten-6/root, for
# the third toolchain of the test matrix.
#
#   bash scripts/setup-emscripten6.sh          install (quick when present)
#   bash scripts/setup-emscripten6.sh --env    print only the line to eval
#   bash scripts/setup-emscripten6.sh --quiet  say nothing when present
#
# Why a root: Emscripten 6 needs clang-21, lld-21, binaryen 131 and glibc
# 2.38, none of which Debian 12 has. `mmdebstrap` (a Debian 12 package)
# makes a sid root from Debian's own registry (~190 s, ~900 MB); nothing in
# the system's packages or apt sources changes. The root's tools run through
# small wrappers in .deps/emscripten-6/bin (emcc, em++, emcmake, emar,
# emranlib, emconfigure, emmake, emsize, cmake, ctest; the tests' Node
# stays the system's): each enters the root in
# a private mount namespace (`unshare --mount`, nothing stays mounted) where
# the checkout, /tmp and $HOME are bound at their own paths, so absolute
# paths mean the same inside and out. The browsers stay outside and read the
# files the root's builds write. Needs root (sessions and CI are root).
#
# Use it: `eval "$(bash scripts/setup-emscripten6.sh --env)"` puts the
# wrappers first on PATH; `bash scripts/build.sh wasm-6` does that itself and
# builds build/wasm-6.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
major=6
dest=${WASMTRACE_EMSCRIPTEN6_DIR:-$root/.deps/emscripten-$major}
say() { echo "wasmtrace setup-emscripten6: $*" >&2; }
die() { say "$*"; exit 1; }
[ "${1:-}" != --env ] || [ -d "$dest" ] || die "not installed: run bash scripts/setup-emscripten6.sh"
mkdir -p "$dest"
dest=$(cd "$dest" && pwd -P)
sysroot=$dest/root
stamp=$dest/.complete

print_env() {
  printf 'export PATH=%q:"$PATH"\n' "$dest/bin"
}
usage() {
  say "Emscripten $(cat "$stamp") is ready in $sysroot"
  say "  build the third wasm tree:   bash scripts/build.sh wasm-6   (-> build/wasm-6)"
  say "  use its emcc in this shell:  eval \"\$(bash scripts/setup-emscripten6.sh --env)\""
  say "  then test against it:        WASMTRACE_WASM_BUILD=build/wasm-6 bash scripts/test.sh toolchain"
}

# The wrappers (rewritten on every run: cheap, and they follow the paths).
# `enter` runs one command inside the root; each tool's wrapper is one line.
write_wrappers() {
  mkdir -p "$dest/bin"
  cat >"$dest/enter" <<'EOF'
#!/bin/bash
# Written by wasmtrace's scripts/setup-emscripten6.sh: runs one command in
# the Emscripten 6 root, in a private mount namespace (nothing stays
# mounted), with the checkout, /tmp and $HOME at their own paths and the
# current directory kept. EMCC_SKIP_SANITY_CHECK: the root is made for this
# one Emscripten; the check cost one compile 0.76 -> 0.42 s here (a whole
# tree's build: no measurable change, 497 -> 504 s).
set -euo pipefail
# Called from inside the root (CMake there, regenerating a tree after a
# CMakeLists.txt changed, runs the compiler it recorded: this wrapper): run
# the command here, as a second unshare inside the chroot fails.
[ "${WASMTRACE_IN_EMSCRIPTEN6_ROOT:-}" = 1 ] && exec "$@"
here=$(cd "$(dirname "$0")" && pwd -P)
sysroot=$here/root
checkout=$(cd "$here/../.." && pwd -P)
cwd=$(pwd -P)
[ "$(id -u)" = 0 ] || { echo "wasmtrace: Emscripten 6's root needs root to enter (unshare, chroot)" >&2; exit 1; }
binds=("$checkout" /tmp)
[ -n "${HOME:-}" ] && [ -d "$HOME" ] && [ "$HOME" != / ] && binds+=("$(cd "$HOME" && pwd -P)")
inside=0
for b in "${binds[@]}"; do case "$cwd/" in "$b"/*) inside=1 ;; esac; done
[ "$inside" = 1 ] || { echo "wasmtrace: $cwd is not visible in Emscripten 6's root (only ${binds[*]}): run from there" >&2; exit 1; }
exec unshare --mount --propagation private -- /bin/bash -c '
  set -e
  sysroot=$1 cwd=$2 n=$3; shift 3
  for d in proc dev sys; do mount --rbind "/$d" "$sysroot/$d"; done
  for ((i = 0; i < n; i++)); do
    mkdir -p "$sysroot$1"; mount --bind "$1" "$sysroot$1"; shift
  done
  exec chroot "$sysroot" /usr/bin/env -u EM_CONFIG -u EM_CACHE -u NODE_PATH -C "$cwd" \
    PATH=/usr/local/bin:/usr/bin:/bin EMCC_SKIP_SANITY_CHECK=1 WASMTRACE_IN_EMSCRIPTEN6_ROOT=1 "$@"' enter "$sysroot" "$cwd" "${#binds[@]}" "${binds[@]}" "$@"
EOF
  chmod +x "$dest/enter"
  local tool
  for tool in emcc em++ emcmake emar emranlib emconfigure emmake emsize cmake ctest; do
    printf '#!/bin/sh\nexec "$(dirname "$0")/../enter" %s "$@"\n' "$tool" >"$dest/bin/$tool"
    chmod +x "$dest/bin/$tool"
  done
}
ready() { [ -f "$stamp" ] && [ -x "$sysroot/usr/bin/emcc" ] && [ -x "$sysroot/usr/bin/cmake" ]; }
if [ "${1:-}" = --env ]; then
  ready || die "not installed: run bash scripts/setup-emscripten6.sh"
  print_env
  exit 0
fi
if ready; then
  write_wrappers
  [ "${1:-}" = --quiet ] || usage
  exit 0
fi
[ "$(id -u)" = 0 ] || die "making and entering the root needs root (unshare, chroot): run as root"
start=$SECONDS

# 1. mmdebstrap, from the machine's own Debian sources.
if ! command -v mmdebstrap >/dev/null; then
  say "installing mmdebstrap (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null || die "apt-get install mmdebstrap failed"
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing (apt-get install debian-archive-keyring)"
# The Debian mirror: the machine's own, or WASMTRACE_DEBIAN_MIRROR.
. "$root/scripts/debian-mirror.sh"

# 2. The root. Check-Valid-Until off: the registry's sid Release file may
#    have expired (measured: apt refuses it otherwise).
say "making a Debian sid root with emscripten, cmake and make (~900 MB, ~3 min)"
rm -rf "$sysroot"
log=$dest/mmdebstrap.log
mmdebstrap --aptopt='Acquire::Check-Valid-Until "false"' --variant=apt \
  --include=emscripten,ca-certificates,cmake,make sid "$sysroot" \
  "deb [signed-by=$keyring] $mirror sid main" >"$log" 2>&1 || { tail -30 "$log" >&2; die "mmdebstrap failed ($log)"; }
version=$(chroot "$sysroot" emcc --version 2>/dev/null | sed -n '1s/.*) \([0-9][0-9.]*\).*/\1/p')
case "$version" in "$major".*) ;; *) die "sid's emscripten is '$version', not $major.x: set WASMTRACE_DEBIAN_MIRROR to a snapshot that has $major.x";; esac
write_wrappers

# 3. Prove it: compile and link a pthread program, through the wrappers.
check=$dest/check
rm -rf "$check"; mkdir -p "$check"
printf '#include <pthread.h>\nstatic void *run(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, run, 0); return pthread_join(t, 0); }\n' >"$check/hello.c"
(cd "$check" && "$dest/bin/emcc" -pthread -O1 hello.c -o hello.js) >"$check/emcc.log" 2>&1 ||
  { cat "$check/emcc.log" >&2; die "emcc $version cannot build a pthread program"; }
echo "$version" >"$stamp"
say "installed Emscripten $version in $((SECONDS - start)) s ($(du -sh "$sysroot" | cut -f1) on disk)"
usage
