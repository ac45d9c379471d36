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
echo "== waihost decode samples/sample.wai (wai.neural.int_hyper)" >&2
mkdir -p out
"$bin" decode samples/sample.wai --model samples/int_hyper_model -o out/sample.png
echo "decoded picture: out/sample.png" >&2
