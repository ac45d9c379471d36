#!/usr/bin/env bash
# Installs what a third party needs to build a backend: the ABI header as
# PREFIX/include/waihost/wai_backend.h and PREFIX/lib/pkgconfig/waihost-backend.pc, so that
#   cc $(pkg-config --cflags waihost-backend) -shared -fPIC -o libWaiX.so x.c
# works (docs/backend-abi.md §11.1).
# Usage: [DESTDIR=STAGE] scripts/install-abi.sh PREFIX
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/install-common.sh"
prefix="$(install_prefix install-abi "$1")"
dest="$(install_root install-abi "$prefix")"

header="$root/Sources/BackendABI/include/wai_backend.h"
template="$root/Sources/BackendABI/waihost-backend.pc.in"
version="$(header_version install-abi "$header" WAI_ABI)"

install -d "$dest/include/waihost" "$dest/lib/pkgconfig"
install -m 0644 "$header" "$dest/include/waihost/wai_backend.h"
pc="$dest/lib/pkgconfig/waihost-backend.pc"
install_pc "$template" "$pc" "$prefix" "$version"
echo "installed $prefix/include/waihost/wai_backend.h" >&2
echo "installed $pc (ABI $version)" >&2
