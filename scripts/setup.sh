#!/usr/bin/env bash
# The README's first command: install what is missing, build in release mode, install the
# backends into plugins.d/, and run the main job on the bundled sample data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
swift build -c release
scripts/install-plugins.sh release plugins.d
bin="$(swift build -c release --show-bin-path)/waihost"
echo "== waihost probe" >&2
"$bin" probe
echo "== waihost decode samples/photo.wai (wai.neural.int_hyper, shipped trained set)" >&2
mkdir -p out
# A real photograph (scikit-image's astronaut, NASA, public domain) encoded with the shipped
# set samples/models/q2; decode finds that set by the payload's model-set id.
"$bin" decode samples/photo.wai -o out/photo.png --compare samples/photo.png
echo "decoded picture: out/photo.png" >&2
