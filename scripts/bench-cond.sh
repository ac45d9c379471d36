#!/usr/bin/env bash
# wai.video.int_cond decode speed (docs/capabilities/video_int_cond.md §12):
# scripts/bench-predictive.sh cond, which says what it measures.
# Usage: [MODEL=DIR] [BACKENDS=...] scripts/bench-cond.sh [WxH] [N] [M] [RUNS]  (default 640x360 48 64 3)
exec "$(dirname "$0")/bench-predictive.sh" cond "$@"
