#!/usr/bin/env bash
# wai.video.int_hyper decode speed (docs/capabilities/video_int_hyper.md §12): a WxH clip of
# 16 frames panned across samples/photo.png (scaled and cropped by ffmpeg, 4:2:0), encoded
# with the shipped set q2, decoded RUNS times on the CPU backend's best unit (spot checks on,
# the default, and once off) and frame 0 once on the reference interpreter, the baseline.
# Prints per-frame milliseconds of entropy decoding, graphs (h_s + g_s), colour conversion
# and the whole decode, frames per second, the ratio to the reference, and whether frame 0's
# planes are identical on both. Usage: scripts/bench-video.sh [WxH] [RUNS]  (default 640x360 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

size="${1:-640x360}"
runs="${2:-3}"
w_px="${size%x*}"; h_px="${size#*x}"
for p in waihost WaiCPUBackend waihost-unit-worker; do scripts/build-release.sh --product "$p" >/dev/null; done
bin=.build/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
cp "$bin/libWaiCPUBackend.so" "$tmp/plugins/"
export WAIHOST_CACHE_DIR="$tmp/cache" WAIHOST_UNIT_WORKER="$bin/waihost-unit-worker"

scale=$(( w_px > h_px ? 2 * w_px : 2 * h_px ))
ffmpeg -hide_banner -loglevel error -loop 1 -i samples/photo.png \
  -vf "scale=$scale:$scale,crop=$w_px:$h_px:100+n*8:300+n*4" -frames:v 16 -pix_fmt yuv420p -f yuv4mpegpipe "$tmp/clip.y4m"
"$bin/waihost" encode "$tmp/clip.y4m" -o "$tmp/clip.wai" --quality 2 --unit cpu --plugin-dir "$tmp/plugins" >/dev/null
"$bin/waihost" probe --plugin-dir "$tmp/plugins" >/dev/null   # probed once, before anything is timed

for i in $(seq "$runs"); do
  "$bin/waihost" decode "$tmp/clip.wai" -o "$tmp/out.y4m" --unit cpu --plugin-dir "$tmp/plugins" --json > "$tmp/cpu-$i.json"
done
"$bin/waihost" decode "$tmp/clip.wai" -o "$tmp/out.y4m" --unit cpu --plugin-dir "$tmp/plugins" --spot-check off --json > "$tmp/nospot.json"
"$bin/waihost" decode "$tmp/clip.wai" -o "$tmp/ref.y4m" --unit reference --frames 0..0 --json > "$tmp/ref.json"

python3 - "$tmp" "$runs" "$size" <<'PY'
import json, statistics, sys
tmp, runs, size = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(name): return json.load(open(f"{tmp}/{name}"))
def per_frame(r):
    t, n = r["timings"], len(r["frames"])
    return {k: t[k] / n for k in ("entropy_ms", "graph_ms", "color_ms", "total_ms")}
cpu = [load(f"cpu-{i}.json") for i in range(1, runs + 1)]
med = {k: statistics.median(per_frame(r)[k] for r in cpu) for k in ("entropy_ms", "graph_ms", "color_ms", "total_ms")}
nospot, ref = per_frame(load("nospot.json")), per_frame(load("ref.json"))
cpuinfo = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
print(f"CPU: {cpuinfo}; unit: {cpu[0]['backend']} ({cpu[0]['driver']}); {size}, {len(cpu[0]['frames'])} frames, "
      f"{cpu[0]['input_bytes']} bytes; median of {runs} runs")
print(f"{'ms per frame':<34}{'entropy':>9}{'graphs':>9}{'colour':>9}{'total':>9}{'frames/s':>10}")
def row(name, t): print(f"{name:<34}{t['entropy_ms']:9.1f}{t['graph_ms']:9.1f}{t['color_ms']:9.1f}{t['total_ms']:9.1f}{1000 / t['total_ms']:10.2f}")
row("CPU backend, spot checks on", med)
row("CPU backend, spot checks off", nospot)
row("reference interpreter (frame 0)", ref)
print(f"reference ÷ CPU backend (whole decode per frame): {ref['total_ms'] / med['total_ms']:.1f}×")
same = load("ref.json")["frames"][0]["sha256"] == cpu[0]["frames"][0]["sha256"]
print(f"frame 0 identical on both: {'yes' if same else 'NO'} ({cpu[0]['frames'][0]['sha256'][:16]}…)")
sys.exit(0 if same else 1)
PY
