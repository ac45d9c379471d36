#!/usr/bin/env bash
# Fuzzes the .whm model decoder (docs/model-container.md), certificate verifier included,
# with libFuzzer on one core. Usage: scripts/fuzz.sh SECONDS
# Builds Tests/Fuzz/model/ModelFuzz.swift and Tests/Fuzz/Shared against the instrumented library
# layers (scripts/fuzz-lib.sh), seeds the corpus with the valid
# models Tests/Fuzz/model/CorpusGenerator.swift writes, runs for SECONDS and prints the
# number of executions. A crash leaves its input in .build/fuzz-model/artifacts/ and makes
# this script fail; reproduce with: .build/fuzz-model/model-fuzz ARTIFACT
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh SECONDS" >&2
  exit 2
fi
seconds="$1"

out=.build/fuzz-model
mkdir -p "$out/artifacts" "$out/corpus"

. scripts/fuzz-lib.sh
fuzz_build_layers
fuzz_link generator "$out/corpus-generator" Tests/Fuzz/model/CorpusGenerator.swift
"$out/corpus-generator" "$out/corpus"
fuzz_link harness "$out/model-fuzz" Tests/Fuzz/model/ModelFuzz.swift Tests/Fuzz/Shared/*.swift

fuzz_run model "$out/model-fuzz" "$out/corpus" "$seconds" "$out" -max_len=16384
