#!/usr/bin/env bash
# Benchmark (not a test): issue 15's "close to the machine's limits" table in one run. Runs
# each item's own benchmark on this machine, in turn, with nothing else of this project
# running, and prints one row per figure: the figure, its target, whether it is met, and the
# command that produced it (each benchmark's whole output is kept under the log folder).
#
#   item 1  CPU kernels: whole g_s (768×512, N=128, M=192, inverse GDN included) as a ratio
#           of the in-run `vpdpwssd` peak, process CPU time (Plugins/CPUBackend/bench/run.sh)
#           where the CPU has AVX-512 VNNI (otherwise the row says so and is not counted; on
#           an AVX2 CPU the avx2 path's g_s is given instead, as a ratio of the vpmaddwd
#           peak, for reference: it has no target)
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
# Usage: scripts/bench-limits.sh [--rounds N] [--json] [--logs DIR] [ITEM...]   (default: every item)
#   --rounds N  run the whole set N times, one after the other (default 1); each row then gives
#               the range of its figure and in how many rounds it met its target: on a shared
#               virtual machine a figure near its target lands on either side from run to run
#   --json      one JSON object per row on standard output instead of the table
#   --logs DIR  keep the benchmarks' outputs in DIR (default: a new folder under /tmp, printed)
# Builds the release products first (scripts/build-release.sh). As root it runs the relay
# benchmark under `chrt -f 1`, as docs/relay.md's figures were taken. Takes about 3.5 minutes
# a round on 2 cores. Exit status: 0 when every benchmark ran (met or not), 1 when one failed to run.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

json=0
rounds=1
logs=""
items=()
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=1 ;;
    --logs) shift; logs="${1:?--logs needs a folder}" ;;
    --rounds) shift; rounds="${1:-}"; [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bench-limits: --rounds needs a whole number ≥ 1" >&2; exit 2; } ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
vnni=0
grep -qw avx512_vnni /proc/cpuinfo && vnni=1
avx2=0
grep -qw avx2 /proc/cpuinfo && avx2=1
rt=()
[ "$(id -u)" = 0 ] && command -v chrt >/dev/null && rt=(chrt -f 1)

# One benchmark: its command line is recorded beside its output for the table.
failed=0
run() {  # NAME COMMAND...
  local name=$1; shift
  echo "bench-limits: $name: $*" >&2
  printf '%s\n' "$*" > "$logs/$name.cmd"
  rm -f "$logs/$name.status"   # a folder given again with --logs keeps no earlier verdict
  "$@" > "$logs/$name.out" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "bench-limits: $name failed (exit $rc), see $logs/$name.out" >&2
    echo "failed" > "$logs/$name.status"
    failed=1
  fi
}

for round in $(seq "$rounds"); do
  for item in "${items[@]}"; do
    case $item in
      1) if [ $vnni = 1 ]; then run item1.r$round env WAI_BENCH_CLOCK=cpu Plugins/CPUBackend/bench/run.sh avx512 2 3
         else
           echo "no AVX-512 VNNI" > "$logs/item1.skip"
           [ $avx2 = 1 ] && run item1.r$round env WAI_BENCH_CLOCK=cpu Plugins/CPUBackend/bench/run.sh avx2 2 3
         fi ;;
      2) if [ $amx = 1 ]; then run item2.r$round Plugins/CPUBackend/bench/run.sh amx 2 3; else echo "no AMX-INT8" > "$logs/item2.skip"; fi ;;
      3) run item3.r$round scripts/bench-entropy.sh ;;
      4) run item4.r$round scripts/bench-core.sh 3 ;;
      5) run item5.r$round env WAIHOST="$waihost" "${rt[@]}" scripts/bench-relay.sh ;;
      6) run item6.r$round env BOUND_SECONDS=2 DBS=sqlite WAIHOST="$waihost" scripts/bench-collector.sh 10000 8 ;;
      8) run item8.r$round scripts/bench-host-overhead.sh 2 5 "$waihost" ;;
    esac
  done
done

python3 - "$logs" "$json" "$rounds" "${items[@]}" <<'PY'
import json, os, re, sys
logs, as_json, rounds, items = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), sys.argv[4:]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")

def text(name):
    p = f"{logs}/{name}.out"
    return open(p, errors="replace").read() if os.path.exists(p) else ""

def cmd(name):
    p = f"{logs}/{name}.cmd"
    return open(p).read().strip() if os.path.exists(p) else ""

def section(out, path):
    """The lines of run.sh's output for one ISA path (from '-- path' to the next '-- ')."""
    m = re.search(rf"^-- {re.escape(path)}\n(.*?)(?=^-- |\Z)", out, re.S | re.M)
    return m.group(1) if m else ""

GS = r"whole g_s .*?: ([\d.]+) ms = [\d.]+ GMAC/s = ([\d.]+) of the vpdpwssd peak"
GS_AVX2 = r"whole g_s .*?: ([\d.]+) ms = [\d.]+ GMAC/s = ([\d.]+) of the vpmaddwd peak"

def parse(item, name):
    """(what, figure, target, met, note) rows of one benchmark run; a sixth element False
    marks a row no benchmark ran for (its command and log are not the run's)."""
    out, failed = text(name), os.path.exists(f"{logs}/{name}.status")
    why = "failed" if failed else None
    if item == "1":
        what = "whole g_s, avx512-vnni, ratio of the vpdpwssd peak (CPU time)"
        if os.path.exists(f"{logs}/item1.skip"):
            rows = [(what, None, ">= 0.85", None, "this CPU has no AVX-512 VNNI", False)]
            m = re.search(GS_AVX2, section(out, "avx2"))
            if m or out:
                rows.append(("whole g_s, avx2, ratio of the vpmaddwd peak (CPU time), for reference",
                             float(m.group(2)) if m else None, None, None, None if m else (why or "no avx2 section")))
            return rows
        m = re.search(GS, section(out, "avx512-vnni"))
        if m: return [(what, float(m.group(2)), ">= 0.85", float(m.group(2)) >= 0.85, None)]
        return [(what, None, ">= 0.85", None, why or "no avx512-vnni path on this CPU")]
    if item == "2":
        what = "whole g_s, amx-int8, wall ms"
        if os.path.exists(f"{logs}/item2.skip"): return [(what, None, "<= 25", None, "this CPU has no AMX-INT8", False)]
        m = re.search(GS, section(out, "amx-int8"))
        if m: return [(what, float(m.group(1)), "<= 25", float(m.group(1)) <= 25, None)]
        return [(what, None, "<= 25", None, why or "no amx-int8 section")]
    if item == "3":
        best = None
        for m in re.finditer(r"^v2 \((.*?), (\d+) threads\)\s+([\d.]+) \((\d+) M/s", out, re.M):
            if best is None or int(m.group(4)) > best[2]: best = (m.group(1), float(m.group(3)), int(m.group(4)))
        if not best: return [("4K y entropy decode", None, ">= 200 M/s, <= 20 ms", None, why or "no multi-thread v2 line")]
        return [("4K y entropy decode, v2 lanes, every core: M values/s", best[2], ">= 200", best[2] >= 200, best[0]),
                ("the same, wall ms", best[1], "<= 20", best[1] <= 20, None)]
    if item == "4":
        m = re.search(r"warm \(cached\) median ([\d.]+) ms", out)
        what = "warm waihost probe, every backend, median ms"
        return [(what, float(m.group(1)), "<= 20", float(m.group(1)) <= 20, None)] if m else [(what, None, "<= 20", None, "failed")]
    if item == "5":
        m = re.search(r"ratio relay / one-core SHA-256:\s+([\d.]+)", out)
        rows = [("relay verified throughput / one core's SHA-256", float(m.group(1)) if m else None, ">= 0.7",
                 float(m.group(1)) >= 0.7 if m else None, None if m else "failed")]
        for label, m in zip(("cold", "fetched ahead"), re.finditer(r"beyond hashing \([\d.]+ ms at one core's rate\): p99 (-?[\d.]+) ms", out)):
            rows.append((f"relay p99 added per 256 KiB segment beyond hashing, {label}, ms", float(m.group(1)), "<= 1",
                         float(m.group(1)) <= 1, None))
        return rows
    if item == "6":
        m = re.search(r"(\d+) bundles/s with", out)
        r = re.search(r"ratio to the bound: wall ([\d.]+)", out)
        if not (m and r): return [("collector / Ed25519 signature bound", None, ">= 0.75", None, "failed")]
        return [("collector, SQLite, 8 clients: bundles/s", int(m.group(1)), None, None, None),
                ("the same / Ed25519 signature bound (openssl speed)", float(r.group(1)), ">= 0.75", float(r.group(1)) >= 0.75, None)]
    if item == "8":
        rows = [(f"whole decode / graph time, {m.group(1)}, CPU unit", float(m.group(2)), "<= 1.15", float(m.group(2)) <= 1.15, None)
                for m in re.finditer(r"^(\d+x\d+): spot checks off: .*whole / graphs = ([\d.]+)", out, re.M)]
        return rows or [("whole decode / graph time", None, "<= 1.15", None, "failed")]
    return []

# Rows in the order of the first round; each gathers its figure from every round.
rows, index = [], {}
for r in range(1, rounds + 1):
    for item in items:
        name = f"item{item}.r{r}"
        for what, figure, target, met, note, *ran in parse(item, name):
            ran = not ran or ran[0]
            key = (item, what)
            if key not in index:
                index[key] = len(rows)
                rows.append({"item": int(item), "what": what, "target": target, "figures": [], "met": [], "note": note,
                             "command": cmd(name) if ran else "", "logs": []})
            row = rows[index[key]]
            if figure is not None: row["figures"].append(figure)
            if met is not None: row["met"].append(met)
            if ran: row["logs"].append(f"{logs}/{name}.out")

def fmt(x): return f"{x:.3g}" if isinstance(x, float) else str(x)

if as_json:
    for r in rows:
        print(json.dumps({"cpu": cpu, "rounds": rounds, "item": r["item"], "what": r["what"], "figures": r["figures"],
                          "target": r["target"], "met_rounds": sum(r["met"]) if r["met"] else None,
                          "note": r["note"], "command": r["command"], "logs": r["logs"]}))
else:
    print(f"CPU: {cpu}, {os.cpu_count()} cores; {rounds} round{'s' if rounds > 1 else ''}; logs: {logs}")
    print(f"{'item':<5}{'figure':>14}  {'target':<8}{'met':<6}what")
    for r in rows:
        f = r["figures"]
        fig = "-" if not f else (fmt(f[0]) if min(f) == max(f) else f"{fmt(min(f))}–{fmt(max(f))}")
        met = "-" if not r["met"] else ({True: "yes", False: "no"}[r["met"][0]] if rounds == 1 else f"{sum(r['met'])}/{len(r['met'])}")
        note = f" ({r['note']})" if r["note"] and r["note"] not in r["what"] else ""
        print(f"{r['item']:<5}{fig:>14}  {r['target'] or '':<8}{met:<6}{r['what']}{note}")
    print("commands:")
    seen = set()
    for r in rows:
        if r["command"] and r["command"] not in seen:
            seen.add(r["command"])
            print(f"  item {r['item']}: {r['command']}")
PY
exit $failed
