#!/bin/sh
# Builds the CPU backend's kernels with the flags SwiftPM uses for the CPUKernels target
# (-O3) into a standalone benchmark and runs it: run.sh [scalar|avx2|avx512] [threads] [reps]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kernels="$here/../Kernels"
out="${TMPDIR:-/tmp}/waihost-bench-cpu"
${CC:-clang} -O3 -I "$kernels/include" "$here/bench_cpu.c" "$kernels"/*.c -lpthread -lm -o "$out"
exec "$out" "$@"
