#!/usr/bin/env bash
# Installs a modern Emscripten (3.1.69) beside the system's 3.1.6, under
# .deps/emscripten-3.1.69/, for the second toolchain of the test matrix.
#
#   bash scripts/setup-emscripten.sh          install (quick when present)
#   bash scripts/setup-emscripten.sh --env    print only the line to eval
#   bash scripts/setup-emscripten.sh --quiet  say nothing when present
#
# Where it comes from (docs/GUIDE.md, "Emscripten versions"): Debian trixie's
# `emscripten` package is Architecture: all and runs on bookworm's own
# clang-19/lld-19/llvm-19. Its .deb and trixie's binaryen 120 (which needs
# glibc 2.38, so it runs through trixie's own loader and libraries unpacked
# beside it) are fetched with a private apt state under the install dir: no
# source entry is added to the system, and no trixie package is ever
# installed into it. The only system change is `apt-get install clang-19
# lld-19 llvm-19` from the machine's own (bookworm) sources.
#
# Use it: `eval "$(bash scripts/setup-emscripten.sh --env)"` puts its emcc
# first on PATH (with its own EM_CONFIG); `bash scripts/build.sh wasm-next`
# does that itself and builds build/wasm-3.1.69.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=3.1.69
pkg_version="3.1.69+dfsg-3"
binaryen_version="120-4"
dest=${WASMTRACE_EMSCRIPTEN_DIR:-$root/.deps/emscripten-$version}
say() { echo "wasmtrace setup-emscripten: $*" >&2; }
die() { say "$*"; exit 1; }
# --env only looks (scripts/setup.sh --dry-run asks it): nothing to create.
[ "${1:-}" != --env ] || [ -d "$dest" ] || die "not installed: run bash scripts/setup-emscripten.sh"
# Physical path: .deps may be a symlink shared by several checkouts, and the
# config written below must not depend on the checkout that wrote it.
mkdir -p "$dest"
dest=$(cd "$dest" && pwd -P)
llvm=/usr/lib/llvm-19/bin

print_env() {
  printf 'export EM_CONFIG=%q PATH=%q:"$PATH"\n' "$dest/emscripten.config" "$dest/pkg/usr/share/emscripten"
}
usage() {
  say "Emscripten $version is ready in $dest"
  say "  build the second wasm tree:  bash scripts/build.sh wasm-next   (-> build/wasm-$version)"
  say "  use its emcc in this shell:  eval \"\$(bash scripts/setup-emscripten.sh --env)\""
  say "  then test against it:        WASMTRACE_WASM_BUILD=build/wasm-$version bash scripts/test.sh toolchain"
  say "  (bash scripts/test.sh runs the 3.1.6 suite and then that, on its own)"
}

# Our own EM_CONFIG (rewritten on every run: cheap, and follows the paths).
write_config() {
  {
    echo "# Written by wasmtrace's scripts/setup-emscripten.sh."
    echo "LLVM_ROOT = '$llvm'"
    echo "BINARYEN_ROOT = '$dest/binaryen'"
    echo "NODE_JS = '$(command -v node)'"
    echo "CACHE = '$dest/cache'"
    echo "FROZEN_CACHE = False"
  } >"$dest/emscripten.config"
}
ready() {
  [ -f "$dest/.complete-$pkg_version" ] && [ -x "$llvm/clang" ] && [ -x "$llvm/wasm-ld" ] &&
    [ -x "$dest/pkg/usr/share/emscripten/emcc" ]
}
if [ "${1:-}" = --env ]; then
  ready || die "not installed: run bash scripts/setup-emscripten.sh"
  print_env
  exit 0
fi
if ready; then
  write_config
  [ "${1:-}" = --quiet ] || usage
  exit 0
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root (or sudo) to run: $*"; fi
}
start=$SECONDS

# 1. LLVM 19 from the machine's own Debian release (bookworm ships 19.1.7).
if [ ! -x "$llvm/clang" ] || [ ! -x "$llvm/wasm-ld" ] || [ ! -x "$llvm/llvm-ar" ]; then
  say "installing clang-19 lld-19 llvm-19 from the system's Debian sources"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-19 lld-19 llvm-19 >/dev/null ||
    die "apt-get install clang-19 lld-19 llvm-19 failed (Debian 12 or newer needed)"
fi
command -v node >/dev/null || die "node not found"
[ -f /usr/share/nodejs/acorn/package.json ] || [ -n "${WASMTRACE_ACORN_DIR:-}" ] ||
  die "acorn not found in /usr/share/nodejs (apt-get install node-acorn) or set WASMTRACE_ACORN_DIR"

# 2. The .debs, through a private apt state (lists and cache inside $dest):
#    nothing under /etc/apt changes.
mkdir -p "$dest"
work="$dest/apt"
rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources" "$work/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing (apt-get install debian-archive-keyring)"
# The Debian mirror: the machine's own, or WASMTRACE_DEBIAN_MIRROR.
. "$root/scripts/debian-mirror.sh"
cat >"$work/sources/trixie.sources" <<EOF
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: $keyring
EOF
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/sources"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null"
  -o "APT::Sandbox::User=root")
say "downloading emscripten $pkg_version and binaryen $binaryen_version (Debian trixie, ~250 MB)"
apt-get "${apt_opts[@]}" update -qq >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; die "apt-get update (trixie lists) failed"; }
# The measured revisions first; if trixie has moved on, what it has now,
# as long as it is still Emscripten $version.
(cd "$work/debs" && { apt-get "${apt_opts[@]}" download -qq \
  "emscripten=$pkg_version" "binaryen=$binaryen_version" libc6/trixie libstdc++6/trixie libgcc-s1/trixie ||
  apt-get "${apt_opts[@]}" download -qq emscripten binaryen libc6/trixie libstdc++6/trixie libgcc-s1/trixie; }) \
  >"$work/download.log" 2>&1 || { cat "$work/download.log" >&2; die "download failed (set WASMTRACE_DEBIAN_MIRROR to a mirror or snapshot that has trixie)"; }
got=$(dpkg-deb -f "$work/debs"/emscripten_*.deb Version)
case "$got" in "$version"+*|"$version"-*) ;; *) die "trixie's emscripten is now $got, not $version: set WASMTRACE_DEBIAN_MIRROR to a snapshot";; esac

# 3. Unpack. Emscripten runs from pkg/usr/share/emscripten; binaryen's
#    programs from binaryen/ through wrappers that start them with trixie's
#    loader and libraries (bookworm's glibc 2.36 is too old for them).
say "unpacking"
rm -rf "$dest/pkg" "$dest/binaryen" "$dest/cache"
dpkg-deb -x "$work/debs"/emscripten_*.deb "$dest/pkg"
mkdir -p "$dest/binaryen/root" "$dest/binaryen/bin"
for deb in "$work/debs"/binaryen_*.deb "$work/debs"/libc6_*.deb "$work/debs"/libstdc++6_*.deb "$work/debs"/libgcc-s1_*.deb; do
  dpkg-deb -x "$deb" "$dest/binaryen/root"
done
broot="$dest/binaryen/root"
loader=
for cand in usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 usr/lib64/ld-linux-x86-64.so.2; do
  if [ -e "$broot/$cand" ]; then loader=$cand; break; fi
done
[ -n "$loader" ] || die "trixie's loader not found in the unpacked libc6"
# Paths relative to the wrapper: the directory may be moved.
for tool in "$broot"/usr/bin/wasm*; do
  name=$(basename "$tool")
  {
    echo '#!/bin/sh'
    echo 'r=$(dirname "$0")/../root'
    echo "exec \"\$r/$loader\" --library-path \"\$r/usr/lib/x86_64-linux-gnu:\$r/lib/x86_64-linux-gnu\" \"\$r/usr/bin/$name\" \"\$@\""
  } >"$dest/binaryen/bin/$name"
  chmod +x "$dest/binaryen/bin/$name"
done
"$dest/binaryen/bin/wasm-opt" --version >/dev/null || die "binaryen does not run through trixie's loader"

# 4. acorn in a node_modules above the emscripten directory (its JS
#    optimizer is an ES module: NODE_PATH does not reach it).
mkdir -p "$dest/node_modules"
ln -sfn "${WASMTRACE_ACORN_DIR:-/usr/share/nodejs/acorn}" "$dest/node_modules/acorn"
# Its bundled terser is a CommonJS file: without a package.json of its own
# Node would take the one of the project above .deps ("type": "module").
echo '{"type": "commonjs"}' >"$dest/package.json"

# 5. A writable cache seeded with the package's prebuilt system libraries
#    (pthread and LTO variants included), and our own EM_CONFIG.
# Hard links: the package copy is ours too, and only the cache dir is used.
cp -al "$dest/pkg/usr/share/emscripten/cache" "$dest/cache"
write_config
rm -rf "$work/debs" "$work/cache"

# 6. Prove it: compile and link a pthread program.
check="$dest/check"
rm -rf "$check"; mkdir -p "$check"
printf '#include <pthread.h>\nstatic void *run(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, run, 0); return pthread_join(t, 0); }\n' >"$check/hello.c"
(eval "$(print_env)" && emcc -pthread -O1 "$check/hello.c" -o "$check/hello.js") >"$check/emcc.log" 2>&1 ||
  { cat "$check/emcc.log" >&2; die "emcc $version cannot build a pthread program"; }
touch "$dest/.complete-$pkg_version"
say "installed in $((SECONDS - start)) s ($(du -sh "$dest" | cut -f1) on disk)"
usage
