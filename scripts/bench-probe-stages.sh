#!/usr/bin/env bash
# Where a cold probe's time goes (docs/probe.md §8), not a test: runs `waihost probe --fresh`
# on the installed backends, timestamps its progress lines and prints, per unit, the wall
# time from each stage's line to the unit's next line (the last stage of a unit runs until
# its timing starts, after every unit's exactness probe), and the run's CPU time.
# Usage: scripts/bench-probe-stages.sh [PLUGIN_DIR] [WAIHOST]   (release build)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
plugins="${1:-plugins.d}"
bin="${2:-}"
if [ -z "$bin" ]; then
  scripts/build-release.sh >/dev/null
  bin="$(swift build -c release --show-bin-path)/waihost"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
grep -m1 'model name' /proc/cpuinfo
python3 - "$bin" "$plugins" "$tmp/cache" <<'PY'
import os, sys
sys.path.insert(0, "scripts")
from probe_stages import probe, table
waihost, plugins, cache = sys.argv[1:4]
wall, user, system, dur = probe(waihost, plugins, ["--fresh"], dict(os.environ, WAIHOST_CACHE_DIR=cache), check=False)
print(f"cold probe: {wall:.2f} s wall, {user + system:.2f} s CPU (user {user:.2f}, system {system:.2f})")
table(dur)
PY
