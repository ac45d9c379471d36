#!/usr/bin/env bash
# Regenerates samples/ for wai.neural.int_hyper (docs/capabilities/int_hyper.md §9): the
# seed-1 N=32, M=48 model set, the synthetic 128x96 sample picture, payloads made from it
# and golden.json (payload file → SHA-256 of its decoded RGB8 rows, decoded by the reference
# interpreter). Payloads are version 2 (the encoder's default) but odd-45x29.payload, kept
# in version 1. Everything is deterministic: running this again rewrites the same bytes
# (the PNG's compressed bytes depend on zlib, its pixels do not). Also samples/photo.wai:
# samples/photo.png (a real photograph) encoded with the shipped trained set q2
# (samples/models, made by tools/train/ship.py), and samples/photo.json, its decoded SHA-256.
# Usage: scripts/make-samples.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

scripts/build-release.sh --product waihost >/dev/null
w=.build/release/waihost
s=samples
model=$s/int_hyper_model
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rm -rf "$model"
"$w" make-model --seed 1 --n 32 --m 48 --name sample-n32-m48 -o "$model" >/dev/null
"$w" make-picture --size 128x96 -o "$s/sample.png" >/dev/null
"$w" make-picture --size 45x29 -o "$tmp/odd.png" >/dev/null
"$w" make-picture --size 1x1 -o "$tmp/tiny.png" >/dev/null
"$w" encode "$s/sample.png" --model "$model" --unit reference -o "$s/sample.wai" >/dev/null
# odd-45x29.payload stays payload version 1 (the v1 decoder's tests), its twin is version 2.
"$w" encode "$tmp/odd.png" --model "$model" --unit reference --raw --payload-version 1 -o "$s/odd-45x29.payload" >/dev/null
"$w" encode "$tmp/odd.png" --model "$model" --unit reference --raw -o "$s/odd-45x29-v2.payload" >/dev/null
"$w" encode "$tmp/tiny.png" --model "$model" --unit reference -o "$s/tiny-1x1.wai" >/dev/null

field() { grep -o "\"$1\" : [^,]*" | head -n 1 | sed -e 's/.*: //' -e 's/"//g'; }
id=$("$w" decode "$s/sample.wai" --model "$model" --unit reference -o "$tmp/x.rgb" --json | field id)
{
  printf '{\n  "capability": "wai.neural.int_hyper",\n'
  printf '  "model_set": {"path": "int_hyper_model", "name": "sample-n32-m48", "id": "%s"},\n' "$id"
  printf '  "vectors": [\n'
  first=1
  for f in sample.wai odd-45x29.payload tiny-1x1.wai odd-45x29-v2.payload; do
    report=$("$w" decode "$s/$f" --model "$model" --unit reference -o "$tmp/x.rgb" --json)
    [ $first -eq 1 ] || printf ',\n'
    first=0
    printf '    {"payload": "%s", "width": %s, "height": %s, "sha256": "%s"}' "$f" \
      "$(echo "$report" | field width)" "$(echo "$report" | field height)" "$(echo "$report" | field sha256)"
  done
  printf '\n  ]\n}\n'
} > "$s/golden.json"
cat "$s/golden.json"

"$w" encode "$s/photo.png" --quality 2 --unit reference -o "$s/photo.wai" >/dev/null
report=$("$w" decode "$s/photo.wai" --unit reference -o "$tmp/x.rgb" --json)
printf '{"payload": "photo.wai", "model_set": "models/q2", "width": %s, "height": %s, "sha256": "%s"}\n' \
  "$(echo "$report" | field width)" "$(echo "$report" | field height)" "$(echo "$report" | field sha256)" > "$s/photo.json"
cat "$s/photo.json"
