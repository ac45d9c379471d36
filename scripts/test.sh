#!/usr/bin/env bash
# The README's second command: every test. Builds all products first, because the tests
# load the backend .so files from beside the test bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
swift build --build-tests
swift test --skip-build --parallel --num-workers 2 "$@"
