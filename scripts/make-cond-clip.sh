#!/usr/bin/env bash
# Regenerates Tests/Fixtures/int_cond/clip.wai and clip.json (docs/capabilities/video_int_cond.md
# §10): scripts/make-predictive-clip.sh cond, which says how.
# Usage: scripts/make-cond-clip.sh
exec "$(dirname "$0")/make-predictive-clip.sh" cond
