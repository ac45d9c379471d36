#!/usr/bin/env bash
# The README's second command: every test. Builds all products first, because the tests
# load the backend .so files and run the `waihost` binary from beside the test bundle.
# Every suite writes JUnit XML under .build/test-results; the last line printed is the
# whole run's `N passed, N failed` (scripts/test-summary.py), and the exit status is 0
# only when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
results=.build/test-results
rm -rf "$results"
mkdir -p "$results"
swift build --build-tests || { echo "test: the build failed" >&2; echo "0 passed, 1 failed"; exit 1; }

swift test --skip-build --parallel --num-workers 2 --xunit-output "$results/swift.xml" "$@"
expected=("$results/swift.xml")

# The README's embedding example, built as a separate package that depends on this one;
# it counts as one test case.
echo "== Examples/EmbedHost (the README's embedding example)" >&2
example_case() {
  local bin tmp
  bin="$(swift build --show-bin-path)"
  tmp="$(mktemp -d)"
  mkdir -p "$tmp/plugins"
  cp "$bin"/libWai*Backend.so "$tmp/plugins/" &&
  swift build --package-path Examples/EmbedHost &&
  # The unit worker is installed beside the embedding program, as an application would ship
  # it; no waihost CLI on PATH, no WAIHOST_UNIT_WORKER: the library finds it there.
  local app
  app="$(swift build --package-path Examples/EmbedHost --show-bin-path)/EmbedHost" &&
  install -m 0755 "$bin/waihost-unit-worker" "$(dirname "$app")/waihost-unit-worker" &&
  env -u WAIHOST_UNIT_WORKER PATH=/usr/bin:/bin WAI_PLUGIN_PATH="$tmp/plugins" WAIHOST_CACHE_DIR="$tmp/cache" "$app"
  local rc=$?
  rm -rf "$tmp"
  return $rc
}
if example_case; then
  printf '<testsuite><testcase classname="Examples" name="EmbedHost"/></testsuite>\n' > "$results/examples.xml"
else
  printf '<testsuite><testcase classname="Examples" name="EmbedHost"><failure/></testcase></testsuite>\n' > "$results/examples.xml"
fi
expected+=("$results/examples.xml")

python3 scripts/test-summary.py "${expected[@]}"
