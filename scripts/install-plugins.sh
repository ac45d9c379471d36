#!/usr/bin/env bash
# Copies the backend shared objects built by SwiftPM into plugins.d/ (docs/backend-abi.md §1).
# Usage: scripts/install-plugins.sh [debug|release] [DEST] [BIN_DIR]   (BIN_DIR: default .build/CONFIG)
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
dest="${2:-plugins.d}"
src="${3:-.build/$config}"
mkdir -p "$dest"
shopt -s nullglob
found=0
for so in "$src"/libWai*Backend.so; do
  install -m 0755 "$so" "$dest/$(basename "$so")"
  echo "installed $dest/$(basename "$so")" >&2
  found=1
done
[ "$found" -eq 1 ] || { echo "install-plugins: no backend found in $src (run swift build -c $config first)" >&2; exit 1; }
