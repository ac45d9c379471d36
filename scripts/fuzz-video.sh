#!/usr/bin/env bash
# Fuzzes the wai.video.int_hyper side (docs/capabilities/video_int_hyper.md §11) with
# libFuzzer on one core, one target after the other: y4m (the YUV4MPEG2 reader and writer)
# payload (envelope, sequence header, frame index and the whole decode with the int_hyper
# fuzz fixture's model set on the reference interpreter) and motion (the same for
# wai.video.int_motion, docs/capabilities/video_int_motion.md §5–§6, with a seeded N = M = 4
# motion set beside it) and cond (the same for wai.video.int_cond,
# docs/capabilities/video_int_cond.md §11, with a seeded N = M = 4 conditional set).
# Usage: scripts/fuzz-video.sh [SECONDS_PER_TARGET] [TARGET...] (default 60 s, every target).
# Harnesses: Tests/Fuzz/video/*Fuzz.swift (PredictiveFuzz.swift: motion's and cond's shared checks), linked against the instrumented library layers
# (scripts/fuzz-lib.sh); the seed corpora are written by
# Tests/Fuzz/video/CorpusGenerator.swift. A crash leaves its input in
# .build/fuzz-video/artifacts/ and makes this script fail; reproduce with
# .build/fuzz-video/TARGET-fuzz ARTIFACT
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz-video.sh [SECONDS_PER_TARGET] [y4m|payload|motion|cond]..." >&2
  exit 2
fi
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(y4m payload motion cond)

out=.build/fuzz-video
mkdir -p "$out/artifacts" "$out/corpus/y4m" "$out/corpus/payload" "$out/corpus/motion" "$out/corpus/cond"

. scripts/fuzz-lib.sh
fuzz_build_layers
fuzz_link generator "$out/video-corpus" Tests/Fuzz/video/CorpusGenerator.swift Tests/Fuzz/payload/PayloadFixture.swift \
  Tests/Fuzz/video/MotionFixture.swift Tests/Fuzz/video/CondFixture.swift
ASAN_OPTIONS=detect_leaks=0 "$out/video-corpus" "$out/corpus" >/dev/null

status=0
for target in "${targets[@]}"; do
  case "$target" in
    y4m)     sources=(Tests/Fuzz/video/Y4MFuzz.swift) ;;
    payload) sources=(Tests/Fuzz/video/VideoPayloadFuzz.swift Tests/Fuzz/payload/PayloadFixture.swift) ;;
    motion)  sources=(Tests/Fuzz/video/MotionPayloadFuzz.swift Tests/Fuzz/video/PredictiveFuzz.swift Tests/Fuzz/video/MotionFixture.swift
               Tests/Fuzz/payload/PayloadFixture.swift) ;;
    cond)    sources=(Tests/Fuzz/video/CondPayloadFuzz.swift Tests/Fuzz/video/PredictiveFuzz.swift Tests/Fuzz/video/CondFixture.swift
               Tests/Fuzz/payload/PayloadFixture.swift) ;;
    *) echo "unknown fuzz target '$target' (y4m, payload, motion, cond)" >&2; exit 2 ;;
  esac
  binary="$out/$target-fuzz"
  fuzz_link harness "$binary" "${sources[@]}" Tests/Fuzz/Shared/FuzzInput.swift
  # -detect_leaks=0: the fixture held for the whole run (fuzz_run).
  fuzz_run "$target" "$binary" "$out/corpus/$target" "$seconds" "$out" -max_len=16384 -timeout=10 -detect_leaks=0 || status=1
done
exit $status
