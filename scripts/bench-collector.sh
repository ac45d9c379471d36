#!/usr/bin/env bash
# Benchmark (not a test) of the collector: bundles per second verified, durably committed and
# acknowledged by `waihost audit serve`, with concurrent clients on loopback, on SQLite (WAL,
# synchronous=FULL) and on PostgreSQL (synchronous_commit=on, a throwaway cluster).
# Bundles (binding + 3 acks + session record, 5 Ed25519 signatures, ~3.4 KB) are made
# beforehand by an independent Python writer of docs/audit-bundle.md (python3-cryptography),
# so the timed part is only: POST, verify, store, fsync, signed acknowledgement.
# Usage: scripts/bench-collector.sh [BUNDLES [CLIENTS]]   (default 20000 bundles, 8 clients)
#        WAIHOST=path/to/waihost to use another build (e.g. .build/release/waihost);
#        DBS="sqlite postgres" to choose the stores; CLIENT=http.client or connect (§ below);
#        PERF_CMD="perf record -g -o FILE --" to profile the collector while it runs;
#        DAMAGED=1 to post bundles whose binding signature has one character changed (R's
#        bytes): every one must be refused, and the figure is refused bundles per second and
#        the collector's CPU per refused bundle (what junk posted at a collector costs it).
# The anchor, measured in the same run before and after each store's load: the signature bound,
# OpenSSL's Ed25519 verifications per second per core × cores ÷ the 5 signatures each bundle
# carries (docs/collector.md §Measured). Beside it, the CPU these bundles' own five verifications
# take, by OpenSSL at its fastest and by libsodium, as the collector verifies a good signature
# (scripts/bench-collector-verify.c); libsodium's gives a second, higher bound.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
CLIENTS=${2:-8}
DBS=${DBS:-"sqlite postgres"}
if [ -z "${WAIHOST:-}" ]; then
    swift build --product waihost >/dev/null
    WAIHOST=.build/debug/waihost
fi
WORK=$(mktemp -d /tmp/bench-collector.XXXXXX)
chmod 755 "$WORK"
PIDS=()
PGDATA_DIR=""
AS_PG=()
[ "$(id -u)" = 0 ] && AS_PG=(setpriv --reuid=postgres --regid=postgres --clear-groups)
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ -n "$PGDATA_DIR" ]; then "${AS_PG[@]}" /usr/lib/postgresql/15/bin/pg_ctl -D "$PGDATA_DIR" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

/usr/bin/python3 - "$WORK" "$N" <<'PY'
import base64, hashlib, json, os, sys, time
from multiprocessing import Pool
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization

work, n = sys.argv[1], int(sys.argv[2])
def raw_pub(k):
    return k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
def raw_seed(k):
    return k.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
def dumps(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":")).encode()
def envelope(ptype, payload, key, signed):
    pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype.encode(), len(payload), payload)
    sig = key.sign(pae)
    signed.append(sig + len(pae).to_bytes(4, "big") + pae)  # for bench-collector-verify.c
    return {"payload": base64.b64encode(payload).decode(), "payloadType": ptype,
            "signatures": [{"keyid": raw_pub(key).hex(), "sig": base64.b64encode(sig).decode()}]}

owner = Ed25519PrivateKey.generate()
installation = Ed25519PrivateKey.generate()
# 0600: audit serve refuses a key file group or others can read (docs/collector.md).
with open(os.open(f"{work}/owner.key", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
    f.write(f"waihost-ed25519-key v1\nseed {raw_seed(owner).hex()}\npublic {raw_pub(owner).hex()}\n")
OWNER = raw_pub(owner).hex()
INST_SEED = raw_seed(installation)

def bundle(i):
    inst = Ed25519PrivateKey.from_private_bytes(INST_SEED)
    sk = Ed25519PrivateKey.generate()
    sid = os.urandom(16).hex()
    now = int(time.time() * 1000)
    binding = dumps({"created_ms": now, "installation_key": raw_pub(inst).hex(), "owner": OWNER,
                     "session_id": sid, "session_key": raw_pub(sk).hex(), "version": 1})
    records, prev, signed = [], hashlib.sha256(binding).hexdigest(), []
    bound = envelope("application/vnd.waihost.audit-binding.v1+json", binding, inst, signed)
    if os.environ.get("DAMAGED"):
        sig = bound["signatures"][0]["sig"]
        bound["signatures"][0]["sig"] = sig[:10] + ("B" if sig[10] == "A" else "A") + sig[11:]
    bodies = [("ack", {"uri": f"http://origin.example/seg{j}.ts", "effective_uri": f"http://origin.example/seg{j}.ts",
                       "kind": "object", "sha256": hashlib.sha256(b"%d" % j).hexdigest(), "size": 1000 + j,
                       "outcome": "verified", "time_ms": now + j}) for j in range(3)]
    bodies.append(("session", {"start_ms": now, "end_ms": now + 10, "end_reason": "closed", "objects": 3, "bytes": 3003,
                               "verified": 3, "relayed": 0, "withheld": 0, "ad_claims": 0, "decode_units": ["player"]}))
    for seq, (t, body) in enumerate(bodies):
        p = dumps({"session_id": sid, "seq": seq, "prev": prev, "type": t, t: body})
        records.append(envelope("application/vnd.waihost.audit-record.v1+json", p, sk, signed))
        prev = hashlib.sha256(p).hexdigest()
    return dumps({"version": 1, "session_id": sid, "owner": OWNER, "binding": bound, "records": records}), \
        raw_pub(inst) + raw_pub(sk) + b"".join(signed)

with Pool(os.cpu_count()) as pool:
    made = pool.map(bundle, range(n), chunksize=256)
bundles = [b for b, _ in made]
with open(f"{work}/bundles", "wb") as f:
    for b in bundles:
        f.write(len(b).to_bytes(4, "big") + b)
with open(f"{work}/signatures", "wb") as f:
    for _, s in made:
        f.write(s)
print(f"made {n} bundles, {sum(map(len, bundles)) // n} bytes each", file=sys.stderr)
PY

# The clients share the machine with the collector, so each is kept lean: a keep-alive socket,
# the request bytes built before the clock starts, and the response read by its
# Content-Length (status checked). CLIENT=http.client uses Python's http.client instead
# (what earlier figures used; it spends several times the CPU per request); CLIENT=connect
# opens a new connection for each bundle, as the relay's sender does.
cat > "$WORK/load.py" <<'PY'
import http.client, os, socket, sys, time
from multiprocessing import Process, Queue
work, port, clients, kind = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
data = open(f"{work}/bundles", "rb").read()
bundles, i = [], 0
while i < len(data):
    n = int.from_bytes(data[i:i + 4], "big"); bundles.append(data[i + 4:i + 4 + n]); i += 4 + n

def raw_client(part, q):
    fresh = kind == "connect"  # a new connection per bundle, as the relay's sender posts
    extra = b"Connection: close\r\n" if fresh else b""
    reqs = [b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%s"
            b"Content-Length: %d\r\n\r\n%s" % (extra, len(b), b) for b in part]
    def connect():
        c = socket.create_connection(("127.0.0.1", port))
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return c
    s = None if fresh else connect()
    ok = bad = 0
    buf = b""
    for r in reqs:
        if fresh:
            s = connect()
            buf = b""
        s.sendall(r)
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk: raise SystemExit("collector closed the connection")
            buf += chunk
        head, _, buf = buf.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = next(int(l.split(b":", 1)[1]) for l in lines[1:] if l[:15].lower() == b"content-length:")
        while len(buf) < length:
            chunk = s.recv(65536)
            if not chunk: raise SystemExit("collector closed the connection")
            buf += chunk
        buf = buf[length:]
        if fresh: s.close()
        if status == 200: ok += 1
        else: bad += 1
    q.put((ok, bad))

def httpclient_client(part, q):
    c = http.client.HTTPConnection("127.0.0.1", port)
    ok = bad = 0
    for b in part:
        c.request("POST", "/v1/sessions", body=b, headers={"Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        if r.status == 200: ok += 1
        else: bad += 1
    q.put((ok, bad))

q = Queue()
target = httpclient_client if kind == "http.client" else raw_client
procs = [Process(target=target, args=(bundles[k::clients], q)) for k in range(clients)]
t0 = time.monotonic()
for p in procs: p.start()
res = [q.get() for _ in procs]
t1 = time.monotonic()
for p in procs: p.join()
ok = sum(r[0] for r in res); bad = sum(r[1] for r in res)
cpu = os.times().children_user + os.times().children_system
damaged = bool(os.environ.get("DAMAGED"))
counted, what = (bad, "refused") if damaged else (ok, "bundles")
print(f"{ok} acknowledged, {bad} refused, {t1 - t0:.2f} s, {counted / (t1 - t0):.0f} {what}/s with {clients} clients"
      f" ({kind}; clients' CPU {cpu:.2f} s)")
with open(f"{work}/rate", "w") as f: f.write(f"{counted / (t1 - t0):.1f}\n")
sys.exit(0 if counted == len(bundles) else 1)
PY

# The other anchors: the CPU time of the five verifications of these very bundles, by OpenSSL
# and by libsodium (scripts/bench-collector-verify.c).
cc -O2 -o "$WORK/verify" scripts/bench-collector-verify.c -lcrypto -lsodium

# OpenSSL's Ed25519 verify/s on one core (`openssl speed` counts its own CPU time, so another
# job on the machine slows the wall clock, not the figure) × cores ÷ 5 signatures per bundle.
bound() {  # bound LABEL → sets BOUND (bundles/s), VERIFY_US (µs of CPU per verification), BUNDLE_US and SODIUM_US (µs per bundle)
    local v
    v=$(openssl speed -mr -seconds "${BOUND_SECONDS:-3}" ed25519 2>/dev/null \
        | sed -n 's/^+F6:[0-9]*:253:Ed25519:[0-9.]*:\([0-9.]*\)$/\1/p' | tail -1)
    [ -n "$v" ] || { echo "openssl speed ed25519 gave no figure" >&2; exit 1; }
    BOUND=$(python3 -c "print(f'{$v * $(nproc) / 5:.0f}')")
    VERIFY_US=$(python3 -c "print(f'{1e6 / $v:.1f}')")
    echo "  bound $1: $v Ed25519 verify/s per core × $(nproc) cores / 5 = $BOUND bundles/s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    read -r BUNDLE_US SODIUM_US _ < <("$WORK/verify" "$WORK/signatures" "${BOUND_SECONDS:-3}")
    echo "  these bundles' 5 verifications: OpenSSL $BUNDLE_US µs of CPU per bundle, libsodium $SODIUM_US µs" \
         "(libsodium bound $(python3 -c "print(f'{1e6 / $SODIUM_US * $(nproc):.0f}')") bundles/s)"
}

# The ratios. Wall: bundles/s over the bound (mean of before and after) — what a dedicated
# machine shows; on a shared one the collector's share of the cores moves it. CPU: the five
# verifications' CPU time over the collector's CPU time per bundle — what the collector spends
# beside the signatures, whatever else runs. CPU, these bundles: the same with the bundles' own
# messages and keys instead of `openssl speed`'s, by OpenSSL and by libsodium (what the
# collector now spends on a good bundle's signatures: its floor).
ratio() {  # ratio COLLECTOR_CPU_SECONDS
    python3 -c "
import sys
r, a, b, ua, ub, fa, fb, sa, sb, cores, cpu, n = map(float, sys.argv[1:])
per = cpu / n * 1e6
sodium = (sa + sb) / 2
print(f'  ratio to the bound: wall {r / ((a + b) / 2):.3f}; CPU {5 * (ua + ub) / 2 / per:.3f}'
      f' (collector {per:.0f} µs of CPU per bundle, 5 verifications {5 * (ua + ub) / 2:.0f} µs);'
      f' CPU, these bundles by OpenSSL {(fa + fb) / 2 / per:.3f} (their 5 verifications {(fa + fb) / 2:.0f} µs)')
print(f'  ratio to libsodium\'s bound: wall {r / (1e6 / sodium * cores):.3f}; CPU {sodium / per:.3f} (their 5 verifications {sodium:.0f} µs)')" \
        "$(cat "$WORK/rate")" "$BOUND_BEFORE" "$BOUND" "$VERIFY_US_BEFORE" "$VERIFY_US" "$BUNDLE_US_BEFORE" "$BUNDLE_US" \
        "$SODIUM_US_BEFORE" "$SODIUM_US" "$(nproc)" "$1" "$N"
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(openssl version)"

serve() {  # serve DB → sets PORT and COLLECTOR (the collector's pid: under PERF_CMD, perf's child)
    ${PERF_CMD:-} "$WAIHOST" audit serve --db "$1" --key "$WORK/owner.key" --port 0 --max-connections 1024 >"$WORK/serve.out" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 3000); do
        PORT=$(sed -n 's/^{"port":\([0-9]*\).*/\1/p' "$WORK/serve.out" | head -1)
        if [ -n "$PORT" ]; then
            # Looked up once the collector listens (perf has started it by then).
            COLLECTOR=${PIDS[-1]}
            [ -n "${PERF_CMD:-}" ] && COLLECTOR=$(pgrep -P "${PIDS[-1]}" | head -1 || true)
            [ -n "$COLLECTOR" ] && return 0
        fi
        sleep 0.01
    done
    echo "collector did not start: $(cat "$WORK/serve.out")" >&2
    exit 1
}

for db in $DBS; do
    case $db in
    sqlite)
        serve "sqlite:$WORK/collector.db"
        bound before; BOUND_BEFORE=$BOUND; VERIFY_US_BEFORE=$VERIFY_US; BUNDLE_US_BEFORE=$BUNDLE_US; SODIUM_US_BEFORE=$SODIUM_US
        echo -n "SQLite (WAL, synchronous=FULL): "
        python3 "$WORK/load.py" "$WORK" "$PORT" "$CLIENTS" "${CLIENT:-raw}"
        python3 -c "import sqlite3,sys; print('  rows in bundles:', sqlite3.connect(sys.argv[1]).execute('select count(*) from bundles').fetchone()[0])" "$WORK/collector.db"
        ;;
    postgres)
        PG=/usr/lib/postgresql/15/bin
        mkdir -p "$WORK/pg" && chmod 777 "$WORK/pg"
        [ "$(id -u)" = 0 ] && chown postgres "$WORK/pg"
        "${AS_PG[@]}" $PG/initdb -D "$WORK/pg/data" -U waihost -A trust >/dev/null
        PGDATA_DIR="$WORK/pg/data"
        PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        "${AS_PG[@]}" $PG/pg_ctl -D "$WORK/pg/data" -w -l "$WORK/pg/log" -o "-p $PGPORT -k $WORK/pg -h 127.0.0.1 -c synchronous_commit=on -c fsync=on" start >/dev/null
        serve "postgres://waihost@127.0.0.1:$PGPORT/postgres"
        bound before; BOUND_BEFORE=$BOUND; VERIFY_US_BEFORE=$VERIFY_US; BUNDLE_US_BEFORE=$BUNDLE_US; SODIUM_US_BEFORE=$SODIUM_US
        echo -n "PostgreSQL (synchronous_commit=on): "
        python3 "$WORK/load.py" "$WORK" "$PORT" "$CLIENTS" "${CLIENT:-raw}"
        ;;
    *) echo "unknown store $db" >&2; exit 2 ;;
    esac
    # The collector's own CPU time for the run (utime + stime): how much of the 2 s per s it used.
    CPU_S=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$COLLECTOR/stat")
    echo "  collector CPU: $CPU_S s"
    kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
    bound after
    if [ -n "${DAMAGED:-}" ]; then
        python3 -c "import sys; print(f'  collector CPU per refused bundle: {float(sys.argv[1]) / int(sys.argv[2]) * 1e6:.0f} µs')" "$CPU_S" "$N"
    else
        ratio "$CPU_S"
    fi
done
