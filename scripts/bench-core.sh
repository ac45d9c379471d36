#!/usr/bin/env bash
# Benchmarks of the host core (issue 2), separate from the tests: cold and warm
# `waihost probe`, and each installed unit against the reference interpreter on the
# probe's calibration graph, as a ratio measured in the same run.
# Usage: scripts/bench-core.sh [RUNS]     (release build; backends from .build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
runs="${1:-10}"
scripts/build-release.sh >/dev/null
bin="$(swift build -c release --show-bin-path)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
cp "$bin"/libWai*Backend.so "$tmp/plugins/"
export WAIHOST_CACHE_DIR="$tmp/cache"

python3 - "$bin/waihost" "$tmp/plugins" "$runs" <<'PY'
import json, statistics, subprocess, sys, time
waihost, plugins, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])

def timed(args):
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000

probe = [waihost, "probe", "--plugin-dir", plugins]
cold = [timed(probe + ["--fresh"]) for _ in range(runs)]
warm = [timed(probe) for _ in range(runs)]
print(f"waihost probe, {runs} runs each: cold (--fresh) median {statistics.median(cold):.1f} ms "
      f"(min {min(cold):.1f}, max {max(cold):.1f}); warm (cached) median {statistics.median(warm):.1f} ms "
      f"(min {min(warm):.1f}, max {max(warm):.1f})")

units = json.loads(subprocess.run(probe + ["--json"], check=True, capture_output=True).stdout)["units"]
def calibration(selector, k):
    out = subprocess.run([waihost, "run-graph", "--calibration", "--unit", selector, "--runs", str(k),
                          "--json", "--plugin-dir", plugins], check=True, capture_output=True).stdout
    r = json.loads(out)
    return r["elapsed_ms"], r["outputs_sha256"]
ref_ms, ref_sha = calibration("reference", 3)
print(f"calibration graph: reference interpreter {ref_ms:.2f} ms (median of 3)")
for u in units:
    if u["state"] != "accepted":
        print(f"  {u['backend']} {u['device']}: {u['state']} ({u.get('reason', '')})")
        continue
    sel = f"{u['backend']}:{u['index']}"
    ms, sha = calibration(sel, 20)
    same = "identical" if sha == ref_sha else "DIFFERENT OUTPUT"
    print(f"  {sel} ({u['device']}): {ms:.2f} ms (median of 20) = {ref_ms / ms:.1f}x the reference; outputs {same}")
PY
