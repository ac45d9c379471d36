#!/usr/bin/env bash
# Fuzzes the WAI1 envelope parser, the rANS decoder and the lane-stream decoder
# (docs/entropy-coding.md §8) with libFuzzer, one target after the other on one core.
# Usage: scripts/fuzz-entropy.sh [SECONDS_PER_TARGET] [TARGET...]
# (targets: envelope, rans, lanes; default all three, 60 s each). Prints the executions of each run.
# Harnesses: Tests/Fuzz/envelope/*Fuzz.swift, linked against the instrumented library layers
# (scripts/fuzz-lib.sh). A crash leaves its input in
# .build/fuzz-entropy/artifacts/ and makes this script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(envelope rans lanes)

out=.build/fuzz-entropy
mkdir -p "$out/artifacts"

sources_for() {
  case "$1" in
    envelope) echo Tests/Fuzz/envelope/EnvelopeFuzz.swift Tests/Fuzz/Shared/Resealed.swift ;;
    rans)     echo Tests/Fuzz/envelope/RansFuzz.swift Tests/Fuzz/envelope/FuzzTables.swift ;;
    lanes)    echo Tests/Fuzz/envelope/LaneFuzz.swift Tests/Fuzz/envelope/FuzzTables.swift ;;
    *) echo "unknown fuzz target '$1' (envelope, rans, lanes)" >&2; return 1 ;;
  esac
}

seed() {
  # A valid input for each target, so the fuzzer starts on the accepting paths.
  local corpus="$out/corpus-$1"
  mkdir -p "$corpus"
  case "$1" in
    envelope) printf '%s' "5741493101147761692e6e657572616c2e696e745f68797065720400000000000000010203ffc75387cfef7b302bf86b71044f48a51d64d370ac114904e13896d34afc781fe7" ;;
    # one table (p = 16, 9 symbols, escape 8), 0 values asked, the empty stream 00 00 80 00
    rans)     printf '%s' "00000f080800" "804020100804020100" "0000" "00008000" ;;
    # one table (p = 4, K = 1), 0 values, 1 thread, 2 empty lanes
    lanes)    printf '%s' "00" "03000000" "00" "0000" "00" "02" "04000000" "04000000" "00008000" "00008000" ;;
  esac | xxd -r -p > "$corpus/seed"
}

. scripts/fuzz-lib.sh
fuzz_build_layers

status=0
for target in "${targets[@]}"; do
  binary="$out/$target-fuzz"
  # shellcheck disable=SC2046
  fuzz_link harness "$binary" $(sources_for "$target") Tests/Fuzz/Shared/FuzzInput.swift
  seed "$target"
  fuzz_run "$target" "$binary" "$out/corpus-$target" "$seconds" "$out" || status=1
done
exit $status
