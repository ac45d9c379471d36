#!/usr/bin/env bash
# The release build every installed file comes from (scripts/setup.sh, make install, the
# install and package tests): the Swift standard library, Foundation and Dispatch linked
# statically into each executable, libwaihost and each plugin, so installed files need no
# Swift toolchain (docs/configuration.md §5). --static-swift-stdlib covers SwiftPM's
# executables only; -Xswiftc -static-stdlib carries the same to the shared libraries.
# --disable-local-rpath drops SwiftPM's RUNPATH $ORIGIN: installed files find their libraries
# through the system's linker paths only.
# Usage: scripts/build-release.sh [swift build arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
swift build -c release --static-swift-stdlib -Xswiftc -static-stdlib --disable-local-rpath "$@"
