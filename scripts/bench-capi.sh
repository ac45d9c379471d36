#!/usr/bin/env bash
# Benchmark (not a test) of the C API and the Python binding against the CLI (issue 13,
# "the bindings must add no measurable cost"): samples/sample.wai decoded on one unit by
#  1. `waihost decode` (the baseline), 2. Examples/CDecode through libwaihost,
#  3. waihost.decode() from bindings/python — each RUNS times, as whole processes and as the
# decoder's own time (each report's timings.total_ms), and for C and Python the whole
# waihost_decode / Host.decode call (model-set load, probe-cache read and copies included). One warm probe
# cache for all; the unit is the one ranked first, forced by name so all three use it.
# Prints medians and ratios to the CLI.
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
export LD_LIBRARY_PATH="$tmp/prefix/lib" WAI_PLUGIN_PATH="$tmp/plugins" WAIHOST_UNIT_WORKER="$bin/waihost-unit-worker" \
  WAIHOST_CACHE_DIR="$tmp/cache" WAIHOST_LIBRARY="$tmp/prefix/lib/libwaihost.so.1" PYTHONPATH="$PWD/bindings/python"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($config build)"

/usr/bin/python3 - "$bin/waihost" "$tmp/cdecode" "$runs" <<'PY'
import json, statistics, subprocess, sys, time
waihost, cdecode, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
model, sample = "samples/int_hyper_model", "samples/sample.wai"
probe = json.loads(subprocess.run([waihost, "probe", "--json"], check=True, capture_output=True, text=True).stdout)
first = next(u for u in probe["units"] if u.get("rank") == 1)
unit = "%s:%d" % (first["backend"], first["index"])
py = ("import json, sys, time, numpy, waihost\n"
      "h = waihost.Host()\n"
      "t = time.perf_counter(); rgb, r = h.decode(sys.argv[1], model=sys.argv[2], unit=sys.argv[3])\n"
      "r['call_ms'] = (time.perf_counter() - t) * 1e3\n"
      "print(json.dumps(r))\n")

def c_report(p):
    r = json.loads(p.stdout.decode())
    r["call_ms"] = float(p.stderr.decode().split()[1])
    return r

def run(cmd, report_of):
    t = time.perf_counter()
    p = subprocess.run(cmd, check=True, capture_output=True)
    r = report_of(p)
    return (time.perf_counter() - t) * 1e3, r["timings"]["total_ms"], r.get("call_ms"), r["sha256"]

cases = [("waihost decode (CLI)", [waihost, "decode", sample, "--model", model, "-o", "-", "--json", "--unit", unit],
          lambda p: json.loads(p.stderr.decode())),
         ("Examples/CDecode (C API)", [cdecode, "-j", "-u", unit, model, sample], c_report),
         ("waihost.decode (Python)", ["/usr/bin/python3", "-c", py, sample, model, unit], lambda p: json.loads(p.stdout.decode()))]
for _, cmd, f in cases:
    run(cmd, f)  # warm-up (page cache, probe cache)
# Interleaved, so load from other processes on the machine falls on all three alike.
samples = {name: [] for name, _, _ in cases}
for _ in range(runs):
    for name, cmd, f in cases:
        samples[name].append(run(cmd, f))
hashes = {s[3] for v in samples.values() for s in v}
assert len(hashes) == 1, hashes
med = lambda xs: statistics.median(xs)
base = samples[cases[0][0]]
bp, bd = med(s[0] for s in base), med(s[1] for s in base)
print("unit %s, %d runs each (interleaved), medians; decoder = the report's timings.total_ms; sha256 %s on all"
      % (unit, runs, hashes.pop()))
for name, v in samples.items():
    p, d = med(s[0] for s in v), med(s[1] for s in v)
    calls = [s[2] for s in v if s[2] is not None]
    call = "   binding call %7.1f ms" % med(calls) if calls else ""
    print("  %-26s process %7.1f ms (x%.3f)   decoder %7.1f ms (x%.3f)%s" % (name, p, p / bp, d, d / bd, call))
PY
