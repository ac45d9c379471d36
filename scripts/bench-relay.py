#!/usr/bin/env python3
"""Relay resource benchmark (issue 14; docs/relay.md "Memory" and "Slow clients").

Runs `waihost relay` against an origin in this process (127.0.0.1 only) and measures:
  1. peak memory (VmHWM) of an idle session: the baseline;
  2. a live playlist of 10^6 segments, new names on every reload, fetched 4 times, with an
     unrelated 404 asked while each fetch runs;
  3. 16 concurrent 60 MiB objects: peak memory against the bytes in flight;
  4. slow clients (slowloris, reconnecting): how many it takes to deny a player's request,
     with the defences off (`--header-timeout 0 --max-connections 64`, the relay before
     issue 14) and on (defaults).
Usage: scripts/bench-relay.py [path/to/waihost]   (default .build/release, else .build/debug)
A benchmark, not a test: it prints figures and asserts nothing.
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MiB = 1 << 20
BIG_SEGMENTS = 1_000_000
# Just under the default bounds (50 000 lines, 4 MiB): parsed, rewritten and relayed.
NEAR_SEGMENTS = 24_990
OBJECTS, OBJECT_BYTES = 16, 60 * MiB


def waihost_path():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if args:
        return args[0]
    for p in (".build/release/waihost", ".build/debug/waihost"):
        if os.access(p, os.X_OK):
            return p
    sys.exit("no waihost binary: swift build first")


class Origin(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    reloads = 0
    blob = bytes(range(256)) * (OBJECT_BYTES // 256)
    lock = threading.Lock()

    def log_message(self, *a):
        pass

    def send(self, body, ctype):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        if self.path in ("/big/index.m3u8", "/near/index.m3u8"):
            with Origin.lock:
                Origin.reloads += 1
                k = Origin.reloads
            count = BIG_SEGMENTS if self.path.startswith("/big/") else NEAR_SEGMENTS
            head = f"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:{k}\n"
            body = (head + "".join(f"#EXTINF:1.0,\nr{k}-s{i}.ts\n" for i in range(count))).encode()
            self.send(body, "application/vnd.apple.mpegurl")
        elif self.path == "/obj/index.m3u8":
            body = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + "".join(f"#EXTINF:1.0,\n{i}.bin\n" for i in range(OBJECTS)) + "#EXT-X-ENDLIST\n"
            self.send(body.encode(), "application/vnd.apple.mpegurl")
        elif self.path.startswith("/obj/") and self.path.endswith(".bin"):
            self.send(Origin.blob, "application/octet-stream")
        elif self.path == "/small/index.m3u8":
            self.send(b"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nseg.ts\n#EXT-X-ENDLIST\n", "application/vnd.apple.mpegurl")
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


class Relay:
    def __init__(self, exe, url, *flags):
        self.p = subprocess.Popen([exe, "relay", url, "--json", *flags], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.url = json.loads(self.p.stdout.readline())["url"]
        self.port = int(self.url.split(":")[2].split("/")[0])

    def status(self, key):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        return 0

    def close(self):
        self.p.terminate()
        try:
            self.p.wait(20)
        except subprocess.TimeoutExpired:
            print("  (relay did not end 20 s after SIGTERM; killed)")
            self.p.kill()
            self.p.wait()


def get(url, timeout=120):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            n = 0
            while chunk := r.read(1 << 20):
                n += len(chunk)
            return r.status, n, r.headers.get("X-Relay-Withheld")
    except urllib.error.HTTPError as e:
        return e.code, 0, e.headers.get("X-Relay-Withheld")
    except OSError as e:
        return f"error: {e.__class__.__name__}", 0, None


def mib(n):
    return f"{n / MiB:.0f} MiB"


def memory(exe, base):
    r = Relay(exe, base + "/small/index.m3u8")
    get(r.url)
    baseline = r.status("VmHWM")
    r.close()
    print(f"baseline (idle session, one playlist): peak {mib(baseline)}")

    for path, label in (("/big/index.m3u8", "10^6-segment playlist"), ("/near/index.m3u8", f"{NEAR_SEGMENTS}-segment playlist")):
        big_peak = reloads(exe, base, path, label)
        print(f"{label}: peak {mib(big_peak)} = baseline + {mib(big_peak - baseline)}")
    objects(exe, base, baseline)


RELOADS = next((int(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--reloads=")), 4)


def reloads(exe, base, path, label):
    r = Relay(exe, base + path)
    for i in range(RELOADS):
        out = {}
        t = threading.Thread(target=lambda: out.update(res=get(r.url)))
        t0 = time.monotonic()
        t.start()
        time.sleep(0.5)  # the origin is still generating or sending; the relay then parses
        t404 = time.monotonic()
        s404 = get(f"http://127.0.0.1:{r.port}/nothing", timeout=60)[0]
        d404 = time.monotonic() - t404
        t.join()
        status, size, withheld = out["res"]
        print(f"{label}, reload {i + 1}: {status} {withheld or ''} in {time.monotonic() - t0:.2f} s; "
              f"unrelated 404 answered {s404} in {d404 * 1000:.0f} ms; relay peak {mib(r.status('VmHWM'))}, now {mib(r.status('VmRSS'))}")
    peak = r.status("VmHWM")
    r.close()
    return peak


def objects(exe, base, baseline):
    r = Relay(exe, base + "/obj/index.m3u8", "--max-object-mb", "64")
    playlist = urllib.request.urlopen(r.url).read().decode()
    urls = [l for l in playlist.splitlines() if l and not l.startswith("#")]
    results = [None] * len(urls)
    def fetch(i):
        results[i] = get(urls[i])
    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(len(urls))]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    peak = r.status("VmHWM")
    print(f"  results: {sorted(set((s, n) for s, n, _ in results))}")
    r.close()
    ok = sum(1 for s, n, _ in results if s == 200 and n == OBJECT_BYTES)
    flight = OBJECTS * OBJECT_BYTES
    print(f"{OBJECTS} concurrent {mib(OBJECT_BYTES)} objects: {ok}/{OBJECTS} whole in {time.monotonic() - t0:.1f} s; "
          f"peak {mib(peak)}; (peak - baseline) / bytes in flight = {(peak - baseline) / flight:.2f}x "
          f"(bytes in flight {mib(flight)})")


def slowloris(exe, base, n, flags, seconds=12):
    r = Relay(exe, base + "/small/index.m3u8", *flags)
    stop = threading.Event()
    socks = [None] * n

    def attacker():
        tick = 0
        while not stop.is_set():
            for i in range(n):
                s = socks[i]
                try:
                    if s is None:
                        s = socket.create_connection(("127.0.0.1", r.port), timeout=1)
                        s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{r.port}\r\n".encode())
                        s.setblocking(False)
                        socks[i] = s
                    elif tick % 4 == 0:
                        s.sendall(b"X-Slow: 1\r\n")
                    else:
                        try:
                            if s.recv(1) == b"":
                                raise OSError("closed")
                        except BlockingIOError:
                            pass
                except OSError:
                    if s is not None:
                        s.close()
                    socks[i] = None
            tick += 1
            time.sleep(0.5)

    t = threading.Thread(target=attacker)
    t.start()
    time.sleep(seconds)
    answered = 0
    for _ in range(5):
        if get(r.url, timeout=3)[0] == 200:
            answered += 1
        time.sleep(0.5)
    stop.set()
    t.join()
    for s in socks:
        if s is not None:
            s.close()
    r.close()
    return answered


def main():
    exe = waihost_path()
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")
    print(f"CPU: {cpu}; waihost: {exe}")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    memory(exe, base)
    if "--memory-only" in sys.argv:
        return
    print("slow clients (reconnecting, a header line every 2 s), player requests answered of 5 after 12 s:")
    for label, flags in (("defences off (before): --header-timeout 0 --max-connections 64", ["--header-timeout", "0", "--max-connections", "64"]),
                         ("defaults (after): 10 s header deadline, 128 connections, 8 reserved", [])):
        row = [f"{n} slow: {slowloris(exe, base, n, flags)}/5" for n in (32, 64, 128, 256)]
        print(f"  {label}: " + ", ".join(row))
    httpd.shutdown()


if __name__ == "__main__":
    main()
