#!/usr/bin/env bash
# Fuzzes the wai.video.int_hyper side (docs/capabilities/video_int_hyper.md §11) with
# libFuzzer on one core, one target after the other: y4m (the YUV4MPEG2 reader and writer)
# and payload (envelope, sequence header, frame index and the whole decode with the int_hyper
# fuzz fixture's model set on the reference interpreter).
# Usage: scripts/fuzz-video.sh [SECONDS_PER_TARGET] [TARGET...] (default 60 s, both targets).
# Harnesses: Tests/Fuzz/video/*Fuzz.swift, each compiled into one module with the sources it
# tests (swiftc -sanitize=fuzzer,address -parse-as-library); the seed corpora are written by
# Tests/Fuzz/video/CorpusGenerator.swift. A crash leaves its input in
# .build/fuzz-video/artifacts/ and makes this script fail; reproduce with
# .build/fuzz-video/TARGET-fuzz ARTIFACT
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz-video.sh [SECONDS_PER_TARGET] [y4m|payload]..." >&2
  exit 2
fi
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(y4m payload)

out=.build/fuzz-video
mkdir -p "$out/artifacts" "$out/corpus/y4m" "$out/corpus/payload"

# The layers' files compiled as one module (docs/architecture.md, "Modules").
core=Sources/WaiCore caps=Sources/WaiCapabilities host=Sources/WaiRuntime
y4m_sources=($core/Image/Y4M.swift $core/Image/Y4MError.swift $core/Image/RGB8Image.swift
             Sources/WaiCrypto/SHA256.swift Sources/WaiCrypto/SHA256Hasher.swift Sources/WaiSupport/*.swift)
# The int_hyper payload harness's sources (scripts/fuzz-payload.sh), the video ones and the Y4M side.
payload_sources=($caps/GraphRunner.swift $caps/CapabilityRegistry.swift $caps/FieldReader.swift $core/Support/LocalFile.swift
         $(ls $caps/IntHyper/*.swift | grep -v -e IntHyperProbeVector -e IntHyperDecodeReport -e ShippedModelSets)
         $(ls $caps/VideoIntHyper/*.swift | grep -v VideoDecodeReport)
         $core/Image/RGB8Image.swift $core/Image/Y4M.swift $core/Image/Y4MError.swift $core/Image/YCbCrBT601.swift
         Sources/WaiEntropy/Entropy/*.swift Sources/WaiEntropy/Envelope/*.swift $core/Graph/*.swift $core/Model/*.swift
         $core/Reference/*.swift Sources/WaiCrypto/SHA256.swift Sources/WaiCrypto/SHA256Hasher.swift Sources/WaiSupport/*.swift Sources/WaiOps/*.swift
         $host/Dispatch/RunReport.swift $host/Dispatch/HostError.swift $host/Qualification/ModelGraphID.swift $core/Support/SplitMix64.swift Tests/Fuzz/payload/PayloadFixture.swift)

if ! swiftc -O -parse-as-library -module-name WaiHost -package-name WaiHost -I Sources/COpenSSL "${payload_sources[@]}" \
     Tests/Fuzz/video/CorpusGenerator.swift -lcrypto -o "$out/video-corpus" >"$out/generator-build.log" 2>&1; then
  cat "$out/generator-build.log" >&2
  exit 1
fi
"$out/video-corpus" "$out/corpus" >/dev/null

status=0
for target in "${targets[@]}"; do
  case "$target" in
    y4m)     sources=("${y4m_sources[@]}" Tests/Fuzz/video/Y4MFuzz.swift) ;;
    payload) sources=("${payload_sources[@]}" Tests/Fuzz/video/VideoPayloadFuzz.swift) ;;
    *) echo "unknown fuzz target '$target' (y4m, payload)" >&2; exit 2 ;;
  esac
  binary="$out/$target-fuzz"
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name WaiHost -package-name WaiHost -use-ld=lld \
       -I Sources/COpenSSL "${sources[@]}" Tests/Fuzz/Shared/FuzzInput.swift -lcrypto -o "$binary" >"$out/$target-build.log" 2>&1; then
    cat "$out/$target-build.log" >&2
    exit 1
  fi
  log="$out/$target.log"
  # -detect_leaks=0: as scripts/fuzz-payload.sh (the fixture held for the whole run).
  if ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "$binary" "$out/corpus/$target" -max_total_time="$seconds" \
       -max_len=16384 -rss_limit_mb=2048 -timeout=10 -detect_leaks=0 \
       -artifact_prefix="$out/artifacts/$target-" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
    echo "$target: $runs executions in ${seconds}s, no crash (corpus: $out/corpus/$target)"
  else
    echo "$target: FAILED, see $log and $out/artifacts/" >&2
    tail -n 40 "$log" >&2
    status=1
  fi
done
exit $status
