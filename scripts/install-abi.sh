#!/usr/bin/env bash
# Installs what a third party needs to build a backend: the ABI header as
# PREFIX/include/waihost/wai_backend.h and PREFIX/lib/pkgconfig/waihost-backend.pc, so that
#   cc $(pkg-config --cflags waihost-backend) -shared -fPIC -o libWaiX.so x.c
# works (docs/backend-abi.md §11.1).
# Usage: scripts/install-abi.sh PREFIX
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$1"
case "$prefix" in
  /*) ;;
  *) prefix="$(pwd)/$prefix" ;;
esac
# pkg-config has no quoting that every consumer honours, and sed below uses '|'.
if [[ "$prefix" =~ [[:space:]\|\&\\\"\'\$] ]]; then
  echo "install-abi: prefix '$prefix' contains white space or one of | & \\ \" ' \$; pkg-config files cannot carry it" >&2
  exit 2
fi

header="$root/Sources/BackendABI/include/wai_backend.h"
template="$root/Sources/BackendABI/waihost-backend.pc.in"
# The package version is the ABI version, read from the header so the two cannot drift.
major="$(sed -n 's/^#define WAI_ABI_MAJOR \([0-9][0-9]*\)u$/\1/p' "$header")"
minor="$(sed -n 's/^#define WAI_ABI_MINOR \([0-9][0-9]*\)u$/\1/p' "$header")"
if [ -z "$major" ] || [ -z "$minor" ]; then
  echo "install-abi: cannot read WAI_ABI_MAJOR/WAI_ABI_MINOR from $header" >&2
  exit 1
fi

install -d "$prefix/include/waihost" "$prefix/lib/pkgconfig"
install -m 0644 "$header" "$prefix/include/waihost/wai_backend.h"
pc="$prefix/lib/pkgconfig/waihost-backend.pc"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$major.$minor|g" "$template" > "$pc.tmp"
mv "$pc.tmp" "$pc"
chmod 0644 "$pc"
echo "installed $prefix/include/waihost/wai_backend.h" >&2
echo "installed $pc (ABI $major.$minor)" >&2
