#!/usr/bin/env bash
# Copies the backend shared objects built by SwiftPM into plugins.d/ (docs/backend-abi.md §1),
# and the unit worker every plugin runs in (waihost-unit-worker, docs/probe.md §3) to where
# the host finds it without `waihost` on PATH.
# Usage: scripts/install-plugins.sh [debug|release] [DEST] [BIN_DIR]
#   DEST     the plugin folder (default plugins.d, the repository's own)
#   BIN_DIR  where the built backends and worker are (default .build/CONFIG)
# When DEST is PREFIX/lib/waihost/plugins.d (the installed layout, `make install`), the worker
# goes to PREFIX/lib/waihost; otherwise it stays in BIN_DIR, beside the programs and
# libraries of a SwiftPM build that look for it there.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
dest="${2:-plugins.d}"
src="${3:-.build/$config}"
worker="$src/waihost-unit-worker"
[ -x "$worker" ] || { echo "install-plugins: $worker is missing (run swift build -c $config first)" >&2; exit 1; }
mkdir -p "$dest"
shopt -s nullglob
found=0
for so in "$src"/libWai*Backend.so; do
  install -m 0755 "$so" "$dest/$(basename "$so")"
  echo "installed $dest/$(basename "$so")" >&2
  found=1
done
[ "$found" -eq 1 ] || { echo "install-plugins: no backend found in $src (run swift build -c $config first)" >&2; exit 1; }

case "$(cd "$dest" && pwd -P)" in
  */lib/waihost/plugins.d)
    worker_dir="$(cd "$dest/.." && pwd -P)"
    install -m 0755 "$worker" "$worker_dir/waihost-unit-worker"
    echo "installed $worker_dir/waihost-unit-worker" >&2 ;;
  *)
    echo "unit worker: $worker (beside the programs and libraries of $src, where the host finds it)" >&2 ;;
esac
