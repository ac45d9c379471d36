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
import collections, os, re, resource, subprocess, sys, time
waihost, plugins, cache = sys.argv[1:4]
env = dict(os.environ, WAIHOST_CACHE_DIR=cache)
t0 = time.perf_counter()
p = subprocess.Popen([waihost, "probe", "--fresh", "--plugin-dir", plugins], stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, text=True, env=env)
last, dur = {}, collections.defaultdict(dict)
for line in p.stderr:
    t = time.perf_counter() - t0
    m = re.match(r"(probing|timing) (\S+)(?: .*?stage (\w+))?", line.strip())
    if not m:
        continue
    kind, unit, stage = m.groups()
    stage = stage or ("calibration" if kind == "timing" else "start")
    if unit in last:
        s, ts = last[unit]
        dur[unit][s] = t - ts
    last[unit] = (stage, t)
p.wait()
t = time.perf_counter() - t0
for unit, (s, ts) in last.items():
    dur[unit][s] = t - ts
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"cold probe: {t:.2f} s wall, {ru.ru_utime + ru.ru_stime:.2f} s CPU (user {ru.ru_utime:.2f}, system {ru.ru_stime:.2f})")
stages = ["start", "semantics", "arithmetic", "widths", "parameters", "channels", "decode", "repetition", "scale", "calibration"]
print("unit".ljust(10) + "".join(s[:10].rjust(11) for s in stages))
for unit in sorted(dur):
    print(unit.ljust(10) + "".join((f"{dur[unit][s]:.2f}" if s in dur[unit] else "-").rjust(11) for s in stages))
PY
