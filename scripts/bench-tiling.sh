#!/usr/bin/env bash
# Tiled decoding and encoding (docs/capabilities/int_hyper.md §3.1), separate from the tests:
# time and peak memory of `waihost encode` / `waihost decode` on the CPU backend for
# 768×512, 12 MP and 24 MP synthetic pictures with the seed-1 N=128 M=192 set, and the
# 768×512 decode with small tiles (WAIHOST_MEMORY_LIMIT_MIB=320: 80 MiB tiles) against the
# untiled one, as a ratio measured in the same run.
# Usage: scripts/bench-tiling.sh [RUNS] [BIN_DIR]   (release build; BIN_DIR defaults to .build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
runs="${1:-3}"
if [ -n "${2:-}" ]; then bin="$2"; else scripts/build-release.sh >/dev/null; bin="$(swift build -c release --show-bin-path)"; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins"
cp "$bin"/libWaiCPUBackend.so "$tmp/plugins/"
export WAIHOST_CACHE_DIR="$tmp/cache"
grep -m1 'model name' /proc/cpuinfo

python3 - "$bin/waihost" "$tmp" "$runs" <<'PY'
import os, re, statistics, subprocess, sys, time
waihost, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
plugins = f"{tmp}/plugins"
host = ["--plugin-dir", plugins, "--unit", "cpu"]

def tree_rss(pid):
    """Summed VmRSS (bytes) of pid and its descendants (shared pages counted in each)."""
    kids, total = {}, 0
    for d in os.listdir("/proc"):
        if not d.isdigit(): continue
        try:
            with open(f"/proc/{d}/stat") as f: ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
        except OSError: pass
    todo = [pid]
    while todo:
        p = todo.pop()
        todo += kids.get(p, [])
        try:
            with open(f"/proc/{p}/status") as f:
                m = re.search(r"VmRSS:\s+(\d+) kB", f.read())
                total += int(m.group(1)) * 1024 if m else 0
        except OSError: pass
    return total

def measured(args, env=None):
    """Wall ms, GNU time's maximum resident set (bytes, largest single process) and the
    sampled peak of the summed resident set of waihost and its unit worker."""
    t = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-v"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=dict(os.environ, **(env or {})))
    peak = 0
    while p.poll() is None:
        peak = max(peak, tree_rss(p.pid))
        time.sleep(0.02)
    ms = (time.perf_counter() - t) * 1000
    err = p.stderr.read().decode()
    if p.returncode != 0: sys.exit(f"{' '.join(args)} failed:\n{err}")
    maxrss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) * 1024
    return ms, maxrss, peak

subprocess.run([waihost, "make-model", "--seed", "1", "--n", "128", "--m", "192", "-o", f"{tmp}/set"], check=True,
               stdout=subprocess.DEVNULL)
subprocess.run([waihost, "probe"] + host[:2], check=True, stdout=subprocess.DEVNULL)
mib = lambda b: f"{b / 2**20:.0f} MiB"
print(f"N=128 M=192 seed 1, CPU backend (cpu:0), median of {runs} (memory: the largest run)")
print("| picture | encode | encode peak (largest process / summed) | decode | decode peak (largest process / summed) | tiles g_s |")
print("|---|---|---|---|---|---|")
for w, h in [(768, 512), (4000, 3000), (6000, 4000)]:
    png, wai = f"{tmp}/p{w}.png", f"{tmp}/p{w}.wai"
    subprocess.run([waihost, "make-picture", "--size", f"{w}x{h}", "-o", png], check=True, stdout=subprocess.DEVNULL)
    enc = [measured([waihost, "encode", png, "--model", f"{tmp}/set", "-o", wai] + host) for _ in range(runs)]
    dec = [measured([waihost, "decode", wai, "--model", f"{tmp}/set", "-o", f"{tmp}/out.png",
                     "--report", f"{tmp}/r.json"] + host) for _ in range(runs)]
    import json
    tiles = [r["tiles"] for r in json.load(open(f"{tmp}/r.json"))["runs"] if r["graph"] == "g_s"][0]
    e_ms = statistics.median(x[0] for x in enc); d_ms = statistics.median(x[0] for x in dec)
    print(f"| {w}×{h} | {e_ms / 1000:.2f} s | {mib(max(x[1] for x in enc))} / {mib(max(x[2] for x in enc))} "
          f"| {d_ms / 1000:.2f} s | {mib(max(x[1] for x in dec))} / {mib(max(x[2] for x in dec))} | {tiles} |")

# 768×512 tiled (80 MiB tiles) against untiled (one tile), interleaved.
wai = f"{tmp}/p768.wai"
def dec(env):
    ms = measured([waihost, "decode", wai, "--model", f"{tmp}/set", "-o", f"{tmp}/t.png", "--report", f"{tmp}/t.json"] + host,
                  env)[0]
    r = json.load(open(f"{tmp}/t.json"))
    return ms, [x["tiles"] for x in r["runs"]], r["sha256"]
untiled, tiled = [], []
for _ in range(runs):
    untiled.append(dec({})); tiled.append(dec({"WAIHOST_MEMORY_LIMIT_MIB": "320"}))
assert untiled[0][2] == tiled[0][2], "tiled bytes differ"
u = statistics.median(x[0] for x in untiled); t = statistics.median(x[0] for x in tiled)
print(f"768×512 decode: untiled (tiles h_s, g_s = {untiled[0][1]}) median {u:.0f} ms; "
      f"tiled (80 MiB tiles, {tiled[0][1]}) median {t:.0f} ms; tiled ÷ untiled = {t / u:.2f}×; bytes identical")
PY
