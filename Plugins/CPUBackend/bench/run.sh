#!/bin/sh
# Builds the CPU backend's kernels with the flags SwiftPM uses for the CPUKernels target
# (-O3) into a standalone benchmark and runs it:
#   run.sh [all|isa,isa,...] [threads] [reps] [path/to/libWaiCPUBackend.so]
# isa: scalar, avx2, avx512, amx; "all" (the default) is every path this CPU has but scalar.
# WAI_BENCH_LATENT=wide draws the latent from [-1024, 1023] instead of [-128, 127].
# WAI_BENCH_SHAPE=M,N,H,W: another g_s (latent channels, channels, latent height, width).
# The optional plugin path also times the same graph through the plugin's ABI on its unit 0
# (build it first: swift build -c release --product WaiCPUBackend).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kernels="$here/../Kernels"
abi="$here/../../../Sources/BackendABI/include"
out="${TMPDIR:-/tmp}/waihost-bench-cpu-$$"
trap 'rm -f "$out"' EXIT
${CC:-clang} -O3 -I "$kernels/include" -I "$abi" "$here/bench_cpu.c" "$kernels"/*.c -lpthread -lm -ldl -o "$out"
"$out" "$@"
