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

# The model-set converter (tools/convert) against the host binary built above, in the tools'
# virtual environment (tools/venv.sh: made once, reused while tools/requirements.txt holds).
echo "== tools/convert (pytest)" >&2
tools_case() {
  local py rc
  py="$(tools/venv.sh)" || return 1
  WAIHOST_BIN="$(swift build --show-bin-path)/waihost" "$py" -m pytest tools/convert/tests -q -p no:cacheprovider \
    -W ignore::FutureWarning --junitxml "$results/tools.xml"
  rc=$?
  # pytest's 5 is "no tests collected": that must not pass silently.
  if [ $rc -eq 5 ]; then
    printf '<testsuite><testcase classname="tools" name="collected"><failure message="no tests collected"/></testcase></testsuite>\n' > "$results/tools.xml"
  fi
  return $rc
}
tools_case || [ -f "$results/tools.xml" ] || \
  printf '<testsuite><testcase classname="tools" name="venv"><failure message="tools/venv.sh failed"/></testcase></testsuite>\n' > "$results/tools.xml"
expected+=("$results/tools.xml")

# The Python binding (bindings/python, ctypes over libwaihost) against the library, CLI and
# CPU backend built above, in Debian's python3 with python3-numpy and python3-pytest
# (scripts/install-deps.sh).
echo "== bindings/python (pytest)" >&2
binding_case() {
  local bin rc
  bin="$(swift build --show-bin-path)"
  WAIHOST_LIBRARY="$bin/libWaiHostC.so" WAIHOST_BIN="$bin/waihost" /usr/bin/python3 -m pytest bindings/python/tests -q \
    -p no:cacheprovider --junitxml "$results/binding.xml"
  rc=$?
  # pytest's 5 is "no tests collected": that must not pass silently.
  if [ $rc -eq 5 ]; then
    printf '<testsuite><testcase classname="binding" name="collected"><failure message="no tests collected"/></testcase></testsuite>\n' > "$results/binding.xml"
  fi
  return $rc
}
binding_case || [ -f "$results/binding.xml" ] || \
  printf '<testsuite><testcase classname="binding" name="pytest"><failure message="/usr/bin/python3 -m pytest did not run"/></testcase></testsuite>\n' > "$results/binding.xml"
expected+=("$results/binding.xml")

# WaiHost installed as a system library (docs/configuration.md §5), from the static release
# build that scripts/setup.sh also makes (built here when absent): the make-install tree and
# the .deb, each run with the Swift toolchain hidden (scripts/test-install.sh).
for case in tree deb; do
  echo "== install: $case (scripts/test-install.sh)" >&2
  if scripts/test-install.sh "$case" 2> "$results/install-$case.log"; then
    printf '<testsuite><testcase classname="Install" name="%s"/></testsuite>\n' "$case" > "$results/install-$case.xml"
  else
    tail -n 40 "$results/install-$case.log" >&2
    reason="$(grep -m1 'FAIL:' "$results/install-$case.log" | sed 's/[&<>"]/_/g')"
    printf '<testsuite><testcase classname="Install" name="%s"><failure message="%s"/></testcase></testsuite>\n' \
      "$case" "${reason:-see .build/test-results/install-$case.log}" > "$results/install-$case.xml"
  fi
  expected+=("$results/install-$case.xml")
done

# The libFuzzer harnesses (Tests/Fuzz), each script one case: the instrumented layers built
# once (scripts/fuzz-lib.sh), every harness linked against them and run a few seconds from
# its seed corpus. This keeps the harnesses building as the library changes; long fuzzing
# runs are the scripts' own (e.g. scripts/fuzz-payload.sh 600).
for fuzz in fuzz fuzz-entropy fuzz-payload fuzz-video fuzz-relay; do
  echo "== fuzz smoke: scripts/$fuzz.sh" >&2
  if scripts/$fuzz.sh "${WAIHOST_FUZZ_SECONDS:-5}" > "$results/$fuzz.log" 2>&1; then
    cat "$results/$fuzz.log" >&2
    printf '<testsuite><testcase classname="Fuzz" name="%s"/></testsuite>\n' "$fuzz" > "$results/$fuzz.xml"
  else
    tail -n 40 "$results/$fuzz.log" >&2
    printf '<testsuite><testcase classname="Fuzz" name="%s"><failure message="see .build/test-results/%s.log"/></testcase></testsuite>\n' \
      "$fuzz" "$fuzz" > "$results/$fuzz.xml"
  fi
  expected+=("$results/$fuzz.xml")
done

python3 scripts/test-summary.py "${expected[@]}"
