#!/usr/bin/env bash
# Benchmark (not a test) of the verifying relay, both figures from one run:
#  1. verified throughput: 32 content-addressed 16 MiB objects fetched through
#     `waihost relay --content-addressed` (each fetched whole from the origin, hashed, checked,
#     released), against fetching them from the origin directly and against
#     `openssl speed -evp sha256` on one core;
#  2. latency the relay adds per segment: 200 content-addressed 256 KiB segments (about a
#     2 Mbit/s one-second segment), each fetched once through the relay and once from the
#     origin directly; p50 and p99 of the difference. Twice: cold (`--no-prefetch`: every
#     request waits for origin fetch + SHA-256 + release) and as a player sees it (the relay
#     fetches the next two listed segments while it sends one).
# The origin is python3's http.server on loopback, answering HTTP/1.1 (keep-alive) and sending
# each file with sendfile(2), as a CDN's server does; ORIGIN=plain uses the stock handler
# (HTTP/1.0, a new connection per object, read/write copies), the origin of the first figures.
# Also printed: the CPU, the load average, and the CPU seconds the relay and the origin spent.
# Usage: scripts/bench-relay.sh (WAIHOST=path/to/waihost to use another build, e.g. a release
# one from scripts/build-release.sh). On a machine shared with other jobs, run it as
# `chrt -f 1 scripts/bench-relay.sh` (root) so both the relay and the openssl baseline get the
# cores they ask for; the figures in docs/relay.md say which way they were taken.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${WAIHOST:-}" ]; then
    swift build --product waihost >/dev/null
    WAIHOST=.build/debug/waihost
fi
WORK=$(mktemp -d /tmp/bench-relay.XXXXXX)
PIDS=()
# The relays start inside $(...), a subshell, so their pids come back through files.
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for f in "$WORK"/relay-*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

python3 - "$WORK" <<'PY'
import hashlib, os, sys
root = sys.argv[1]
def make(name, count, size):
    os.makedirs(f"{root}/{name}")
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for _ in range(count):
        data = os.urandom(size)
        h = hashlib.sha256(data).hexdigest()
        with open(f"{root}/{name}/{h}.ts", "wb") as f: f.write(data)
        lines += ["#EXTINF:1.000000,", f"{h}.ts"]
    lines.append("#EXT-X-ENDLIST")
    with open(f"{root}/{name}/index.m3u8", "w") as f: f.write("\n".join(lines) + "\n")
make("throughput", 32, 16 << 20)
make("latency", 200, 256 << 10)
PY

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$WORK/origin.py" <<'PY'
import functools, http.server, sys
class KeepAlive(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def copyfile(self, source, outputfile): self.request.sendfile(source)
plain = sys.argv[3] == "plain"
handler = http.server.SimpleHTTPRequestHandler if plain else KeepAlive
handler = functools.partial(handler, directory=sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
PY
python3 "$WORK/origin.py" "$PORT" "$WORK" "${ORIGIN:-sendfile}" >/dev/null 2>&1 &
ORIGIN_PID=$!
PIDS+=($ORIGIN_PID)
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/latency/index.m3u8" && break; sleep 0.1; done

# A relay from before fetching ahead has no --no-prefetch: it is always cold.
COLD=()
"$WAIHOST" relay --help 2>&1 | grep -q -- --no-prefetch && COLD=(--no-prefetch)
relay() {  # relay URL NAME [FLAGS...] -> player URL on stdout
    local url=$1 name=$2; shift 2
    "$WAIHOST" relay "$url" --content-addressed --cache-mb 64 --json "$@" > "$WORK/relay-$name.json" 2> "$WORK/relay-$name.err" &
    echo $! > "$WORK/relay-$name.pid"
    for _ in $(seq 100); do [ -s "$WORK/relay-$name.json" ] && break; sleep 0.05; done
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$WORK/relay-$name.json"
}
uris() { curl -sf "$1" | grep -v '^#'; }
timed() {  # one curl for all URLs (connection reused), one line per URL
    local args=()
    for u in "$@"; do args+=(-o /dev/null "$u"); done
    curl -s -w '%{http_code} %{time_total} %{size_download}\n' "${args[@]}"
}

measure() {  # NAME FOLDER [RELAY FLAGS...]
    local name=$1 dir=$2; shift 2
    local origin="http://127.0.0.1:$PORT/$dir/index.m3u8"
    local local_url; local_url=$(relay "$origin" "$name" "$@")
    uris "$origin" | sed "s#^#http://127.0.0.1:$PORT/$dir/#" > "$WORK/$name.direct"
    uris "$local_url" > "$WORK/$name.relay"
    # Direct first, so both read the files from the page cache.
    timed $(cat "$WORK/$name.direct") > "$WORK/$name.direct.t"
    local pid; pid=$(cat "$WORK/relay-$name.pid")
    awk '{print $14 + $15}' "/proc/$pid/stat" > "$WORK/$name.cpu0"
    awk '{print $14 + $15}' "/proc/$ORIGIN_PID/stat" > "$WORK/$name.origin.cpu0"
    timed $(cat "$WORK/$name.relay") > "$WORK/$name.relay.t"
    awk '{print $14 + $15}' "/proc/$pid/stat" > "$WORK/$name.cpu1"
    awk '{print $14 + $15}' "/proc/$ORIGIN_PID/stat" > "$WORK/$name.origin.cpu1"
}
measure throughput throughput
measure latency latency "${COLD[@]}"
measure ahead latency
getconf CLK_TCK > "$WORK/clk"
openssl speed -evp sha256 -seconds 3 -bytes 16777216 2>/dev/null | awk '/^sha256/ {print $2}' > "$WORK/openssl"

python3 - "$WORK" "${ORIGIN:-sendfile}" <<'PY'
import os, sys
w = sys.argv[1]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
print(f"CPU: {cpu}, {os.cpu_count()} cores; load average {open('/proc/loadavg').read().split()[0]} (1 min); origin: {sys.argv[2]}")
clk = int(open(f"{w}/clk").read())
def cpu_s(n, who=""): return (int(open(f"{w}/{n}{who}.cpu1").read()) - int(open(f"{w}/{n}{who}.cpu0").read())) / clk
def rows(n):
    out = []
    for line in open(f"{w}/{n}"):
        code, t, size = line.split()
        if code != "200": sys.exit(f"{n}: HTTP {code}")
        out.append((float(t), int(size)))
    return out
def mbps(r): return sum(s for _, s in r) / sum(t for t, _ in r) / 1e6
d, r = rows("throughput.direct.t"), rows("throughput.relay.t")
ssl = float(open(f"{w}/openssl").read().strip().rstrip("k")) * 1000 / 1e6
print(f"verified throughput through the relay: {mbps(r):8.1f} MB/s  ({len(r)} x {r[0][1] >> 20} MiB, cold, --content-addressed; "
      f"relay CPU {cpu_s('throughput'):.2f} s, origin CPU {cpu_s('throughput', '.origin'):.2f} s, for {sum(t for t, _ in r):.2f} s wall)")
print(f"origin directly (python http.server):  {mbps(d):8.1f} MB/s")
print(f"openssl speed -evp sha256, one core:   {ssl:8.1f} MB/s  (16 MiB blocks)")
print(f"ratio relay / one-core SHA-256:        {mbps(r) / ssl:8.2f}")
def pct(xs, p): return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
for name, label in (("latency", "cold (--no-prefetch)"), ("ahead", "next segments fetched ahead")):
    ld, lr = rows(f"{name}.direct.t"), rows(f"{name}.relay.t")
    added = sorted((a[0] - b[0]) * 1000 for a, b in zip(lr, ld))
    dd = sorted(t * 1000 for t, _ in ld); rr = sorted(t * 1000 for t, _ in lr)
    hash_ms = ld[0][1] / (ssl * 1e6) * 1000
    print(f"per-segment latency, {label}, {len(ld)} x {ld[0][1] >> 10} KiB: direct p50 {pct(dd,50):.2f} ms p99 {pct(dd,99):.2f} ms; "
          f"through relay p50 {pct(rr,50):.2f} ms p99 {pct(rr,99):.2f} ms")
    print(f"  added by the relay per segment: p50 {pct(added,50):.2f} ms, p99 {pct(added,99):.2f} ms; "
          f"beyond hashing ({hash_ms:.2f} ms at one core's rate): p99 {pct(added,99) - hash_ms:.2f} ms")
PY
