# Sourced by the scripts/fuzz*.sh harness scripts. The library layers are built once by SwiftPM
# itself, with libFuzzer's coverage instrumentation and AddressSanitizer, into their own scratch
# folder; each harness is then one swiftc line linked against those objects. So a harness sees
# exactly the package's modules (docs/architecture.md, "Modules"): there is no hand-kept list
# of source files to drift when files move or gain a dependency. Harness sources name the
# layers they use with `@testable import` (the layers are built with -enable-testing).

fuzz_scratch=.build/fuzz-spm
fuzz_products="$fuzz_scratch/release"

# Builds (or brings up to date) every layer up to WaiCapabilities, instrumented.
fuzz_build_layers() {
  mkdir -p "$fuzz_scratch"
  if ! swift build -c release --scratch-path "$fuzz_scratch" --target WaiCapabilities \
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xcc -fsanitize=fuzzer-no-link,address \
       >"$fuzz_scratch/build.log" 2>&1; then
    tail -n 60 "$fuzz_scratch/build.log" >&2
    echo "fuzz: building the instrumented layers failed (log: $fuzz_scratch/build.log)" >&2
    return 1
  fi
}

# The objects and C module maps of the targets that build produced (build tools excluded).
fuzz_link_inputs() {
  local d
  for d in "$fuzz_products"/*.build; do
    case "$d" in *-tool.build) continue ;; esac
    compgen -G "$d/*.o" >/dev/null || continue
    ls "$d"/*.o
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
  if ! swiftc -sanitize="$sanitize" -parse-as-library -O -use-ld=lld -I "$fuzz_products/Modules" \
       -I Sources/COpenSSL -I Sources/CSodium -I Sources/CPNG "$@" "${inputs[@]}" -lcrypto -lsodium -lpng -o "$output" \
       >"$output.build.log" 2>&1; then
    cat "$output.build.log" >&2
    echo "fuzz: linking $output failed" >&2
    return 1
  fi
}

# The executions libFuzzer reports in LOG.
fuzz_runs() { grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$1" | grep -Eo '[0-9]+$' || echo "?"; }
