#!/usr/bin/env bash
# The driver matrix: every Vulkan and OpenCL driver reachable on this machine (and the CPU
# backend as the baseline) probed in one run, each accepted unit benchmarked, one table.
#
# usage: scripts/driver-matrix.sh [--install-intel] [--runs K] [--size WxH] [--no-bench] [--no-build]
#                                 [--plugins DIR] [--json FILE]
#
#   --install-intel  install Intel's OpenCL CPU runtime from PyPI (intel-opencl-rt,
#                    intel-cmplr-lib-rt) into a private venv under $WAI_DRIVERS_DIR
#                    (default ~/.cache/waihost/drivers/intel-opencl) first; without the flag
#                    it is used when it is already there
#   --runs K         timed decodes per unit in the benchmark (default 1, after one warm-up)
#   --size WxH       benchmark picture (default 768x512; N = 128, M = 192 always)
#   --no-bench       probe only
#   --no-build       use the release build that is there
#   --plugins DIR    probe and benchmark the backend plugins (libWai*Backend.so) in DIR
#                    instead of the build's, e.g. an older build's to compare kernels
#                    (implies --no-build for the plugins; waihost is still the build's)
#   --json FILE      also write the table as JSON
#
# OpenCL drivers are registered for this run only, through an ICD folder named by
# OCL_ICD_VENDORS: the system's /etc/OpenCL/vendors/*.icd, the Intel runtime when present,
# and every .icd file in the folders of $WAI_EXTRA_ICD_DIRS (colon-separated). Vulkan drivers
# are what the Vulkan loader finds (VK_DRIVER_FILES / VK_ICD_FILENAMES are passed through).
#
# Columns: verdict and first mismatch come from `waihost probe --fresh` (docs/probe.md);
# calibration is the probe's speed on its calibration graph; g_s GMAC/s is the
# multiply-accumulates of g_s's four transposed convolutions (25·(M·N·A0 + N·N·(A1 + A2) +
# N·3·A3), A_k the input area of layer k; 14.47 G at 768×512) divided by the median g_s time
# of `waihost bench`; "vs cpu" is that rate over the CPU backend's, measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

install_intel=0 runs=1 size=768x512 bench=1 build=1 json_out="" plugins=""
while [ $# -gt 0 ]; do
  case "$1" in
    --install-intel) install_intel=1 ;;
    --runs) runs="$2"; shift ;;
    --size) size="$2"; shift ;;
    --no-bench) bench=0 ;;
    --no-build) build=0 ;;
    --json) json_out="$2"; shift ;;
    --plugins) plugins="$2"; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "driver-matrix: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
case "$runs" in ''|*[!0-9]*) echo "driver-matrix: --runs needs a positive integer" >&2; exit 2 ;; esac
case "$size" in [0-9]*x[0-9]*) ;; *) echo "driver-matrix: --size needs WxH, e.g. 768x512" >&2; exit 2 ;; esac

. scripts/env.sh
# A fresh probe builds every driver's kernels cold; a slow compiler (Intel's CPU runtime needs
# about a minute on a loaded 2-core machine) would hit the default 20 s stage timeout
# (docs/drivers.md §3).
export WAIHOST_PROBE_TIMEOUT="${WAIHOST_PROBE_TIMEOUT:-300}"
drivers="${WAI_DRIVERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/waihost/drivers}"
intel="$drivers/intel-opencl"

if [ "$install_intel" -eq 1 ]; then
  echo "driver-matrix: installing Intel's OpenCL CPU runtime into $intel/venv (PyPI intel-opencl-rt, intel-cmplr-lib-rt) …" >&2
  mkdir -p "$intel"
  [ -x "$intel/venv/bin/pip" ] || python3 -m venv "$intel/venv"
  "$intel/venv/bin/pip" install --quiet --disable-pip-version-check intel-opencl-rt intel-cmplr-lib-rt
fi
intel_lib=""
for f in "$intel"/venv/lib/libintelocl.so "$intel"/venv/lib/libintelocl.so.*; do
  [ -f "$f" ] && { intel_lib="$f"; break; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/vendors" "$work/plugins"
shopt -s nullglob
for icd in /etc/OpenCL/vendors/*.icd; do cp "$icd" "$work/vendors/"; done
# The wheel's own .icd names a path from its build machine; ours names the installed library.
[ -n "$intel_lib" ] && echo "$intel_lib" > "$work/vendors/intel-cpu.icd"
IFS=: read -r -a extra <<< "${WAI_EXTRA_ICD_DIRS:-}"
for dir in "${extra[@]}"; do for icd in "$dir"/*.icd; do cp "$icd" "$work/vendors/"; done; done
export OCL_ICD_VENDORS="$work/vendors"
echo "driver-matrix: OpenCL ICDs: $(cd "$work/vendors" && echo *.icd)${intel_lib:+ (Intel runtime: $intel_lib)}" >&2
[ -n "$intel_lib" ] || echo "driver-matrix: Intel's OpenCL CPU runtime is not installed (add --install-intel)" >&2

if [ "$build" -eq 1 ]; then scripts/build-release.sh >&2; fi
bin="$(swift build -c release --show-bin-path)"
[ -x "$bin/waihost" ] || { echo "driver-matrix: $bin/waihost missing (run without --no-build)" >&2; exit 1; }
for so in "${plugins:-$bin}"/libWai*Backend.so; do cp "$so" "$work/plugins/"; done
[ -n "$(ls "$work/plugins")" ] || { echo "driver-matrix: no libWai*Backend.so in ${plugins:-$bin}" >&2; exit 1; }

echo "driver-matrix: probing every unit (fresh) …" >&2
"$bin/waihost" probe --json --fresh --plugin-dir "$work/plugins" > "$work/probe.json"

# One bench per accepted unit; a unit that fails or times out gets its reason in the table.
python3 - "$work/probe.json" > "$work/accepted" <<'EOF'
import json, sys
for u in json.load(open(sys.argv[1]))["units"]:
    if u["state"] == "accepted":
        print("%s:%d" % (u["backend"], u["index"]))
EOF
if [ "$bench" -eq 1 ]; then
  while read -r unit; do
    echo "driver-matrix: benchmarking $unit at $size (1 warm-up + $runs) …" >&2
    out="$work/bench-${unit//:/_}.json"
    if ! timeout 1800 "$bin/waihost" bench --backend "$unit" --size "$size" --runs "$runs" --no-reference --json \
        --plugin-dir "$work/plugins" < /dev/null > "$out" 2> "$out.err"; then
      python3 -c 'import json, sys; lines = open(sys.argv[1]).read().strip().splitlines(); print(json.dumps({"error": lines[-1] if lines else "bench failed"}))' "$out.err" > "$out"
    fi
  done < "$work/accepted"
fi

echo "== driver matrix on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores), $(date -u +%FT%TZ)"
python3 - "$work" "$json_out" <<'EOF'
import json, os, sys
work, json_out = sys.argv[1], sys.argv[2]
probe = json.load(open(os.path.join(work, "probe.json")))

def gmacs(b):
    n, m, w, h = b["n"], b["m"], b["width"], b["height"]
    h16, w16 = -(-h // 16), -(-w // 16)
    area = [(h16 << k) * (w16 << k) for k in range(4)]
    return 25 * (m * n * area[0] + n * n * (area[1] + area[2]) + n * 3 * area[3]) / 1e9

rows = []
for u in probe["units"]:
    name = "%s:%d" % (u["backend"], u["index"]) if "index" in u else u["backend"]
    speed = u.get("speed") or {}
    row = {"backend": name, "device": u["device"] or "-", "driver": u["driver"] or "-", "verdict": u["state"],
           "first_mismatch": u["reason"] if u["state"] != "accepted" else "",
           "calibration": "%.1f runs/s" % speed["runs_per_second"] if "runs_per_second" in speed else "",
           "g_s_ms": None, "g_s_gmacs": None, "note": ""}
    path = os.path.join(work, "bench-" + name.replace(":", "_") + ".json")
    if os.path.exists(path):
        b = json.load(open(path))
        if "error" in b:
            row["note"] = "bench: " + b["error"]
        elif b["unit"]["backend"] != name.split(":")[0] or b["unit"]["dispatch"] != "forced":
            # bench names the backend without the unit index; "forced" means it ran on the unit asked for.
            row["note"] = "bench ran on %s (%s)" % (b["unit"]["backend"], b["unit"]["dispatch"])
        else:
            row["g_s_ms"] = b["unit"]["median"]["g_s_ms"]
            row["g_s_gmacs"] = gmacs(b) / (row["g_s_ms"] / 1000)
            row["size"] = "%dx%d" % (b["width"], b["height"])
            row["bench"] = b["unit"]
    rows.append(row)
cpu = next((r["g_s_gmacs"] for r in rows if r["backend"].startswith("cpu") and r["g_s_gmacs"]), None)
for r in rows:
    r["vs_cpu"] = r["g_s_gmacs"] / cpu if cpu and r["g_s_gmacs"] else None

def fmt(v, f):
    return f % v if v is not None else "-"
table = [["BACKEND", "DEVICE", "DRIVER", "VERDICT", "FIRST MISMATCH", "CALIBRATION", "G_S MS", "G_S GMAC/S", "VS CPU"]]
for r in rows:
    reason = r["first_mismatch"] or r["note"] or "-"
    table.append([r["backend"], r["device"], r["driver"], r["verdict"], reason[:160], str(r["calibration"] or "-"),
                  fmt(r["g_s_ms"], "%.1f"), fmt(r["g_s_gmacs"], "%.2f"), fmt(r["vs_cpu"], "%.3f×")])
widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
for row in table:
    print("  ".join(c.ljust(widths[k]) for k, c in enumerate(row)).rstrip())
if json_out:
    json.dump({"units": rows}, open(json_out, "w"), indent=2)
EOF
