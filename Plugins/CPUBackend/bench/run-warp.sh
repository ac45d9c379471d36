#!/bin/sh
# Builds the warp benchmark (bench_warp.c) with the flags SwiftPM uses for the CPUKernels
# target (-O3) and runs it: run-warp.sh [threads] [rounds]. Not a test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kernels="$here/../Kernels"
abi="$here/../../../Sources/BackendABI/include"
out="${TMPDIR:-/tmp}/waihost-bench-warp-$$"
trap 'rm -f "$out"' EXIT
grep -m1 'model name' /proc/cpuinfo
${CC:-clang} -O3 -I "$kernels/include" -I "$abi" "$here/bench_warp.c" "$kernels"/*.c -lpthread -lm -ldl -o "$out"
"$out" "$@"
