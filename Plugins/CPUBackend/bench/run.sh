#!/bin/sh
# Builds the CPU backend's kernels with the flags SwiftPM uses for the CPUKernels target
# (-O3) into a standalone benchmark and runs it:
#   run.sh [scalar|avx2|avx512] [threads] [reps] [path/to/libWaiCPUBackend.so]
# The optional plugin path also times the same graph through the plugin's ABI (build it
# first: swift build -c release --product WaiCPUBackend).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kernels="$here/../Kernels"
abi="$here/../../../Sources/BackendABI/include"
out="${TMPDIR:-/tmp}/waihost-bench-cpu"
${CC:-clang} -O3 -I "$kernels/include" -I "$abi" "$here/bench_cpu.c" "$kernels"/*.c -lpthread -lm -ldl -o "$out"
exec "$out" "$@"
