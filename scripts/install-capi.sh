#!/usr/bin/env bash
# Installs the C API for programs that embed the host: PREFIX/include/waihost/waihost.h,
# PREFIX/lib/libwaihost.so.MAJOR (and the libwaihost.so link) and
# PREFIX/lib/pkgconfig/waihost.pc, so that
#   cc app.c $(pkg-config --cflags --libs waihost)
# works (docs/c-api.md §1). The library is SwiftPM's libWaiHostC.so (the product name
# "waihost" is the CLI's), taken from WAIHOST_BIN_DIR or `swift build --show-bin-path`;
# build it first with `swift build --product WaiHostC`.
# Usage: [DESTDIR=STAGE] scripts/install-capi.sh PREFIX
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/install-common.sh"
prefix="$(install_prefix install-capi "$1")"
dest="$(install_root install-capi "$prefix")"

header="$root/Sources/WaiHostCAPI/include/waihost.h"
template="$root/Sources/WaiHostCAPI/waihost.pc.in"
version="$(header_version install-capi "$header" WAIHOST_API)"
major="${version%%.*}"

bin="${WAIHOST_BIN_DIR:-}"
if [ -z "$bin" ]; then
  . "$root/scripts/env.sh"
  bin="$(cd "$root" && swift build --show-bin-path)"
fi
lib="$bin/libWaiHostC.so"
if [ ! -f "$lib" ]; then
  echo "install-capi: $lib is missing; build it first: swift build --product WaiHostC" >&2
  exit 1
fi

install -d "$dest/include/waihost" "$dest/lib/pkgconfig"
install -m 0644 "$header" "$dest/include/waihost/waihost.h"
# The library's SONAME is libwaihost.so.MAJOR (Package.swift): programs record that name.
install -m 0755 "$lib" "$dest/lib/libwaihost.so.$major"
ln -sfn "libwaihost.so.$major" "$dest/lib/libwaihost.so"
pc="$dest/lib/pkgconfig/waihost.pc"
install_pc "$template" "$pc" "$prefix" "$version"
echo "installed $prefix/include/waihost/waihost.h" >&2
echo "installed $prefix/lib/libwaihost.so.$major" >&2
echo "installed $pc (API $version)" >&2
