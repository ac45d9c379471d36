#!/usr/bin/env bash
# Fuzzes the wai.neural.int_hyper payload decoder (docs/capabilities/int_hyper.md §4–§5) with
# libFuzzer on one core. Usage: scripts/fuzz-payload.sh [SECONDS] (default 60).
# Builds Tests/Fuzz/payload/PayloadFuzz.swift against the instrumented library layers
# (scripts/fuzz-lib.sh), seeds the corpus with valid payloads
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

. scripts/fuzz-lib.sh
fuzz_build_layers
fuzz_link generator "$out/payload-corpus" Tests/Fuzz/payload/CorpusGenerator.swift Tests/Fuzz/payload/PayloadFixture.swift
ASAN_OPTIONS=detect_leaks=0 "$out/payload-corpus" "$out/corpus" >/dev/null
fuzz_link harness "$out/payload-fuzz" Tests/Fuzz/payload/PayloadFuzz.swift Tests/Fuzz/payload/PayloadFixture.swift Tests/Fuzz/Shared/FuzzInput.swift

# -detect_leaks=0: the model set the harness keeps for the whole run (fuzz_run); nothing per
# input is kept.
fuzz_run payload "$out/payload-fuzz" "$out/corpus" "$seconds" "$out" -max_len=8192 -timeout=10 -detect_leaks=0
