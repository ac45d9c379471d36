#!/usr/bin/env bash
# Encode and decode time and peak memory (GNU time's maximum resident set) of a shipped set
# on the CPU backend, for a photograph scaled to each size; sizes past what the set takes are
# reported with the host's refusal. Usage: tools/rd/timing.sh WAIHOST PLUGIN_DIR [SET]
set -euo pipefail
cd "$(dirname "$0")/../.."
w=$1; plugins=$2; set=${3:-samples/models/q2}
py=$(tools/venv.sh --rd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export WAI_PLUGIN_PATH=$plugins WAIHOST_PROBER=$w WAIHOST_CACHE_DIR=$tmp/cache
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
"$w" probe >/dev/null
for size in 768x512 4000x2600 4000x3000 6000x4000; do
  "$py" - "$size" "$tmp/in.png" <<'PY'
import sys
from PIL import Image
w, h = map(int, sys.argv[1].split("x"))
Image.open("/usr/share/wallpapers/Kite/contents/images/2560x1600.jpg").convert("RGB").resize((w, h), Image.LANCZOS).save(sys.argv[2])
PY
  if /usr/bin/time -f "%e %M" -o "$tmp/enc.t" "$w" encode "$tmp/in.png" --model "$set" --unit cpu -o "$tmp/x.wai" >/dev/null 2>"$tmp/err"; then
    /usr/bin/time -f "%e %M" -o "$tmp/dec.t" "$w" decode "$tmp/x.wai" --model "$set" --unit cpu -o "$tmp/out.png" >/dev/null
    read -r et em < "$tmp/enc.t"; read -r dt dm < "$tmp/dec.t"
    echo "$size: encode ${et} s, peak ${em} KB; decode ${dt} s, peak ${dm} KB; $(stat -c %s "$tmp/x.wai") bytes"
  else
    echo "$size: refused: $(cat "$tmp/err")"
  fi
done
