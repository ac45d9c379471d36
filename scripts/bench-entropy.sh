#!/usr/bin/env bash
# Benchmark (not a test) of y entropy decoding: one §5 stream (int_hyper payload version 1)
# against the lane stream of docs/entropy-coding.md §8 (version 2) on 1 thread and on every
# core, the same values in the same run. Usage: scripts/bench-entropy.sh [VALUES] [RUNS] [THREADS]
# (default 6220800 values = M 192 × 135 × 240, a 3840×2160 picture's y; 5 runs, all cores).
# WAI_BENCH_LANES=L codes L lanes instead of the default count for VALUES (a low-rate
# stream's encoder writes few, §8.3); WAI_BENCH_TABLES=entropy.json takes a model set's
# y tables (e.g. samples/models/motion/residual_entropy.json), each value's table drawn
# uniformly from all of them, instead of the seeded generator's Gaussian ones.
# WAI_BENCH_LATENTS=DIR (with WAI_BENCH_TABLES=MODELSET/entropy.json) takes a real payload's y and
# scale indices, written by `waihost decode --latents DIR` (docs/capabilities/int_hyper.md §8.1),
# instead of generated ones; VALUES is then ignored.
# WAI_BENCH_EMULATE_AVX512=1 builds the AVX-512 loop on emulated intrinsics and chooses loops
# as on an AVX-512 CPU, so that loop's values and extremes are checked (the run stops at the
# first difference) on a CPU without AVX-512; its times then mean nothing.
# WAI_BENCH_FRESH_PAGES=1 gives every decode's output new pages, as a decode process's one
# picture has (glibc otherwise keeps the first decode's pages for the next): each 4 KiB
# page, or 2 MiB page where the decoder advised it, is faulted in again (docs/entropy-coding.md §8.4).
# Built with swiftc -O -wmo (what `swift build -c release` uses) from the entropy sources and
# Tests/Bench/entropy/EntropyBench.swift. Prints the CPU first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

out=.build/bench-entropy
mkdir -p "$out/modules"
rm -f "$out"/*.o
# The lane decoder's C loops and the ISA detection they are chosen by: C, as SwiftPM builds them.
for m in EntropyKernels RegionKernels; do
  hdr=$(ls "$PWD/Sources/$m/include/"*.h)
  mkdir -p "$out/modules/$m"
  printf 'module %s {\n  header "%s"\n  export *\n}\n' "$m" "$hdr" > "$out/modules/$m/module.modulemap"
  for c in Sources/$m/*.c; do
    o="$out/$(basename "$c" .c).o"
    if [ "${WAI_BENCH_EMULATE_AVX512:-0}" = 1 ] && [ "$(basename "$c")" = rans_lanes_avx512.c ]; then
      # The vector loop on emulated intrinsics (Tests/Emulation/x86_emulation.h).
      clang -O2 -c -DWAI_AVX512_EMULATED -include Tests/Emulation/x86_emulation.h \
        -I "Sources/$m/include" "$c" -o "$o"
    elif [ "${WAI_BENCH_EMULATE_AVX512:-0}" = 1 ] && [ "$(basename "$c")" = region_kernels.c ]; then
      # The ISA the decoder chooses its loops by: AVX-512, whatever this CPU has.
      clang -O3 -c -I "Sources/$m/include" -Dwai_region_best_isa=wai_region_detected_isa "$c" -o "$o"
      printf '#include "region_kernels.h"\nwai_region_isa wai_region_best_isa(void) { return WAI_REGION_ISA_AVX512; }\n' \
        | clang -O2 -x c -c -I "Sources/$m/include" - -o "$out/region_isa_emulated.o"
    else
      clang -O3 -c -I "Sources/$m/include" "$c" -o "$o"
    fi
  done
done
if ! swiftc -O -wmo -parse-as-library -module-name WaiHost -package-name WaiHost -I "$out/modules/EntropyKernels" \
     -I "$out/modules/RegionKernels" "$out"/*.o Sources/WaiEntropy/Entropy/*.swift \
     Sources/WaiSupport/*.swift Sources/WaiCore/Support/SplitMix64.swift \
     Sources/WaiCapabilities/IntHyper/DiscreteGaussian.swift Sources/WaiCapabilities/IntHyper/DeterministicMath.swift \
     Sources/WaiCapabilities/IntHyper/{EntropyModel,JSONFile,ModelSetError}.swift Tests/Bench/entropy/EntropyBench.swift \
     -o "$out/entropy-bench" >"$out/build.log" 2>&1; then
  cat "$out/build.log" >&2
  exit 1
fi
grep -m1 'model name' /proc/cpuinfo
[ "${WAI_BENCH_EMULATE_AVX512:-0}" = 1 ] && echo "AVX-512 loop EMULATED (Tests/EmulatedEntropyKernels): its rows check its values, not its speed"
echo "cores: $(nproc)"
if [ "${WAI_BENCH_FRESH_PAGES:-0}" = 1 ]; then
  # A fixed mmap threshold: every buffer over 1 MiB is mapped anew and unmapped when freed.
  echo "fresh pages for every decode (glibc.malloc.mmap_threshold=1048576)"
  export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576
fi
"$out/entropy-bench" "$@"
