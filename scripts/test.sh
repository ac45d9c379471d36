#!/usr/bin/env bash
# The README's second command: every test. Builds all products first, because the tests
# load the backend .so files and run the `waihost` binary from beside the test bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
swift build --build-tests
swift test --skip-build --parallel --num-workers 2 "$@"

# The README's embedding example, built as a separate package that depends on this one.
echo "== Examples/EmbedHost (the README's embedding example)" >&2
bin="$(swift build --show-bin-path)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
cp "$bin"/libWai*Backend.so "$tmp/plugins/"
swift build --package-path Examples/EmbedHost
WAI_PLUGIN_PATH="$tmp/plugins" WAIHOST_PROBER="$bin/waihost" WAIHOST_CACHE_DIR="$tmp/cache" \
  "$(swift build --package-path Examples/EmbedHost --show-bin-path)/EmbedHost"
