#!/usr/bin/env bash
# Regenerates Tests/Fixtures/int_motion/clip.wai and clip.json (docs/capabilities/video_int_motion.md
# §10): scripts/make-predictive-clip.sh motion, which says how.
# Usage: scripts/make-motion-clip.sh
exec "$(dirname "$0")/make-predictive-clip.sh" motion
