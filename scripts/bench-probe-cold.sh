#!/usr/bin/env bash
# What a probe costs by how cold the machine is (docs/probe.md §8), not a test: with every
# driver cache empty (XDG_CACHE_HOME a new folder: Mesa's shader cache, PoCL's kernel cache and
# the OpenCL backend's program cache all live under it) `waihost probe --fresh`; then
# `--fresh` again with those caches warm (no WaiHost probe cache: every unit probed and timed);
# then the warm probe (`waihost probe`, every verdict and listing cached). Per unit and stage
# from the probe's own progress lines, as scripts/bench-probe-stages.sh does, and the CPU time.
# Usage: scripts/bench-probe-cold.sh [PLUGIN_DIR] [WAIHOST] [WARM_FRESH_RUNS] [WARM_RUNS]
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
echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$bin" "$plugins" "$tmp" "${3:-3}" "${4:-30}" <<'PY'
import os, statistics, subprocess, sys, time
sys.path.insert(0, "scripts")
from probe_stages import probe as probe_run, table as stage_table
waihost, plugins, tmp, fresh_runs, warm_runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
env = {k: v for k, v in os.environ.items() if k not in ("WAIHOST_CACHE_DIR", "WAI_OPENCL_CACHE_DIR", "POCL_CACHE_DIR",
                                                         "MESA_SHADER_CACHE_DIR", "MESA_GLSL_CACHE_DIR")}
env["XDG_CACHE_HOME"] = tmp + "/xdg"
os.makedirs(env["XDG_CACHE_HOME"])

def probe(label, args):
    wall, user, system, dur = probe_run(waihost, plugins, args, env, label=label)
    return wall, user + system, dur

def table(dur):
    stage_table(dur, indent="  ")

wall, c, dur = probe("cold", ["--fresh"])
print(f"cold probe, every driver cache empty (--fresh): {wall:.2f} s wall, {c:.2f} s CPU")
table(dur)
walls, cpus = [], []
for k in range(fresh_runs):
    wall, c, dur = probe("warm drivers", ["--fresh"])
    walls.append(wall); cpus.append(c)
print(f"driver caches warm, no probe cache (--fresh), {fresh_runs} runs: median {statistics.median(walls):.2f} s wall "
      f"(min {min(walls):.2f}), median {statistics.median(cpus):.2f} s CPU; the last run:")
table(dur)
walls, cpus = [], []
for k in range(warm_runs):
    wall, c, _ = probe("warm", [])
    walls.append(wall * 1000); cpus.append(c * 1000)
print(f"warm probe (every verdict and listing cached), {warm_runs} runs: median {statistics.median(walls):.1f} ms wall "
      f"(min {min(walls):.1f}), median {statistics.median(cpus):.1f} ms CPU")
walls = []
for k in range(warm_runs):
    t0 = time.perf_counter()
    subprocess.run([waihost, "version"], check=True, stdout=subprocess.DEVNULL, env=env)
    walls.append((time.perf_counter() - t0) * 1000)
print(f"waihost version, same run, {warm_runs} runs: median {statistics.median(walls):.1f} ms wall (min {min(walls):.1f})")
PY
