#!/usr/bin/env bash
# Host overhead of a wai.neural.int_hyper decode on the CPU unit (issue 15 items 7 and 8,
# issue 9 part 3), not a test: for each picture size, `waihost bench` with spot checks off
# and at the default policy (every run), alternated ROUNDS times so both see the same
# machine, and for each the median whole decode against the median graph time (h_s + g_s).
# Usage: scripts/bench-host-overhead.sh [ROUNDS] [RUNS] [WAIHOST]   (release build)
#   ROUNDS  alternations of off/every per size (default 3)
#   RUNS    timed decodes per bench call (default 5)
#   WAIHOST the binary to measure (default .build/release/waihost; give an older build's
#           copy, with its waihost-unit-worker beside it, to compare two in one run)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
rounds="${1:-3}"
runs="${2:-5}"
bin="${3:-}"
if [ -z "$bin" ]; then
  scripts/build-release.sh >/dev/null
  bin="$(swift build -c release --show-bin-path)/waihost"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
# The backend is this tree's release build whichever host binary is measured.
cp .build/release/libWaiCPUBackend.so "$tmp/plugins/"
export WAIHOST_CACHE_DIR="${WAIHOST_BENCH_CACHE:-$tmp/cache}"
grep -m1 'model name' /proc/cpuinfo

python3 - "$bin" "$tmp/plugins" "$rounds" "$runs" <<'PY'
import json, statistics, subprocess, sys
waihost, plugins, rounds, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def bench(size, policy):
    out = subprocess.run([waihost, "bench", "--unit", "cpu:0", "--size", size, "--runs", runs, "--no-reference",
                          "--json", "--spot-check", policy, "--plugin-dir", plugins],
                         check=True, capture_output=True).stdout
    return json.loads(out)["unit"]["median"]
for size in ["768x512", "1920x1080"]:
    got = {"off": [], "every": []}
    for _ in range(rounds):
        for policy in ["off", "every"]:
            got[policy].append(bench(size, policy))
    med = {p: {k: statistics.median(r[k] for r in got[p]) for k in got[p][0]} for p in got}
    off, every = med["off"], med["every"]
    graph = off["h_s_ms"] + off["g_s_ms"]
    print(f"{size}: spot checks off: whole decode {off['total_ms']:.1f} ms, graphs (h_s + g_s) {graph:.1f} ms, "
          f"entropy {off['entropy_ms']:.1f} ms, rest {off['total_ms'] - graph - off['entropy_ms']:.1f} ms; "
          f"whole / graphs = {off['total_ms'] / graph:.3f}")
    print(f"{size}: spot checks every run: whole decode {every['total_ms']:.1f} ms "
          f"(h_s {every['h_s_ms']:.1f}, g_s {every['g_s_ms']:.1f}); "
          f"spot-check overhead = {every['total_ms'] / off['total_ms'] - 1:+.1%} of the decode")
    # Robust to a loaded machine: the windows' own CPU time (all threads) and the decode's
    # wait for them, against the decode with checks off.
    if "spot_check_cpu_ms" in every:
        print(f"{size}: spot checks: {every['spot_check_cpu_ms']:.2f} ms of CPU per decode "
              f"({every['spot_check_cpu_ms'] / off['total_ms']:.1%} of the decode's time with checks off), "
              f"the decode waited {every['spot_check_wait_ms']:.2f} ms for them")
PY
