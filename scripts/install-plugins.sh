#!/usr/bin/env bash
# Copies the backend shared objects built by SwiftPM into plugins.d/ (docs/backend-abi.md §1),
# and the unit worker every plugin runs in (waihost-unit-worker, docs/probe.md §3) to where
# the host finds it without `waihost` on PATH.
# Usage: scripts/install-plugins.sh [debug|release] [DEST] [WORKER_DIR]
#   DEST        the plugin folder (default plugins.d, the repository's own)
#   WORKER_DIR  where the worker goes; default: PREFIX/lib/waihost when DEST is
#               PREFIX/lib/waihost/plugins.d (the installed layout, where `make install`
#               puts it too), else none: in .build/CONFIG the worker already lies beside
#               the programs and libraries that look for it.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
dest="${2:-plugins.d}"
worker_dir="${3:-}"
worker=".build/$config/waihost-unit-worker"
[ -x "$worker" ] || { echo "install-plugins: $worker is missing (run swift build -c $config first)" >&2; exit 1; }
mkdir -p "$dest"
shopt -s nullglob
found=0
for so in ".build/$config"/libWai*Backend.so; do
  install -m 0755 "$so" "$dest/$(basename "$so")"
  echo "installed $dest/$(basename "$so")" >&2
  found=1
done
[ "$found" -eq 1 ] || { echo "install-plugins: no backend found in .build/$config (run swift build -c $config first)" >&2; exit 1; }

if [ -z "$worker_dir" ]; then
  case "$(cd "$dest" && pwd -P)" in
    */lib/waihost/plugins.d) worker_dir="$(cd "$dest/.." && pwd -P)" ;;
  esac
fi
if [ -n "$worker_dir" ]; then
  mkdir -p "$worker_dir"
  install -m 0755 "$worker" "$worker_dir/waihost-unit-worker"
  echo "installed $worker_dir/waihost-unit-worker" >&2
else
  echo "unit worker: $worker (beside the programs and libraries of .build/$config, where the host finds it)" >&2
fi
