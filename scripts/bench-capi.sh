#!/usr/bin/env bash
# Benchmark (not a test) of the C API and the Python binding against the CLI (issue 13,
# "the bindings must add no measurable cost"): samples/sample.wai decoded on one unit by
#  1. `waihost decode` (the baseline), 2. Examples/CDecode through libwaihost,
#  3. waihost.decode() from bindings/python — each RUNS times, as whole processes and as the
# decode call alone (CLI: its report's timings.total; C and Python: the waihost_decode
# call, which also loads the model set). One warm probe cache for all; the unit is the one
# ranked first, forced by name so all three use it. Prints medians and ratios to the CLI.
# Usage: scripts/bench-capi.sh [RUNS]   (BUILD=release for a release build; default debug)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
runs="${1:-7}"
config="${BUILD:-debug}"
swift build -c "$config" --product waihost >/dev/null
swift build -c "$config" --product WaiHostC >/dev/null
swift build -c "$config" --product WaiCPUBackend >/dev/null
bin="$(swift build -c "$config" --show-bin-path)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
cp "$bin/libWaiCPUBackend.so" "$tmp/plugins/"
WAIHOST_BIN_DIR="$bin" scripts/install-capi.sh "$tmp/prefix" 2>/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc -std=c11 -O2 -o "$tmp/cdecode" Examples/CDecode/cdecode.c $(pkg-config --cflags --libs waihost)
export LD_LIBRARY_PATH="$tmp/prefix/lib" WAI_PLUGIN_PATH="$tmp/plugins" WAIHOST_PROBER="$bin/waihost" \
  WAIHOST_CACHE_DIR="$tmp/cache" WAIHOST_LIBRARY="$tmp/prefix/lib/libwaihost.so.1" PYTHONPATH="$PWD/bindings/python"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($config build)"

/usr/bin/python3 - "$bin/waihost" "$tmp/cdecode" "$runs" <<'PY'
import json, statistics, subprocess, sys, time
waihost, cdecode, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
model, sample = "samples/int_hyper_model", "samples/sample.wai"
probe = json.loads(subprocess.run([waihost, "probe", "--json"], check=True, capture_output=True, text=True).stdout)
first = next(u for u in probe["units"] if u.get("rank") == 1)
unit = "%s:%d" % (first["backend"], first["index"])
py = ("import sys, time, waihost\n"
      "h = waihost.Host()\n"
      "t = time.perf_counter(); rgb, r = h.decode(sys.argv[1], model=sys.argv[2], unit=sys.argv[3])\n"
      "print('decode_ms', (time.perf_counter() - t) * 1e3, r['sha256'])\n")

def run(cmd, call_ms):
    t = time.perf_counter()
    p = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return (time.perf_counter() - t) * 1e3, call_ms(p)

def cli_ms(p): return json.loads(p.stderr)["timings"]["total_ms"]
def c_ms(p): return float(next(l for l in p.stdout.splitlines() if l.startswith("decode:")).split()[1])
def py_ms(p): return float(p.stdout.split()[1])

cases = [("waihost decode (CLI)", [waihost, "decode", sample, "--model", model, "-o", "-", "--json", "--unit", unit], cli_ms),
         ("Examples/CDecode (C API)", [cdecode, "-u", unit, model, sample], c_ms),
         ("waihost.decode (Python)", ["/usr/bin/python3", "-c", py, sample, model, unit], py_ms)]
res = {}
for name, cmd, f in cases:
    run(cmd, f)  # one warm-up run (page cache, probe cache)
    samples = [run(cmd, f) for _ in range(runs)]
    res[name] = (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples))
base = res[cases[0][0]]
print("unit %s, %d runs each, medians:" % (unit, runs))
for name, (proc, call) in res.items():
    print("  %-26s process %8.1f ms (x%.3f)   decode call %8.1f ms (x%.3f)"
          % (name, proc, proc / base[0], call, call / base[1]))
PY
