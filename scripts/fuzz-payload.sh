#!/usr/bin/env bash
# Fuzzes the wai.neural.int_hyper payload decoder (docs/capabilities/int_hyper.md §4–§5) with
# libFuzzer on one core. Usage: scripts/fuzz-payload.sh [SECONDS] (default 60).
# Builds Tests/Fuzz/payload/PayloadFuzz.swift into one module with the sources it tests
# (swiftc -sanitize=fuzzer,address -parse-as-library), seeds the corpus with valid payloads
# of both payload versions (version 2's lane streams with 1, 2, 5 and 32 lanes) written by
# Tests/Fuzz/payload/CorpusGenerator.swift, runs and prints the number of
# executions. A crash leaves its input in .build/fuzz-payload/artifacts/ and makes this
# script fail; reproduce with: .build/fuzz-payload/payload-fuzz ARTIFACT
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz-payload.sh [SECONDS]" >&2
  exit 2
fi

out=.build/fuzz-payload
mkdir -p "$out/artifacts" "$out/corpus"

# The layers' files compiled as one module (docs/architecture.md, "Modules").
core=Sources/WaiCore caps=Sources/WaiCapabilities host=Sources/WaiRuntime
sources=($caps/GraphRunner.swift $caps/CapabilityRegistry.swift $caps/FieldReader.swift $core/Support/LocalFile.swift
         $(ls $caps/IntHyper/*.swift | grep -v -e IntHyperProbeVector -e IntHyperDecodeReport -e ShippedModelSets)
         $core/Image/RGB8Image.swift Sources/WaiEntropy/Entropy/*.swift Sources/WaiEntropy/Envelope/*.swift $core/Graph/*.swift $core/Model/*.swift
         $core/Reference/*.swift Sources/WaiCrypto/SHA256.swift Sources/WaiCrypto/SHA256Hasher.swift Sources/WaiSupport/*.swift Sources/WaiOps/*.swift $host/Dispatch/RunReport.swift $host/Dispatch/HostError.swift $host/Qualification/ModelGraphID.swift
         $core/Support/SplitMix64.swift $core/Support/Parallel.swift Tests/Fuzz/payload/PayloadFixture.swift)

if ! swiftc -O -parse-as-library -module-name WaiHost -package-name WaiHost -I Sources/COpenSSL "${sources[@]}" \
     Tests/Fuzz/payload/CorpusGenerator.swift -lcrypto -o "$out/payload-corpus" >"$out/generator-build.log" 2>&1; then
  cat "$out/generator-build.log" >&2
  exit 1
fi
"$out/payload-corpus" "$out/corpus" >/dev/null

if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name WaiHost -package-name WaiHost -use-ld=lld \
     -I Sources/COpenSSL "${sources[@]}" Tests/Fuzz/payload/PayloadFuzz.swift Tests/Fuzz/Shared/FuzzInput.swift -lcrypto \
     -o "$out/payload-fuzz" >"$out/fuzz-build.log" 2>&1; then
  cat "$out/fuzz-build.log" >&2
  exit 1
fi

log="$out/payload.log"
# -detect_leaks=0: the model set the harness keeps for the whole run holds arrays inside
# Swift enum payloads, whose pointers carry tag bits LeakSanitizer cannot follow, so it
# reports them as leaked at exit. Nothing per input is kept.
if ASAN_OPTIONS=detect_leaks=0 "$out/payload-fuzz" "$out/corpus" -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
     -detect_leaks=0 \
     -artifact_prefix="$out/artifacts/payload-" -print_final_stats=1 >"$log" 2>&1; then
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
  echo "payload: $runs executions in ${seconds}s, no crash (corpus: $out/corpus)"
else
  echo "payload: FAILED, see $log and $out/artifacts/" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
