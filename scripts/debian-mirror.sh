# Sourced by scripts/setup-emscripten.sh and scripts/setup-emscripten6.sh:
# sets `mirror` to the Debian mirror the machine's own sources use (their
# first deb822 or one-line entry for the main archive), or
# WASMTRACE_DEBIAN_MIRROR; calls `die` (the caller's) when there is none.
system_mirror() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '/^Types:.*deb( |$)/{d=1} /^URIs:/{ if (d) { print $2; exit } } /^$/{d=0}' "$f")
    case "$uri" in *security*|"") ;; *) echo "$uri"; return ;; esac
  done
  [ -f /etc/apt/sources.list ] && awk '$1=="deb" && $2 !~ /security/ { print ($2 ~ /^\[/ ? $3 : $2); exit }' /etc/apt/sources.list
}
mirror=${WASMTRACE_DEBIAN_MIRROR:-$(system_mirror)}
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt sources: set WASMTRACE_DEBIAN_MIRROR"
