#!/usr/bin/env bash
# Regenerates samples/clip.wai and samples/clip.json (docs/capabilities/video_int_hyper.md §10):
# six 64×48 frames panned across samples/photo.png (cropped by ffmpeg as RGB8, so the frames
# are exactly the photograph's bytes), encoded as wai.video.int_hyper with the shipped
# trained set q2 (samples/models) on the reference interpreter, marked 4:2:0; clip.json holds
# each frame's SHA-256 of its decoded Y4M planes and RGB8 rows, decoded by the reference.
# Running it again rewrites the same bytes. Usage: scripts/make-clip.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

scripts/build-release.sh --product waihost >/dev/null
w=.build/release/waihost
s=samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Frame n is the 64×48 window at (200 + 6n, 150 + 2n): a slow pan down and to the right.
ffmpeg -hide_banner -loglevel error -loop 1 -i "$s/photo.png" -vf "crop=64:48:200+n*6:150+n*2" -frames:v 6 \
  -f rawvideo -pix_fmt rgb24 "$tmp/clip.rgb"
"$w" encode "$tmp/clip.rgb" --size 64x48 --fps 25 --chroma yuv420 --quality 2 --unit reference -o "$s/clip.wai" >/dev/null
"$w" decode "$s/clip.wai" --unit reference -o "$tmp/clip.y4m" --report "$tmp/report.json" >/dev/null
python3 - "$tmp/report.json" > "$s/clip.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps({
    "payload": "clip.wai", "capability": r["capability"], "model_set": "models/q2",
    "width": r["width"], "height": r["height"], "chroma": r["chroma"], "y4m_chroma": r["y4m_chroma"],
    "frame_rate": r["frame_rate"], "frame_count": r["frame_count"],
    "frames": [{"index": f["index"], "sha256": f["sha256"], "rgb_sha256": f["rgb_sha256"]} for f in r["frames"]],
}, indent=2))
PY
cat "$s/clip.json"
