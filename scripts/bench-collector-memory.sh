#!/usr/bin/env bash
# Collector memory under slow uploads (docs/collector.md §Limits): N clients each declare a
# 15 MiB bundle, send all but the last KiB and stall. Reports the collector's resident memory
# (VmRSS, VmHWM from /proc) with the body budget effectively off (--max-upload-mb 1048576,
# the behaviour before the budget) and with the default budget (256 MiB), and their ratio.
#   usage: scripts/bench-collector-memory.sh [CLIENTS]     (default 64; WAIHOST=path to the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
CLIENTS=${1:-64}
WAIHOST=${WAIHOST:-.build/debug/waihost}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK/owner.key" <<'PY'
import os, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization as s
k = Ed25519PrivateKey.generate()
seed = k.private_bytes(s.Encoding.Raw, s.PrivateFormat.Raw, s.NoEncryption()).hex()
pub = k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw).hex()
with open(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
    f.write(f"waihost-ed25519-key v1\nseed {seed}\npublic {pub}\n")
PY

measure() {  # $1: --max-upload-mb value
    rm -f "$WORK/c.db"*
    "$WAIHOST" audit serve --db "sqlite:$WORK/c.db" --key "$WORK/owner.key" --port 0 --max-upload-mb "$1" >"$WORK/serve.out" 2>&1 &
    SERVE=$!
    for _ in $(seq 200); do grep -q '"port"' "$WORK/serve.out" 2>/dev/null && break; sleep 0.05; done
    PORT=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$WORK/serve.out" | head -1)
    python3 - "$PORT" "$CLIENTS" "$SERVE" <<'PY'
import socket, sys, time
port, n, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
size = 15 << 20
chunk = b" " * (1 << 20)
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + f"Content-Length: {size}\r\n\r\n".encode())
    socks.append(s)
sent = 0
for s in socks:
    try:
        for _ in range(14):
            s.sendall(chunk)
        s.sendall(b" " * ((1 << 20) - 1024))
        sent += 1
    except OSError:
        pass  # answered 503 and closed
time.sleep(2)
fields = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if l.startswith(("VmRSS", "VmHWM")))
print(f"{fields['VmRSS'].strip()} {fields['VmHWM'].strip()} {sent}")
for s in socks: s.close()
PY
    kill "$SERVE"; wait "$SERVE" 2>/dev/null || true
}

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
read -r RSS0 _ HWM0 _ SENT0 <<<"$(measure 1048576)"
read -r RSS1 _ HWM1 _ SENT1 <<<"$(measure 256)"
echo "CPU: $CPU; $CLIENTS clients, each 15 MiB declared, stalled 1 KiB short"
echo "no budget (before):   VmRSS ${RSS0} kB, VmHWM ${HWM0} kB"
echo "budget 256 MiB (now): VmRSS ${RSS1} kB, VmHWM ${HWM1} kB"
python3 -c "print(f'peak ratio now/before: {$HWM1/$HWM0:.3f}')"
