#!/usr/bin/env bash
# Decode speed of a predictive capability, KIND motion (wai.video.int_motion,
# docs/capabilities/video_int_motion.md §11) or cond (wai.video.int_cond, video_int_cond.md §12):
# a WxH clip of 8 frames panned across samples/photo.png (scaled and cropped by ffmpeg, 4:2:0),
# encoded with GOP 8 (one intra frame, seven P-frames), intra set q2 and a seeded P-frame set of
# N, M channels; decoded RUNS times on the CPU backend's best unit (spot checks on, the default,
# and once off), and frames 0..1 on the reference interpreter, the baseline. Per-frame times
# of P-frames are the whole decode's minus the intra frame's (frames 0..0 decoded alone); the
# reference's P-frame is frame 1 (its own entropy, graph and colour times; its total is the
# 0..1 decode's minus frame 0's). The spot checks' cost is in the CPU backend's rows.
# Fails unless frame 1 (a P-frame) is identical on both.
# MODEL=DIR decodes that set of the capability instead of a seeded one (N and M then only label
# the rows), e.g. the shipped trained int_motion set samples/models/motion. BACKENDS="vulkan
# opencl" adds a row per backend (its plugin copied beside the CPU backend's, its best unit,
# spot checks on): lavapipe and PoCL on a machine without a GPU.
# scripts/bench-motion.sh and scripts/bench-cond.sh run it.
# Usage: [MODEL=DIR] [BACKENDS=...] scripts/bench-predictive.sh motion|cond [WxH] [N] [M] [RUNS]  (default 640x360 48 64 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

kind="${1:-}"
case "$kind" in
  motion|cond) shift ;;
  *) echo "usage: scripts/bench-predictive.sh motion|cond [WxH] [N] [M] [RUNS]" >&2; exit 2 ;;
esac
size="${1:-640x360}"; n="${2:-48}"; m="${3:-64}"; runs="${4:-3}"
w_px="${size%x*}"; h_px="${size#*x}"
backends="${BACKENDS:-}"
declare -A plugin=([vulkan]=WaiVulkanBackend [opencl]=WaiOpenCLBackend)
for b in $backends; do [ -n "${plugin[$b]:-}" ] || { echo "bench-$kind: unknown backend $b (vulkan, opencl)" >&2; exit 2; }; done
for p in waihost WaiCPUBackend waihost-unit-worker; do scripts/build-release.sh --product "$p" >/dev/null; done
for b in $backends; do scripts/build-release.sh --product "${plugin[$b]}" >/dev/null; done
bin=.build/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
cp "$bin/libWaiCPUBackend.so" "$tmp/plugins/"
for b in $backends; do cp "$bin/lib${plugin[$b]}.so" "$tmp/plugins/"; done
export WAIHOST_CACHE_DIR="$tmp/cache" WAIHOST_UNIT_WORKER="$bin/waihost-unit-worker"

if [ -n "${MODEL:-}" ]; then
  cp -r "$MODEL" "$tmp/$kind"
else
  "$bin/waihost" make-model --capability "wai.video.int_$kind" --seed 1 --n "$n" --m "$m" -o "$tmp/$kind" --quiet >/dev/null
fi
scale=$(( w_px > h_px ? 2 * w_px : 2 * h_px ))
ffmpeg -hide_banner -loglevel error -loop 1 -i samples/photo.png \
  -vf "scale=$scale:$scale,crop=$w_px:$h_px:100+n*8:300+n*4" -frames:v 8 -pix_fmt yuv420p -f yuv4mpegpipe "$tmp/clip.y4m"
"$bin/waihost" probe --plugin-dir "$tmp/plugins" >/dev/null   # probed once, before anything is timed
"$bin/waihost" encode "$tmp/clip.y4m" -o "$tmp/clip.wai" --quality 2 "--$kind-model" "$tmp/$kind" --gop 8 --unit cpu \
  --plugin-dir "$tmp/plugins" >/dev/null
d() { "$bin/waihost" decode "$tmp/clip.wai" "--$kind-model" "$tmp/$kind" -o "$tmp/out.y4m" --plugin-dir "$tmp/plugins" --json "$@"; }
d --unit cpu > "$tmp/warm.json"   # qualifies the unit for every graph of the set (docs/probe.md §9)
for i in $(seq "$runs"); do d --unit cpu > "$tmp/cpu-$i.json"; d --unit cpu --frames 0..0 > "$tmp/intra-$i.json"; done
d --unit cpu --spot-check off > "$tmp/nospot.json"
d --unit cpu --spot-check off --frames 0..0 > "$tmp/nospot-intra.json"
for b in $backends; do
  d --unit "$b" > "$tmp/$b-warm.json"
  for i in $(seq "$runs"); do d --unit "$b" > "$tmp/$b-$i.json"; d --unit "$b" --frames 0..0 > "$tmp/$b-intra-$i.json"; done
done
d --unit reference --frames 1..1 > "$tmp/ref.json"
d --unit reference --frames 0..0 > "$tmp/ref-intra.json"

python3 - "$tmp" "$runs" "$size" "$n" "$m" "${MODEL:-seeded}" "$backends" <<'PY'
import json, statistics, sys
tmp, runs, size, n, m, model, backends = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7].split()
def load(name): return json.load(open(f"{tmp}/{name}"))
def p_ms(whole, intra, frames):
    return {k: (whole["timings"][k] - intra["timings"][k]) / frames for k in ("entropy_ms", "graph_ms", "color_ms", "total_ms")}
cpu = [p_ms(load(f"cpu-{i}.json"), load(f"intra-{i}.json"), 7) for i in range(1, runs + 1)]
med = {k: statistics.median(c[k] for c in cpu) for k in cpu[0]}
whole = statistics.median(load(f"cpu-{i}.json")["timings"]["total_ms"] for i in range(1, runs + 1)) / 8
nospot = p_ms(load("nospot.json"), load("nospot-intra.json"), 7)
# frames 1..1 deliver frame 1 alone (its entropy, graphs and colour), but decode frame 0 first.
ref = {k: load("ref.json")["timings"][k] for k in ("entropy_ms", "graph_ms", "color_ms")}
ref["total_ms"] = load("ref.json")["timings"]["total_ms"] - load("ref-intra.json")["timings"]["total_ms"]
c0 = load("cpu-1.json")
cpuinfo = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
label = f"N = {n}, M = {m} (seeded)" if model == "seeded" else f"model set {model}"
print(f"CPU: {cpuinfo}; unit: {c0['backend']} ({c0['driver']}); {size}, {label}, 8 frames (GOP 8), "
      f"{c0['input_bytes']} bytes; median of {runs} runs; load average {open('/proc/loadavg').read().split()[0]}")
print(f"{'ms per P-frame':<34}{'entropy':>9}{'graphs':>9}{'colour':>9}{'total':>9}{'frames/s':>10}")
def row(name, t): print(f"{name:<34}{t['entropy_ms']:9.1f}{t['graph_ms']:9.1f}{t['color_ms']:9.1f}{t['total_ms']:9.1f}{1000 / t['total_ms']:10.2f}")
row("CPU backend, spot checks on", med)
row("CPU backend, spot checks off", nospot)
same_all = True
for b in backends:
    runs_b = [p_ms(load(f"{b}-{i}.json"), load(f"{b}-intra-{i}.json"), 7) for i in range(1, runs + 1)]
    first = load(f"{b}-1.json")
    row(f"{first['backend']} ({first['device'][:18]})"[:33], {k: statistics.median(r[k] for r in runs_b) for k in runs_b[0]})
    same_all &= [f["sha256"] for f in first["frames"]] == [f["sha256"] for f in c0["frames"]]
row("reference interpreter (frame 1)", ref)
print(f"whole sequence on the CPU backend (spot checks on): {whole:.1f} ms a frame, {1000 / whole:.2f} frames/s")
print(f"reference ÷ CPU backend (P-frame): {ref['total_ms'] / med['total_ms']:.1f}×")
same = load("ref.json")["frames"][0]["sha256"] == c0["frames"][1]["sha256"]
print(f"frame 1 (P) identical on both: {'yes' if same else 'NO'} ({c0['frames'][1]['sha256'][:16]}…)")
if backends:
    print(f"every frame identical on {', '.join(backends)} and the CPU backend: {'yes' if same_all else 'NO'}")
sys.exit(0 if same and same_all else 1)
PY
