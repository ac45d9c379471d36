#!/usr/bin/env bash
# g_s on lavapipe per CPU-second (docs/gpu-kernels.md §3, "What the emitted code costs"),
# separate from the tests: on a shared machine the wall time of `waihost bench` moves with the
# load, the CPU time of lavapipe's JIT code much less. For each plugin folder given, in turn
# and ROUNDS times over (so builds alternate under the same load): `waihost bench --backend
# vulkan:0` at 768×512 (N = 128, M = 192: 14.47 G multiply-accumulates in g_s) under
# `perf record -a -F 499`; the samples of the bench's unit worker that fall in its anonymous
# executable mappings (lavapipe's compiled shaders) over the warm-up and the timed decodes,
# per decode, are the JIT CPU-seconds; G MAC per CPU-second is 14.47 over that.
# Usage: scripts/bench-lavapipe-cpu.sh [--rounds N] [--runs K] PLUGIN_DIR...
#   (e.g. the release build's folder and an older build's copy of its libWai*Backend.so;
#   needs perf, Debian's linux-perf, and a waihost release build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=2 runs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "bench-lavapipe-cpu: name at least one plugin folder" >&2; exit 2; }
command -v perf > /dev/null || { echo "bench-lavapipe-cpu: perf is missing (apt-get install linux-perf)" >&2; exit 1; }
. scripts/env.sh
bin="$(swift build -c release --show-bin-path)"
[ -x "$bin/waihost" ] || { echo "bench-lavapipe-cpu: $bin/waihost missing (scripts/build-release.sh)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "== $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores), $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"

one() {  # one() DIR OUT: bench on DIR's plugins, samples and the workers' maps into OUT
  local dir="$1" out="$2"
  mkdir -p "$out"
  perf record -a -F 499 -o "$out/perf.data" > /dev/null 2>&1 &
  local perf_pid=$! w
  sleep 0.5
  "$bin/waihost" bench --backend vulkan:0 --size 768x512 --runs "$runs" --no-reference --json \
    --plugin-dir "$dir" < /dev/null > "$out/bench.json" 2> "$out/bench.err" &
  local pid=$!
  # The maps of the bench's workers, kept while they live (the JIT code's addresses).
  while kill -0 "$pid" 2> /dev/null; do
    for w in $(pgrep -P "$pid" || true); do cp "/proc/$w/maps" "$out/maps.tmp" 2> /dev/null && mv "$out/maps.tmp" "$out/maps.$w"; done
    sleep 1
  done
  wait "$pid" || true
  kill -INT "$perf_pid"; wait "$perf_pid" 2> /dev/null || true
  perf script -i "$out/perf.data" -F pid,ip > "$out/ips.txt" 2> /dev/null
}

k=0
for round in $(seq 1 "$rounds"); do
  for dir in "$@"; do
    k=$((k + 1))
    one "$dir" "$tmp/$k"
    python3 - "$tmp/$k" "$runs" "$dir" "$round" <<'PY'
import glob, json, os, sys
out, runs, name, round_ = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
b = json.load(open(os.path.join(out, "bench.json")))
if "unit" not in b:
    print("%s (round %s): bench failed: %s" % (name, round_, json.dumps(b.get("error", b))[:300])); sys.exit(0)
maps = {}
for f in glob.glob(os.path.join(out, "maps.*")):
    pid = f.rsplit(".", 1)[1]
    if not pid.isdigit(): continue
    spans = []
    for line in open(f):
        fields = line.split()
        if "x" in fields[1] and len(fields) == 5:        # executable and anonymous: JIT code
            s, e = (int(x, 16) for x in fields[0].split("-"))
            spans.append((s, e))
    maps[int(pid)] = spans
jit = {}
for line in open(os.path.join(out, "ips.txt")):
    fields = line.split()
    if len(fields) != 2 or not fields[0].isdigit(): continue
    pid, ip = int(fields[0]), int(fields[1], 16)
    if pid in maps and any(s <= ip < e for s, e in maps[pid]): jit[pid] = jit.get(pid, 0) + 1
if not jit:
    print("%s (round %s): no JIT samples (is vulkan:0 lavapipe?)" % (name, round_)); sys.exit(0)
samples = max(jit.values())                                 # the Vulkan worker's
cpu_s = samples / 499 / (runs + 1)
g_s = b["unit"]["median"]["g_s_ms"] / 1000
print("%s (round %s): g_s %.0f ms = %.2f GMAC/s wall; JIT %.2f CPU-s per decode = %.2f G MAC per CPU-s" %
      (name, round_, g_s * 1000, 14.47 / g_s, cpu_s, 14.47 / cpu_s))
PY
    rm -rf "$tmp/$k"
  done
done
