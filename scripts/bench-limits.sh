#!/usr/bin/env bash
# Benchmark (not a test): issue 15's "close to the machine's limits" table in one run. Runs
# each item's own benchmark on this machine, in turn, with nothing else of this project
# running, and prints one row per figure: the figure, its target, whether it is met, and the
# command that produced it (each benchmark's whole output is kept under the log folder).
#
#   item 1  CPU kernels: whole g_s (768×512, N=128, M=192, inverse GDN included) as a ratio
#           of the in-run `vpdpwssd` peak, process CPU time (Plugins/CPUBackend/bench/run.sh)
#   item 2  AMX: the same g_s, wall time on every core, where the CPU has AMX-INT8
#   item 3  entropy: y of a 3840×2160 picture (6 220 800 values), lane stream on every core
#           (scripts/bench-entropy.sh)
#   item 4  warm `waihost probe` with every backend built (scripts/bench-core.sh)
#   item 5  relay: verified throughput ÷ one core's SHA-256, and the p99 a 256 KiB segment
#           gains beyond hashing, cold and fetched ahead (scripts/bench-relay.sh)
#   item 6  collector on SQLite, 8 clients: ratio to the Ed25519 signature bound
#           (scripts/bench-collector.sh)
#   item 8  whole decode ÷ graph time (h_s + g_s) at 768×512 and 1920×1080, CPU unit
#           (scripts/bench-host-overhead.sh; item 7, the host's own overhead, is inside it)
#
# Usage: scripts/bench-limits.sh [--json] [--logs DIR] [ITEM...]   (default: every item)
#   --json   one JSON object per row on standard output instead of the table
#   --logs   keep the benchmarks' outputs in DIR (default: a new folder under /tmp, printed)
# Builds the release products first (scripts/build-release.sh). As root it runs the relay
# benchmark under `chrt -f 1`, as docs/relay.md's figures were taken. Takes about 5 minutes
# on 2 cores. Exit status: 0 when every benchmark ran (met or not), 1 when one failed to run.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

json=0
logs=""
items=()
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=1 ;;
    --logs) shift; logs="${1:?--logs needs a folder}" ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    1|2|3|4|5|6|8) items+=("$1") ;;
    *) echo "bench-limits: unknown argument '$1' (items are 1 2 3 4 5 6 8; see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#items[@]} -gt 0 ] || items=(1 2 3 4 5 6 8)
[ -n "$logs" ] || logs="$(mktemp -d /tmp/bench-limits.XXXXXX)"
mkdir -p "$logs" || exit 2

echo "bench-limits: building the release products" >&2
scripts/build-release.sh >"$logs/build.log" 2>&1 || { echo "bench-limits: the release build failed, see $logs/build.log" >&2; exit 1; }
waihost="$(swift build -c release --show-bin-path)/waihost"
amx=0
grep -qw amx_int8 /proc/cpuinfo && amx=1
rt=()
[ "$(id -u)" = 0 ] && command -v chrt >/dev/null && rt=(chrt -f 1)

# One benchmark: its command line is recorded beside its output for the table.
failed=0
run() {  # NAME COMMAND...
  local name=$1; shift
  echo "bench-limits: $name: $*" >&2
  printf '%s\n' "$*" > "$logs/$name.cmd"
  "$@" > "$logs/$name.out" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "bench-limits: $name failed (exit $rc), see $logs/$name.out" >&2
    echo "failed" > "$logs/$name.status"
    failed=1
  fi
}

for item in "${items[@]}"; do
  case $item in
    1) run item1 env WAI_BENCH_CLOCK=cpu Plugins/CPUBackend/bench/run.sh avx512 2 3 ;;
    2) if [ $amx = 1 ]; then run item2 Plugins/CPUBackend/bench/run.sh amx 2 3; else echo "no AMX-INT8" > "$logs/item2.skip"; fi ;;
    3) run item3 scripts/bench-entropy.sh ;;
    4) run item4 scripts/bench-core.sh 3 ;;
    5) run item5 env WAIHOST="$waihost" "${rt[@]}" scripts/bench-relay.sh ;;
    6) run item6 env BOUND_SECONDS=2 DBS=sqlite WAIHOST="$waihost" scripts/bench-collector.sh 10000 8 ;;
    8) run item8 scripts/bench-host-overhead.sh 2 5 "$waihost" ;;
  esac
done

python3 - "$logs" "$json" "${items[@]}" <<'PY'
import json, os, re, sys
logs, as_json, items = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
rows = []

def text(name):
    p = f"{logs}/{name}.out"
    return open(p, errors="replace").read() if os.path.exists(p) else ""

def cmd(name):
    p = f"{logs}/{name}.cmd"
    return open(p).read().strip() if os.path.exists(p) else ""

def row(item, what, figure, target, met, name):
    rows.append({"item": int(item), "what": what, "figure": figure, "target": target,
                 "met": met, "command": cmd(name), "log": f"{logs}/{name}.out"})

def missing(item, what, target, name, why):
    row(item, what, None, target, None, name)
    rows[-1]["note"] = why

def section(out, path):
    """The lines of run.sh's output for one ISA path (from '-- path' to the next '-- ')."""
    m = re.search(rf"^-- {re.escape(path)}\n(.*?)(?=^-- |\Z)", out, re.S | re.M)
    return m.group(1) if m else ""

for item in items:
    name = f"item{item}"
    out = text(name)
    failed = os.path.exists(f"{logs}/{name}.status")
    if item == "1":
        m = re.search(r"whole g_s .*?: ([\d.]+) ms = [\d.]+ GMAC/s = ([\d.]+) of the vpdpwssd peak", section(out, "avx512-vnni"))
        if m: row(1, "whole g_s, avx512-vnni, ratio of the vpdpwssd peak (CPU time)", float(m.group(2)), ">= 0.85", float(m.group(2)) >= 0.85, name)
        else: missing(1, "whole g_s, avx512-vnni", ">= 0.85", name, "failed" if failed else "no avx512-vnni path on this CPU")
    elif item == "2":
        if os.path.exists(f"{logs}/item2.skip"):
            missing(2, "whole g_s, amx-int8, wall ms", "<= 25", name, "this CPU has no AMX-INT8"); continue
        m = re.search(r"whole g_s .*?: ([\d.]+) ms = [\d.]+ GMAC/s = ([\d.]+) of the vpdpwssd peak", section(out, "amx-int8"))
        if m: row(2, "whole g_s, amx-int8, wall ms", float(m.group(1)), "<= 25", float(m.group(1)) <= 25, name)
        else: missing(2, "whole g_s, amx-int8, wall ms", "<= 25", name, "failed" if failed else "no amx-int8 section")
    elif item == "3":
        best = None
        for m in re.finditer(r"^v2 \((.*?), (\d+) threads\)\s+([\d.]+) \((\d+) M/s", out, re.M):
            if best is None or int(m.group(4)) > best[2]: best = (m.group(1), float(m.group(3)), int(m.group(4)))
        if best:
            row(3, f"4K y entropy decode, v2 {best[0]}, every core: M values/s", best[2], ">= 200", best[2] >= 200, name)
            row(3, "the same, wall ms", best[1], "<= 20", best[1] <= 20, name)
        else: missing(3, "4K y entropy decode", ">= 200 M/s, <= 20 ms", name, "failed" if failed else "no multi-thread v2 line")
    elif item == "4":
        m = re.search(r"warm \(cached\) median ([\d.]+) ms", out)
        if m: row(4, "warm waihost probe, every backend, median ms", float(m.group(1)), "<= 20", float(m.group(1)) <= 20, name)
        else: missing(4, "warm waihost probe", "<= 20 ms", name, "failed")
    elif item == "5":
        m = re.search(r"ratio relay / one-core SHA-256:\s+([\d.]+)", out)
        if m: row(5, "relay verified throughput / one core's SHA-256", float(m.group(1)), ">= 0.7", float(m.group(1)) >= 0.7, name)
        else: missing(5, "relay throughput ratio", ">= 0.7", name, "failed")
        for label, m in zip(("cold", "fetched ahead"), re.finditer(r"beyond hashing \([\d.]+ ms at one core's rate\): p99 (-?[\d.]+) ms", out)):
            v = float(m.group(1))
            row(5, f"relay p99 added per 256 KiB segment beyond hashing, {label}, ms", v, "<= 1", v <= 1, name)
    elif item == "6":
        m = re.search(r"(\d+) bundles/s with", out)
        r = re.search(r"ratio to the bound: wall ([\d.]+)", out)
        if m and r:
            row(6, "collector, SQLite, 8 clients: bundles/s", int(m.group(1)), None, None, name)
            row(6, "the same / Ed25519 signature bound (openssl speed)", float(r.group(1)), ">= 0.75", float(r.group(1)) >= 0.75, name)
        else: missing(6, "collector", ">= 0.75 of the bound", name, "failed")
    elif item == "8":
        found = False
        for m in re.finditer(r"^(\d+x\d+): spot checks off: .*whole / graphs = ([\d.]+)", out, re.M):
            found = True
            v = float(m.group(2))
            row(8, f"whole decode / graph time, {m.group(1)}, CPU unit", v, "<= 1.15", v <= 1.15, name)
        if not found: missing(8, "whole decode / graph time", "<= 1.15", name, "failed")

if as_json:
    for r in rows: print(json.dumps(dict(r, cpu=cpu)))
else:
    print(f"CPU: {cpu}, {os.cpu_count()} cores; logs: {logs}")
    print(f"{'item':<5}{'figure':>10}  {'target':<8}{'met':<5}what")
    for r in rows:
        fig = "-" if r["figure"] is None else (f"{r['figure']:.3g}" if isinstance(r["figure"], float) else str(r["figure"]))
        met = {True: "yes", False: "no", None: "-"}[r["met"]]
        print(f"{r['item']:<5}{fig:>10}  {r['target'] or '':<8}{met:<5}{r['what']}" + (f" ({r['note']})" if r.get("note") else ""))
    print("commands:")
    for name in sorted({os.path.basename(r["log"])[:-4] for r in rows}):
        if cmd(name): print(f"  {name}: {cmd(name)}")
PY
exit $failed
