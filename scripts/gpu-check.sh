#!/usr/bin/env bash
# On a machine with a real GPU (NVIDIA, AMD, Intel through their Vulkan and OpenCL drivers):
# build, probe every unit, decode every golden vector (samples/golden.json) on every GPU
# unit, and benchmark a 768×512 and a 3840×2160 decode on each beside the CPU backend.
# Prints one table. Meant to finish within 5 minutes on a GPU machine (the release build is
# most of it; --no-build skips it).
#
# usage: scripts/gpu-check.sh [--no-build] [--json FILE] [--units U1,U2,...]
#
# --units checks the units named (e.g. vulkan:0,opencl:0) as if they were the GPU units: a
# rehearsal of the whole check with lavapipe and PoCL on a machine without a GPU.
#
# Exit status: 0 when every GPU unit was accepted and decoded every golden vector exactly;
# 1 when a GPU unit was rejected, failed or decoded a vector differently; 3 when there is
# no GPU unit at all (the probe table is printed so you can see what there is).
#
# GMAC/s counts the multiply-accumulates of g_s's four transposed convolutions
# (25·(M·N·A0 + N·N·(A1 + A2) + N·3·A3), A_k the input area of layer k; N = 128, M = 192:
# 14.47 G at 768×512, 285.7 G at 3840×2160) over the median g_s time of `waihost bench`.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1 json_out="" units=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --json) json_out="$2"; shift ;;
    --units) units="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

. scripts/env.sh
# A fresh probe builds every driver's kernels cold; a slow compiler (Intel's CPU runtime needs
# about a minute on a loaded 2-core machine) would hit the default 20 s stage timeout
# (docs/drivers.md §3).
export WAIHOST_PROBE_TIMEOUT="${WAIHOST_PROBE_TIMEOUT:-300}"
started=$(date +%s)
if [ "$build" -eq 1 ]; then
  echo "gpu-check: scripts/build-release.sh (static release build) …" >&2
  scripts/build-release.sh >&2
fi
bin="$(swift build -c release --show-bin-path)"
[ -x "$bin/waihost" ] || { echo "gpu-check: $bin/waihost missing (run without --no-build)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plugins" "$work/out"
shopt -s nullglob
for so in "$bin"/libWai*Backend.so; do cp "$so" "$work/plugins/"; done
waihost() { "$bin/waihost" "$@" --plugin-dir "$work/plugins"; }

echo "gpu-check: probing every unit (fresh) …" >&2
waihost probe --fresh > "$work/probe.txt"
waihost probe --json > "$work/probe.json"

python3 - "$work/probe.json" "$units" > "$work/gpus" <<'EOF'
import json, sys
chosen = [u for u in sys.argv[2].split(",") if u]
for u in json.load(open(sys.argv[1]))["units"]:
    name = "%s:%d" % (u["backend"], u["index"]) if "index" in u else u["backend"]
    if (name in chosen) if chosen else u.get("unit") == "gpu":
        print("%s\t%s" % (name, u["state"]))
EOF
if [ -n "$units" ] && [ "$(wc -l < "$work/gpus")" -ne "$(tr ',' '\n' <<< "$units" | grep -c .)" ]; then
  cat "$work/probe.txt"
  echo "gpu-check: --units $units: not every unit named is in the probe table above" >&2
  exit 2
fi
if [ ! -s "$work/gpus" ]; then
  cat "$work/probe.txt"
  echo "gpu-check: no GPU unit on this machine: no Vulkan or OpenCL driver lists a GPU device (is the GPU's driver installed — e.g. NVIDIA's libnvidia-gl for Vulkan and libnvidia-compute's OpenCL ICD — and is /dev/dri or /dev/nvidia* visible?). Nothing to check." >&2
  exit 3
fi

# bench UNIT SIZE RUNS → $work/bench-UNIT-SIZE.json ({"error": …} when it fails or takes over 150 s)
bench() {
  local out="$work/bench-${1//:/_}-$2.json"
  echo "gpu-check: bench $1 at $2 (1 warm-up + $3) …" >&2
  if ! timeout 150 "$bin/waihost" bench --backend "$1" --size "$2" --runs "$3" --no-reference --json \
      --plugin-dir "$work/plugins" < /dev/null > "$out" 2> "$out.err"; then
    python3 -c 'import json, sys; lines = open(sys.argv[1]).read().strip().splitlines(); print(json.dumps({"error": lines[-1] if lines else "bench failed or timed out"}))' "$out.err" > "$out"
  fi
}

bench cpu:0 768x512 3
bench cpu:0 3840x2160 1
while IFS=$'\t' read -r unit state; do
  [ "$state" = accepted ] || continue
  : > "$work/golden-${unit//:/_}.txt"
  python3 -c 'import json; [print(v["payload"], v["sha256"]) for v in json.load(open("samples/golden.json"))["vectors"]]' |
  while read -r payload sha; do
    out="$work/out/${unit//:/_}-$payload.rgb"
    if waihost decode "samples/$payload" --model samples/int_hyper_model -o "$out" --backend "$unit" --json < /dev/null > "$out.json" 2> "$out.err"; then
      got=$(sha256sum "$out" | cut -d' ' -f1)
      dispatch=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["dispatch"])' "$out.json")
      if [ "$got" = "$sha" ] && [ "$dispatch" = forced ]; then echo "$payload ok"; else echo "$payload DIFFERS ($dispatch, $got)"; fi
    else
      echo "$payload FAILED ($(tail -1 "$out.err"))"
    fi >> "$work/golden-${unit//:/_}.txt"
  done
  bench "$unit" 768x512 3
  bench "$unit" 3840x2160 1
done < "$work/gpus"

echo "== gpu-check on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores), $(date -u +%FT%TZ), $(( $(date +%s) - started )) s"
python3 - "$work" "$json_out" "$units" <<'EOF'
import json, os, sys
work, json_out = sys.argv[1], sys.argv[2]
chosen = [u for u in sys.argv[3].split(",") if u]
probe = json.load(open(os.path.join(work, "probe.json")))

def gmac(b):
    n, m, w, h = b["n"], b["m"], b["width"], b["height"]
    h16, w16 = -(-h // 16), -(-w // 16)
    area = [(h16 << k) * (w16 << k) for k in range(4)]
    return 25 * (m * n * area[0] + n * n * (area[1] + area[2]) + n * 3 * area[3]) / 1e9

def bench(name, size):
    path = os.path.join(work, "bench-%s-%s.json" % (name.replace(":", "_"), size))
    if not os.path.exists(path):
        return None
    b = json.load(open(path))
    if "error" in b:
        return {"error": b["error"]}
    if b["unit"]["dispatch"] != "forced":
        return {"error": "ran elsewhere (%s)" % b["unit"]["dispatch"]}
    g = b["unit"]["median"]["g_s_ms"]
    return {"g_s_ms": g, "total_ms": b["unit"]["median"]["total_ms"], "gmacs": gmac(b) / (g / 1000)}

sizes = ["768x512", "3840x2160"]
cpu = {s: bench("cpu:0", s) for s in sizes}
rows, bad = [], False
for u in probe["units"]:
    name = "%s:%d" % (u["backend"], u["index"]) if "index" in u else u["backend"]
    checked = (name in chosen) if chosen else u.get("unit") == "gpu"
    if not checked and name != "cpu:0":
        continue
    row = {"unit": name, "device": u["device"], "driver": u["driver"], "verdict": u["state"],
           "reason": "" if u["state"] == "accepted" else u["reason"], "golden": "-"}
    gpath = os.path.join(work, "golden-%s.txt" % name.replace(":", "_"))
    if os.path.exists(gpath):
        lines = open(gpath).read().split("\n")[:-1]
        ok = sum(1 for l in lines if l.endswith(" ok"))
        row["golden"] = "%d/%d" % (ok, len(lines))
        if ok != len(lines) or not lines:
            bad = True
            row["reason"] = "; ".join(l for l in lines if not l.endswith(" ok"))
    if checked and u["state"] != "accepted":
        bad = True
    for s in sizes:
        row[s] = cpu[s] if name == "cpu:0" else bench(name, s)
    rows.append(row)

def cell(r, s):
    b = r.get(s)
    if not b:
        return "-"
    if "error" in b:
        return "error: " + b["error"][:60]
    ratio = ""
    if cpu.get(s) and "gmacs" in cpu[s] and r["unit"] != "cpu:0":
        ratio = " (%.2f× cpu)" % (b["gmacs"] / cpu[s]["gmacs"])
    return "g_s %.1f ms = %.1f GMAC/s, total %.1f ms%s" % (b["g_s_ms"], b["gmacs"], b["total_ms"], ratio)

table = [["UNIT", "DEVICE", "DRIVER", "VERDICT", "GOLDEN", "768x512", "3840x2160", "REASON"]]
for r in rows:
    table.append([r["unit"], r["device"], r["driver"], r["verdict"], r["golden"], cell(r, sizes[0]), cell(r, sizes[1]),
                  (r["reason"] or "-")[:160]])
widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
for row in table:
    print("  ".join(c.ljust(widths[k]) for k, c in enumerate(row)).rstrip())
if json_out:
    json.dump({"units": rows}, open(json_out, "w"), indent=2)
sys.exit(1 if bad else 0)
EOF
