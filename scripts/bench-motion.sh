#!/usr/bin/env bash
# wai.video.int_motion decode speed (docs/capabilities/video_int_motion.md §11):
# scripts/bench-predictive.sh motion, which says what it measures.
# Usage: [MODEL=DIR] [BACKENDS=...] scripts/bench-motion.sh [WxH] [N] [M] [RUNS]  (default 640x360 48 64 3)
exec "$(dirname "$0")/bench-predictive.sh" motion "$@"
