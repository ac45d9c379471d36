#!/usr/bin/env bash
# `make install`: installs WaiHost as a system library under PREFIX (docs/configuration.md §5):
#   bin/waihost                         the CLI
#   lib/libwaihost.so.1, libwaihost.so  the C API (scripts/install-capi.sh)
#   lib/waihost/waihost-unit-worker     the process every plugin runs in (docs/probe.md §3)
#   lib/waihost/plugins.d/*.so          the CPU, Vulkan and OpenCL backends
#   include/waihost/                    waihost.h and wai_backend.h (install-capi.sh, install-abi.sh)
#   lib/pkgconfig/waihost.pc, waihost-backend.pc
#   lib/systemd/system/waihost-collector.service
#   share/waihost/models/q1…q3, motion   the shipped trained model sets (int_hyper, int_motion)
#   share/man/man1/waihost*.1, share/bash-completion/completions/waihost
#   share/doc/waihost/                  the specs (docs/), README.md, LICENSE
# (The list and the layout's rules: docs/configuration.md §5.)
# DESTDIR stages everything under DESTDIR/PREFIX (for packagers); installed files name PREFIX.
# The files come from the static release build (scripts/build-release.sh), or from
# WAIHOST_BIN_DIR when set. Every installed ELF file is checked: no RUNPATH or RPATH, and no
# Swift runtime library among what it needs, so it runs without a Swift toolchain.
# Usage: [DESTDIR=STAGE] scripts/install.sh PREFIX
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: [DESTDIR=STAGE] $0 PREFIX" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/install-common.sh"
prefix="$(install_prefix install "$1")"
dest="$(install_root install "$prefix")"

bin="${WAIHOST_BIN_DIR:-}"
if [ -z "$bin" ]; then
  "$root/scripts/build-release.sh" >&2
  . "$root/scripts/env.sh"
  bin="$(cd "$root" && swift build -c release --show-bin-path)"
fi
for f in waihost waihost-unit-worker libWaiHostC.so; do
  [ -f "$bin/$f" ] || { echo "install: $bin/$f is missing; run scripts/build-release.sh first" >&2; exit 1; }
done

export WAIHOST_BIN_DIR="$bin"
"$root/scripts/install-capi.sh" "$prefix"
"$root/scripts/install-abi.sh" "$prefix"

install -d "$dest/bin" "$dest/lib/waihost/plugins.d"
install -m 0755 "$bin/waihost" "$dest/bin/waihost"
"$root/scripts/install-plugins.sh" release "$dest/lib/waihost/plugins.d" "$bin"

install -d "$dest/lib/systemd/system"
sed -e "s|@PREFIX@|$prefix|g" "$root/dist/systemd/waihost-collector.service.in" > "$dest/lib/systemd/system/waihost-collector.service.tmp"
mv "$dest/lib/systemd/system/waihost-collector.service.tmp" "$dest/lib/systemd/system/waihost-collector.service"
chmod 0644 "$dest/lib/systemd/system/waihost-collector.service"

for q in "$root"/samples/models/q* "$root"/samples/models/motion "$root"/samples/models/cond; do
  install -d "$dest/share/waihost/models/$(basename "$q")"
  install -m 0644 "$q"/* "$dest/share/waihost/models/$(basename "$q")/"
done

doc="$dest/share/doc/waihost"
install -d "$doc/capabilities"
install -m 0644 "$root"/docs/*.md "$root/README.md" "$root/LICENSE" "$doc/"
install -m 0644 "$root"/docs/capabilities/*.md "$doc/capabilities/"

# Man pages and completion come from the CLI's own table of commands (`waihost generate`).
man="$dest/share/man/man1"
completion="$dest/share/bash-completion/completions"
install -d "$man" "$completion"
set +e
generated="$("$dest/bin/waihost" generate man "$man" 2>&1)"
rc=$?
set -e
if [ $rc -eq 2 ] && grep -q "unknown command" <<<"$generated"; then
  rmdir -p --ignore-fail-on-non-empty "$man" "$completion" 2>/dev/null || true
  echo "install: man pages and bash completion skipped: this waihost has no 'generate' command" >&2
elif [ $rc -ne 0 ]; then
  echo "install: waihost generate man failed: $generated" >&2
  exit 1
else
  "$dest/bin/waihost" generate completion bash > "$completion/waihost.tmp"
  mv "$completion/waihost.tmp" "$completion/waihost"
  chmod 0644 "$completion/waihost" "$man"/waihost*.1
fi

# Debug sections off (symbols stay, for the workers' crash backtraces): a third of the size.
# WAIHOST_STRIP=0 keeps them. Nothing installed may lean on the Swift toolchain (or any
# RUNPATH: the libraries it needs are the system's, found by the dynamic linker).
bad=0
while IFS= read -r -d '' f; do
  [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] || continue
  [ "${WAIHOST_STRIP:-1}" = 0 ] || strip --strip-debug "$f"
  dyn="$(readelf -d "$f")"
  if grep -Eq '\((RUNPATH|RPATH)\)' <<<"$dyn"; then
    echo "install: $f has $(grep -E '\((RUNPATH|RPATH)\)' <<<"$dyn" | sed 's/.*: //')" >&2
    bad=1
  fi
  if grep -Eq 'NEEDED.*\[lib(swift|Foundation|dispatch|BlocksRuntime|_FoundationICU)' <<<"$dyn"; then
    echo "install: $f needs $(grep -Eo 'lib(swift|Foundation|dispatch|BlocksRuntime|_FoundationICU)[^]]*' <<<"$dyn" | tr '\n' ' ')(not statically linked)" >&2
    bad=1
  fi
done < <(find "$dest/bin" "$dest/lib" -type f -print0)
[ $bad -eq 0 ] || { echo "install: build with scripts/build-release.sh (static Swift standard library)" >&2; exit 1; }
echo "installed WaiHost under $dest (prefix $prefix)" >&2
