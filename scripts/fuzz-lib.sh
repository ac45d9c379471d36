# Sourced by the scripts/fuzz*.sh harness scripts. The library layers are built once by SwiftPM
# itself, with libFuzzer's coverage instrumentation and AddressSanitizer, into their own scratch
# folder; each harness is then one swiftc line linked against those objects. So a harness sees
# exactly the package's modules (docs/architecture.md, "Modules"): there is no hand-kept list
# of source files to drift when files move or gain a dependency. Harness sources name the
# layers they use with `@testable import` (the layers are built with -enable-testing).

fuzz_scratch=.build/fuzz-spm
fuzz_products="$fuzz_scratch/release"

# Builds (or brings up to date) every layer up to WaiCapabilities, instrumented, and the
# targets named (e.g. Audit, which brings the relay), each with what it depends on.
fuzz_build_layers() {
  local target
  mkdir -p "$fuzz_scratch"
  for target in WaiCapabilities "$@"; do
    if ! swift build -c release --scratch-path "$fuzz_scratch" --target "$target" \
         -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xcc -fsanitize=fuzzer-no-link,address \
         >"$fuzz_scratch/build.log" 2>&1; then
      tail -n 60 "$fuzz_scratch/build.log" >&2
      echo "fuzz: building the instrumented layers ($target) failed (log: $fuzz_scratch/build.log)" >&2
      return 1
    fi
  done
}

# The objects and C module maps of the targets that build produced (build tools excluded).
# A Swift target's objects are those of the sources it has now (its `sources` list): the
# object of a source file since removed stays in the scratch folder and must not be linked.
fuzz_link_inputs() {
  local d f
  for d in "$fuzz_products"/*.build; do
    case "$d" in *-tool.build) continue ;; esac
    compgen -G "$d/*.o" >/dev/null || continue
    if [ -f "$d/sources" ]; then
      while IFS= read -r f; do
        [ -f "$d/$(basename "$f").o" ] && echo "$d/$(basename "$f").o"
      done < "$d/sources"
    else
      ls "$d"/*.o
    fi
    [ -f "$d/module.modulemap" ] && echo "-Xcc" && echo "-fmodule-map-file=$d/module.modulemap"
  done
}

# fuzz_link KIND OUTPUT SOURCES...: KIND is `harness` (libFuzzer's main, LLVMFuzzerTestOneInput
# in SOURCES) or `generator` (a corpus generator with its own @main, ASan only).
fuzz_link() {
  local kind="$1" output="$2"; shift 2
  local sanitize=fuzzer,address
  [ "$kind" = generator ] && sanitize=address
  local inputs
  mapfile -t inputs < <(fuzz_link_inputs)
  # Every system library a layer links. libcurl, libmicrohttpd, libsqlite3 and libpq are not
  # among them: the relay's and the audit's objects (inputs once a harness script has built
  # them, fuzz_build_layers Audit CLazyLibrary) load those on first use (Sources/CLazyLibrary).
  if ! swiftc -sanitize="$sanitize" -parse-as-library -O -use-ld=lld -I "$fuzz_products/Modules" \
       -I Sources/COpenSSL -I Sources/CSodium -I Sources/CPNG "$@" "${inputs[@]}" \
       -lcrypto -lsodium -lpng -o "$output" \
       >"$output.build.log" 2>&1; then
    cat "$output.build.log" >&2
    echo "fuzz: linking $output failed" >&2
    return 1
  fi
}

# The executions libFuzzer reports in LOG.
fuzz_runs() { grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$1" | grep -Eo '[0-9]+$' || echo "?"; }

# fuzz_run NAME BINARY CORPUS SECONDS OUT [FLAG...]: runs the harness BINARY on CORPUS for
# SECONDS with libFuzzer's FLAGs added (-max_len, -timeout, ...), its log in OUT/NAME.log and
# any crashing input in OUT/artifacts/NAME-*; prints one line and returns 1 on a crash.
# -detect_leaks=0 among the FLAGs turns AddressSanitizer's leak check at exit off as well (a
# harness that keeps a fixture for the whole run: Swift enum payloads hold pointers with tag
# bits LeakSanitizer cannot follow). Swift's own backtracer is off: libFuzzer reports the crash,
# and under ASan the backtracer's handler is what would be reported instead of the real trap.
fuzz_run() {
  local name="$1" binary="$2" corpus="$3" seconds="$4" out="$5"; shift 5
  local log="$out/$name.log" asan="" flag
  for flag in "$@"; do [ "$flag" = -detect_leaks=0 ] && asan=detect_leaks=0; done
  mkdir -p "$out/artifacts"
  if ASAN_OPTIONS="${asan:-${ASAN_OPTIONS:-}}" SWIFT_BACKTRACE=enable=no "$binary" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 \
       -artifact_prefix="$out/artifacts/$name-" -print_final_stats=1 "$@" >"$log" 2>&1; then
    echo "$name: $(fuzz_runs "$log") executions in ${seconds}s, no crash (corpus: $corpus)"
  else
    echo "$name: FAILED, see $log and $out/artifacts/" >&2
    tail -n 40 "$log" >&2
    return 1
  fi
}
