#!/usr/bin/env bash
# Benchmark (not a test) of the installed tree (scripts/install.sh into a scratch DESTDIR,
# from the static release build): its size, and samples/photo.wai decoded by the installed
# `waihost decode` (the baseline), by Examples/CDecode linked through
# `pkg-config --cflags --libs waihost` against the installed libwaihost, and by
# waihost.decode() of bindings/python (ctypes) loading that libwaihost — RUNS times each,
# interleaved, on the unit ranked first (forced by name, so both use it), one warm probe cache.
# Prints medians of the whole process's wall time and of the report's timings.total_ms, and
# the C and Python examples' ratios to the CLI.
# Usage: scripts/bench-install.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-9}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
DESTDIR="$tmp/stage" scripts/install.sh /usr/local >/dev/null 2>&1
p="$tmp/stage/usr/local"
PKG_CONFIG_PATH="$p/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/stage" sh -c \
  'cc -std=c11 -O2 -o "$0" Examples/CDecode/cdecode.c $(pkg-config --cflags --libs waihost)' "$tmp/cdecode"
export LD_LIBRARY_PATH="$p/lib" WAIHOST_CACHE_DIR="$tmp/cache" PYTHONPATH="$PWD/bindings/python"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
echo "installed size: $(du -sh "$p" | cut -f1) ($(du -sk "$p" | cut -f1) KiB; bin $(du -sh "$p/bin" | cut -f1), lib $(du -sh "$p/lib" | cut -f1), share $(du -sh "$p/share" | cut -f1))"
/usr/bin/python3 - "$p/bin/waihost" "$tmp/cdecode" "$p/share/waihost/models/q2" "$runs" <<'PY'
import json, statistics, subprocess, sys, time
waihost, cdecode, model, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sample = "samples/photo.wai"
probe = json.loads(subprocess.run([waihost, "probe", "--json"], check=True, capture_output=True, text=True).stdout)
first = next(u for u in probe["units"] if u.get("rank") == 1)
unit = "%s:%d" % (first["backend"], first["index"])
py = ("import json, sys, waihost\n"
      "rgb, r = waihost.decode(sys.argv[1], model=sys.argv[2], unit=sys.argv[3])\n"
      "print(json.dumps(r))\n")
cases = [("installed waihost decode (CLI)", [waihost, "decode", sample, "-o", "-", "--json", "--unit", unit], "stderr"),
         ("Examples/CDecode on installed libwaihost", [cdecode, "-j", "-u", unit, model, sample], "stdout"),
         ("waihost.decode (Python) on installed libwaihost", ["/usr/bin/python3", "-c", py, sample, model, unit], "stdout")]
samples = {name: [] for name, _, _ in cases}
for _, cmd, _ in cases:
    subprocess.run(cmd, check=True, capture_output=True)   # warm-up: page cache, probe cache
for _ in range(runs):
    for name, cmd, stream in cases:
        t = time.perf_counter()
        p = subprocess.run(cmd, check=True, capture_output=True)
        wall = (time.perf_counter() - t) * 1e3
        r = json.loads(getattr(p, stream).decode())
        samples[name].append((wall, r["timings"]["total_ms"], r["sha256"]))
print(f"unit {unit}; {runs} runs each, medians:")
base = None
for name, _, _ in cases:
    wall = statistics.median(s[0] for s in samples[name]); dec = statistics.median(s[1] for s in samples[name])
    shas = {s[2] for s in samples[name]}
    if base is None: base = (wall, dec)
    print(f"  {name:48s} process {wall:8.1f} ms ({wall / base[0]:.3f}x)   decode {dec:7.1f} ms ({dec / base[1]:.3f}x)   sha256 {'/'.join(shas)}")
PY
