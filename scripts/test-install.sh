#!/usr/bin/env bash
# Tests (run by scripts/test.sh) that WaiHost installs and runs as a system library
# (docs/configuration.md §5), with the Swift toolchain's folder hidden:
#   tree  make-install layout into a DESTDIR; the installed `waihost probe`, `waihost decode`
#         of samples/photo.wai to its golden SHA-256, a C program built with
#         `pkg-config --cflags --libs waihost` decoding it too, a configuration file obeyed
#         and a bad one refused with file:line, `waihost audit serve` answering /health
#         on 127.0.0.1 and on ::1, and (as root) with libsqlite3 unloadable, `decode`
#         still running and `audit serve` refused naming the library.
#   deb   scripts/package-deb.sh; the package's Depends; installed with dpkg into a scratch
#         root (dpkg --root, holding a copy of this machine's dpkg database, so Depends are
#         checked against the packages really installed here, without touching /usr), probed,
#         decoded to the golden SHA-256, removed.
# Both reuse the static release build (scripts/build-release.sh, as scripts/setup.sh makes it).
# Hiding: as root, a private mount namespace (unshare -m) with an empty folder bound over
# the toolchain's usr/; otherwise the programs run with PATH and LD_LIBRARY_PATH lacking it,
# and ldd must show no toolchain path.
# Usage: scripts/test-install.sh tree|deb
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. scripts/env.sh
mode="${1:-}"
case "$mode" in tree|deb) ;; *) echo "usage: $0 tree|deb" >&2; exit 2 ;; esac

toolchain="$(dirname "$(dirname "$(command -v swift)")")"   # …/usr
tmp="$(mktemp -d)"
serve_pid=""
cleanup() {
  [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "test-install $mode: FAIL: $*" >&2; exit 1; }
note() { echo "test-install $mode: $*" >&2; }

scripts/build-release.sh >&2 || fail "the release build failed"

mkdir -p "$tmp/empty" "$tmp/home"
hiding=env
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then hiding=namespace; fi
note "toolchain $toolchain hidden by $hiding"
# hidden [NAME=VALUE…] CMD…: CMD with the toolchain out of reach, a clean environment plus
# the NAME=VALUEs, and this test's probe cache (shared by the two cases: the installed
# plugins are the same files).
cache="$root/.build/test-install-cache"
# It execs: call it in a subshell — $(…), `&` (so $! is the program's own PID) or (…).
# With `emptied` set to a file's path (namespace only), an empty file is bound over that file too.
: > "$tmp/empty-file"
hidden() {
  local envs=(PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$tmp/home" WAIHOST_CACHE_DIR="$cache")
  while [[ "${1:-}" =~ ^[A-Z_]+= ]]; do envs+=("$1"); shift; done
  if [ $hiding = namespace ]; then
    exec unshare -m sh -c 'mount --bind "$1" "$2" && [ -z "$(ls -A "$2")" ] &&
                           { [ -z "$3" ] || mount --bind "$4" "$3"; } && shift 4 && exec "$@"' \
      hide "$tmp/empty" "$toolchain" "${emptied:-}" "$tmp/empty-file" env -i "${envs[@]}" "$@"
  else
    exec env -i "${envs[@]}" "$@"
  fi
}

golden="$(python3 -c 'import json; print(json.load(open("samples/photo.json"))["sha256"])')"

# check_installed PREFIX_DIR LIBDIR: probe, decode and the C program against one installed tree.
check_installed() {
  local p="$1" cdecode="$2" out
  local elves=("$p/bin/waihost" "$p/lib/libwaihost.so.1" "$p/lib/waihost/waihost-unit-worker" "$p"/lib/waihost/plugins.d/*.so)
  out="$(hidden LD_LIBRARY_PATH="$p/lib" ldd "${elves[@]}" 2>&1)" || fail "ldd: $out"
  if grep -q "$toolchain\|not found" <<<"$out"; then fail "an installed file needs the toolchain or a missing library: $out"; fi

  out="$(hidden "$p/bin/waihost" probe 2>&1)" || fail "installed waihost probe failed: $out"
  echo "$out" >&2
  grep -Eq '^cpu:0 .* accepted\*? ' <<<"$out" || fail "waihost probe shows no accepted cpu:0 from $p/lib/waihost/plugins.d"

  (hidden "$p/bin/waihost" decode "$root/samples/photo.wai" -o "$tmp/photo.png" --report "$tmp/report.json") >&2 \
    || fail "installed waihost decode samples/photo.wai failed"
  python3 - "$tmp/report.json" "$golden" <<'PY' || fail "the installed CLI's decode is not the golden picture"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["sha256"] == sys.argv[2], (r["sha256"], sys.argv[2])
assert r["backend"] != "reference", "decoded on the reference: no plugin unit was found"
print("cli decode:", r["backend"], r.get("unit_index", r.get("unit")), r["sha256"], file=sys.stderr)
PY

  # The C program finds plugins and worker beside the installed library, and the shipped model set.
  out="$(hidden LD_LIBRARY_PATH="$p/lib" "$cdecode" -j "$p/share/waihost/models/q2" "$root/samples/photo.wai")" \
    || fail "the C program linked against the installed libwaihost failed: $out"
  python3 - "$golden" "$out" <<'PY' || fail "the C program's decode is not the golden picture: $out"
import json, sys
r = json.loads(sys.argv[2])
assert r["sha256"] == sys.argv[1], (r["sha256"], sys.argv[1])
assert r["backend"] != "reference", "decoded on the reference: no plugin unit was found"
print("c decode:", r["backend"], r["sha256"], file=sys.stderr)
PY
}

# build_c PKG_CONFIG_DIR SYSROOT: Examples/CDecode through pkg-config, as a user builds it.
build_c() {
  PKG_CONFIG_PATH="$1" PKG_CONFIG_SYSROOT_DIR="$2" sh -c \
    'cc -std=c11 -O2 -Wall -Werror -o "$0" Examples/CDecode/cdecode.c $(pkg-config --cflags --libs waihost)' "$tmp/cdecode" \
    || fail "Examples/CDecode does not build with pkg-config --cflags --libs waihost"
}

if [ "$mode" = tree ]; then
  stage="$tmp/stage"
  DESTDIR="$stage" scripts/install.sh /usr/local >&2 || fail "DESTDIR=$stage scripts/install.sh /usr/local failed"
  p="$stage/usr/local"
  for f in bin/waihost lib/libwaihost.so.1 lib/libwaihost.so lib/waihost/waihost-unit-worker \
           lib/waihost/plugins.d/libWaiCPUBackend.so lib/waihost/plugins.d/libWaiVulkanBackend.so \
           lib/waihost/plugins.d/libWaiOpenCLBackend.so include/waihost/waihost.h include/waihost/wai_backend.h \
           lib/pkgconfig/waihost.pc lib/pkgconfig/waihost-backend.pc lib/systemd/system/waihost-collector.service \
           share/waihost/models/q2/manifest.json share/doc/waihost/backend-abi.md share/doc/waihost/integer-ops.md \
           share/doc/waihost/probe.md share/doc/waihost/c-api.md share/doc/waihost/configuration.md share/doc/waihost/LICENSE; do
    [ -e "$p/$f" ] || fail "make install did not install $f"
  done
  [ "$(readlink "$p/lib/libwaihost.so")" = libwaihost.so.1 ] || fail "lib/libwaihost.so is not a link to libwaihost.so.1"
  grep -qx 'prefix=/usr/local' "$p/lib/pkgconfig/waihost.pc" || fail "waihost.pc does not name the prefix /usr/local (DESTDIR leaked?)"
  grep -qx 'ExecStart=/usr/local/bin/waihost audit serve .*' "$p/lib/systemd/system/waihost-collector.service" \
    || fail "the collector's unit does not start /usr/local/bin/waihost"
  # systemd's own checker on the installed unit (its ExecStart pointed at the staged binary).
  if command -v systemd-analyze >/dev/null; then
    mkdir -p "$tmp/unit"
    sed "s|/usr/local/bin/waihost|$p/bin/waihost|g" "$p/lib/systemd/system/waihost-collector.service" > "$tmp/unit/waihost-collector.service"
    out="$(systemd-analyze verify --man=no "$tmp/unit/waihost-collector.service" 2>&1)" || fail "systemd-analyze verify: $out"
  else
    note "no systemd-analyze here: the collector's unit file was not verified by systemd"
  fi
  if [ -e "$p/share/man/man1/waihost.1" ]; then
    [ -s "$p/share/bash-completion/completions/waihost" ] || fail "man pages installed but no bash completion"
  else
    note "no man pages: this waihost has no 'generate' command (install says so)"
  fi
  du -sh "$p" >&2
  build_c "$p/lib/pkgconfig" "$stage"
  check_installed "$p" "$tmp/cdecode"

  # The configuration files (docs/configuration.md): a user file hides the CPU backend for
  # the installed CLI and makes the C program's default unit the reference; a bad line is
  # refused naming file and line.
  mkdir -p "$tmp/config/waihost"
  printf '# test\nhide = cpu\n' > "$tmp/config/waihost/waihost.conf"
  out="$(hidden XDG_CONFIG_HOME="$tmp/config" "$p/bin/waihost" probe 2>&1)" || fail "probe with hide = cpu failed: $out"
  if grep -q '^cpu:' <<<"$out"; then fail "hide = cpu in the user's waihost.conf did not hide the CPU units: $out"; fi
  printf 'unit = reference\n' > "$tmp/config/waihost/waihost.conf"
  out="$(hidden XDG_CONFIG_HOME="$tmp/config" LD_LIBRARY_PATH="$p/lib" "$tmp/cdecode" -j "$p/share/waihost/models/q2" "$root/samples/photo.wai")" \
    || fail "the C program with unit = reference failed: $out"
  python3 -c 'import json,sys; r = json.loads(sys.argv[1]); assert r["backend"] == "reference" and r["sha256"] == sys.argv[2], r' "$out" "$golden" \
    || fail "unit = reference in waihost.conf not used by waihost_decode(…, NULL, …): $out"
  printf 'unit = best\nspot_check = sometimes\n' > "$tmp/config/waihost/waihost.conf"
  out="$(hidden XDG_CONFIG_HOME="$tmp/config" "$p/bin/waihost" probe 2>&1)"
  rc=$?
  [ $rc -eq 1 ] || fail "a bad waihost.conf line gave exit $rc, not 1: $out"
  grep -q "$tmp/config/waihost/waihost.conf:2: spot_check: invalid spot-check policy \"sometimes\"" <<<"$out" \
    || fail "the bad line is not named with file:line: $out"

  # The collector on both loopbacks.
  (hidden "$p/bin/waihost" keygen -o "$tmp/owner.key") >/dev/null 2>&1 || fail "waihost keygen failed"
  hidden "$p/bin/waihost" audit serve --db "sqlite:$tmp/audit.db" --key "$tmp/owner.key" --port 0 > "$tmp/serve.out" 2> "$tmp/serve.err" &
  serve_pid=$!
  for _ in $(seq 1 300); do [ -s "$tmp/serve.out" ] && break; kill -0 $serve_pid 2>/dev/null || break; sleep 0.1; done
  port="$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$tmp/serve.out" 2>/dev/null)" \
    || fail "waihost audit serve did not start: $(cat "$tmp/serve.err")"
  grep -q "\"listen\":\[\"127.0.0.1:$port\",\"\[::1\]:$port\"\]" "$tmp/serve.out" || fail "audit serve does not say it listens on both loopbacks: $(cat "$tmp/serve.out")"
  for url in "http://127.0.0.1:$port/health" "http://[::1]:$port/health"; do
    body="$(curl -gsS --max-time 30 "$url")" || fail "GET $url failed"
    [ "$body" = '{"status":"ok"}' ] || fail "GET $url answered $body"
  done
  kill -TERM $serve_pid
  wait $serve_pid || fail "audit serve did not stop cleanly on SIGTERM: $(cat "$tmp/serve.err")"
  serve_pid=""

  # Libraries loaded on first use (docs/architecture.md): with libsqlite3's file emptied (an
  # empty file bound over it in the namespace), every command that does not use it still
  # runs, and the one that does fails naming it.
  if [ $hiding = namespace ]; then
    sqlite="$(readlink -f "$(ldconfig -p | sed -n 's/^\tlibsqlite3\.so\.0 (libc6,x86-64) => //p' | head -n 1)")"
    [ -f "$sqlite" ] || fail "ldconfig names no libsqlite3.so.0 on this machine"
    out="$(emptied="$sqlite"; hidden "$p/bin/waihost" decode "$root/samples/photo.wai" -o "$tmp/photo2.png" 2>&1)" \
      || fail "waihost decode failed with libsqlite3 unloadable: $out"
    out="$(emptied="$sqlite"; hidden "$p/bin/waihost" audit serve --db "sqlite:$tmp/audit2.db" --key "$tmp/owner.key" --port 0 2>&1)"
    rc=$?
    [ $rc -eq 1 ] || fail "audit serve with libsqlite3 unloadable gave exit $rc, not 1: $out"
    grep -q "cannot open database sqlite:.*: libsqlite3.so.0 could not be loaded: .*/libsqlite3.so.0: " <<<"$out" \
      || fail "audit serve with libsqlite3 unloadable does not name the library: $out"
    note "libsqlite3 unloadable: decode ran; audit serve refused: $out"
  else
    note "not root: the run without libsqlite3 was skipped"
  fi
  note "pass (installed tree, toolchain hidden by $hiding)"
  exit 0
fi

# deb
deb="$(DEB_COMPRESSION=gzip scripts/package-deb.sh "$tmp/deb")" || fail "scripts/package-deb.sh failed"
control="$(dpkg-deb -f "$deb")"
echo "$control" >&2
depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libcurl4 libmicrohttpd12 libssl3 libsodium23 libpng16-16 libsqlite3-0 libpq5 libc6; do
  grep -Eq "(^|, )$lib( |,|$)" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
if grep -Eq 'swift|foundation' <<<"$depends"; then fail "Depends names a Swift runtime package: $depends"; fi
ls -la "$deb" >&2

droot="$tmp/root"
mkdir -p "$droot/var/lib/dpkg/info" "$droot/var/lib/dpkg/updates" "$droot/var/lib/dpkg/triggers"
cp /var/lib/dpkg/status "$droot/var/lib/dpkg/status"
touch "$droot/var/lib/dpkg/available"
# dpkg_root ARGS…: dpkg on the scratch root, without its warnings about the copied
# database's packages (whose file lists are not there).
dpkg_root() {
  dpkg --root="$droot" --log=/dev/null "$@" 2>&1 | grep -v "files list file for package .* missing" >&2
  return "${PIPESTATUS[0]}"
}
dpkg_root -i "$deb" || fail "dpkg --root -i failed (Depends not met on this machine?)"
dpkg --root="$droot" -s waihost | grep -q '^Status: install ok installed' || fail "dpkg does not list waihost as installed"
build_c "$droot/usr/lib/pkgconfig" "$droot"
check_installed "$droot/usr" "$tmp/cdecode"
dpkg_root -r waihost || fail "dpkg --root -r waihost failed"
for f in usr/bin/waihost usr/lib/libwaihost.so.1 usr/lib/waihost/plugins.d/libWaiCPUBackend.so usr/include/waihost/waihost.h; do
  [ ! -e "$droot/$f" ] || fail "dpkg -r left $f"
done
note "pass (package installed, used and removed; toolchain hidden by $hiding)"
