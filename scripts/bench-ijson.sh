#!/usr/bin/env bash
# The strict I-JSON reader (Sources/Audit/IJSON.swift, docs/audit-bundle.md §2.1) against
# Foundation's JSONSerialization on a bundle-shaped 17 MB document (20 000 envelopes with
# base64 payloads), both built with -O in one binary; best of 7; prints the ratio.
#   usage: scripts/bench-ijson.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp Sources/Audit/IJSON.swift "$WORK/"
cat >"$WORK/main.swift" <<'SWIFT'
import Foundation
let payload = Data((0..<450).map { UInt8($0 % 256) }).base64EncodedString()
let record = "{\"payload\":\"\(payload)\",\"payloadType\":\"application/vnd.waihost.audit-record.v1+json\","
    + "\"signatures\":[{\"keyid\":\"\(String(repeating: "ab", count: 32))\",\"sig\":\"\(payload.prefix(88))\"}]}"
let doc = Array(("{\"binding\":" + record + ",\"owner\":\"" + String(repeating: "cd", count: 32) + "\",\"records\":["
    + Array(repeating: record, count: 20000).joined(separator: ",") + "],\"session_id\":\""
    + String(repeating: "ef", count: 16) + "\",\"version\":1}").utf8)
func best(_ f: () throws -> Void) rethrows -> Double {
    var b = Double.infinity
    for _ in 0..<7 { let t = Date(); try f(); b = min(b, Date().timeIntervalSince(t)) }
    return b
}
let foundation = try best { _ = try JSONSerialization.jsonObject(with: Data(doc)) }
let ijson = try best { _ = try IJSON.parse(doc, root: "") }
print(String(format: "%d bytes: JSONSerialization %.3f s, IJSON.parse %.3f s, ratio IJSON/JSONSerialization %.2f",
             doc.count, foundation, ijson, ijson / foundation))
SWIFT
swiftc -O -o "$WORK/bench" "$WORK/IJSON.swift" "$WORK/main.swift"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$WORK/bench"
