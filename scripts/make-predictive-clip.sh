#!/usr/bin/env bash
# Regenerates Tests/Fixtures/int_KIND/clip.wai and clip.json for a predictive capability,
# KIND motion (docs/capabilities/video_int_motion.md §10) or cond (video_int_cond.md §10):
# the six 64×48 frames of scripts/make-clip.sh's pan across samples/photo.png, encoded as
# wai.video.int_KIND with GOP 4 (frames 0 and 4 intra), the intra set samples/models/q2 and the
# seeded P-frame set `make-model --capability wai.video.int_KIND --seed 7 --n 8 --m 12`, on the
# reference interpreter; clip.json holds each frame's kind and the SHA-256 of its decoded Y4M
# planes and RGB8 rows, decoded by the reference. Running it again rewrites the same bytes.
# scripts/make-motion-clip.sh and scripts/make-cond-clip.sh run it.
# Usage: scripts/make-predictive-clip.sh motion|cond
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

kind="${1:-}"
case "$kind" in
  motion|cond) ;;
  *) echo "usage: scripts/make-predictive-clip.sh motion|cond" >&2; exit 2 ;;
esac
capability="wai.video.int_$kind"

scripts/build-release.sh --product waihost >/dev/null
w=.build/release/waihost
out="Tests/Fixtures/int_$kind"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$w" make-model --capability "$capability" --seed 7 --n 8 --m 12 -o "$tmp/$kind" >/dev/null
ffmpeg -hide_banner -loglevel error -loop 1 -i samples/photo.png -vf "crop=64:48:200+n*6:150+n*2" -frames:v 6 \
  -f rawvideo -pix_fmt rgb24 "$tmp/clip.rgb"
"$w" encode "$tmp/clip.rgb" --size 64x48 --fps 25 --chroma yuv420 --quality 2 "--$kind-model" "$tmp/$kind" --gop 4 \
  --unit reference -o "$out/clip.wai" >/dev/null
"$w" decode "$out/clip.wai" "--$kind-model" "$tmp/$kind" --unit reference -o "$tmp/clip.y4m" --report "$tmp/report.json" >/dev/null
python3 - "$tmp/report.json" "$kind" > "$out/clip.json" <<'PY'
import json, sys
r, kind = json.load(open(sys.argv[1])), sys.argv[2]
print(json.dumps({
    "payload": "clip.wai", "capability": r["capability"], "model_set": "samples/models/q2",
    f"{kind}_model_set": f"make-model --capability wai.video.int_{kind} --seed 7 --n 8 --m 12",
    f"{kind}_model_set_id": r[f"{kind}_model_set"]["id"],
    "width": r["width"], "height": r["height"], "chroma": r["chroma"], "y4m_chroma": r["y4m_chroma"],
    "frame_rate": r["frame_rate"], "intra_period": r["intra_period"], "frame_count": r["frame_count"],
    "frames": [{"index": f["index"], "kind": f["kind"], "sha256": f["sha256"], "rgb_sha256": f["rgb_sha256"]} for f in r["frames"]],
}, indent=2))
PY
cat "$out/clip.json"
