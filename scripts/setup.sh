#!/usr/bin/env bash
# The README's first command: install what is missing, build in release mode
# (scripts/build-release.sh: static Swift standard library), install the
# backends into plugins.d/, and run the main job on the bundled sample data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
# The static release build make install and the install tests use too (one build, not two).
scripts/build-release.sh
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
