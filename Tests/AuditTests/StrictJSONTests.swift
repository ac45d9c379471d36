// Ambiguous evidence (docs/audit-bundle.md §2.1): signed payloads, bundles and CMCD bodies are
// read as strict I-JSON by one parser. Every signature below verifies, so only the JSON rules
// stand between these bundles and the store: each is refused naming its path, nothing is
// stored, and what is stored passes SQLite's json_valid.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto

final class StrictJSONTests: XCTestCase {
    // MARK: the parser

    func testParserRefusesWhatI_JSONForbids() {
        let cases: [(String, [UInt8], String, String)] = [
            ("duplicate", Array(#"{"a":1,"b":{"c":1,"c":2}}"#.utf8), "b.c", "duplicate member name"),
            ("escaped duplicate", Array(#"{"seq":1,"s\u0065q":2}"#.utf8), "seq", "duplicate member name"),
            ("trailing comma in object", Array(#"{"a":1,}"#.utf8), "", "trailing comma"),
            ("trailing comma in array", Array(#"{"a":[1,2,]}"#.utf8), "a", "trailing comma"),
            ("UTF-16", [0x7B, 0x00, 0x7D, 0x00], "", "not UTF-8"),
            ("BOM", [0xEF, 0xBB, 0xBF] + Array("{}".utf8), "", "not UTF-8"),
            ("bad UTF-8 in a string", Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), "a", "not UTF-8"),
            ("overlong UTF-8", Array(#"{"a":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), "a", "not UTF-8"),
            ("lone surrogate", Array(#"{"a":"\ud800"}"#.utf8), "a", "unpaired surrogate"),
            ("noncharacter", Array(#"{"a":"\uffff"}"#.utf8), "a", "noncharacter"),
            ("bytes after", Array(#"{"a":1} {"#.utf8), "", "bytes after"),
            ("leading zero", Array(#"{"a":01}"#.utf8), "a", "leading zero"),
            ("raw control", Array("{\"a\":\"\u{01}\"}".utf8), "a", "control character"),
            ("deep", Array(String(repeating: "[", count: 40).utf8), "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]", "nested deeper"),
        ]
        for (what, bytes, path, reason) in cases {
            do {
                _ = try IJSON.parse(bytes, root: "")
                XCTFail("\(what): accepted")
            } catch {
                XCTAssertEqual(error.path, path, "\(what): \(error)")
                XCTAssertTrue(error.reason.contains(reason), "\(what): \(error)")
            }
        }
        XCTAssertEqual(try IJSON.parse(Array(#" {"a":[1,-2.5e3,"\u00e9\ud83d\ude00",true,null]} "#.utf8), root: "").encoded,
                       #"{"a":[1,-2.5e3,"é😀",true,null]}"#)
    }

    // MARK: bundles

    /// One signed ack record whose payload text `mutate` rewrites, then a valid session record.
    private func bundle(_ mutate: (String) -> [UInt8]) throws -> [UInt8] {
        let c = try AuditChain(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        let first = AuditRecord(sessionId: c.sessionId, seq: 0, prev: SHA256.hex(c.binding.payload), body: .ack(Fixture.ack(0)))
        let payload0 = mutate(String(decoding: PayloadCoding.encode(first), as: UTF8.self))
        let session = AuditRecord(sessionId: c.sessionId, seq: 1, prev: SHA256.hex(payload0), body: .session(Fixture.summary))
        let records = [
            try Envelope.sign(type: AuditPayloadType.record, payload: payload0, key: c.sessionKey),
            try Envelope.sign(type: AuditPayloadType.record, payload: PayloadCoding.encode(session), key: c.sessionKey),
        ]
        return AuditBundle(sessionId: c.sessionId, owner: Fixture.owner.publicKey.hex, binding: c.binding, records: records).encoded()
    }

    private func replacing(_ a: String, _ b: String) -> (String) -> [UInt8] {
        { text in
            precondition(text.contains(a), "\(a) not in \(text)")
            return Array(text.replacingOccurrences(of: a, with: b).utf8)
        }
    }

    /// The bundles the issue found acknowledged, and their neighbours: (what, bytes, path, reason).
    private func ambiguousBundles() throws -> [(String, [UInt8], String, String)] {
        let p = "records[0].payload"
        var out: [(String, [UInt8], String, String)] = [
            ("seq twice", try bundle(replacing(#""seq":0"#, #""seq":0,"seq":1"#)), p + ".seq", "duplicate"),
            ("outcome verified then withheld", try bundle(replacing(#""outcome":"verified""#, #""outcome":"verified","outcome":"withheld""#)),
             p + ".ack.outcome", "duplicate"),
            ("trailing comma", try bundle { Array(($0.dropLast() + ",}").utf8) }, p, "trailing comma"),
            ("UTF-16 payload", try bundle { Array($0.utf16).flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] } }, p, "not UTF-8"),
            ("non-UTF-8 byte", try bundle { Array($0.utf8).replacingFirst(Array("seg0.ts".utf8), with: Array("seg0.".utf8) + [0xFF]) },
             p + ".ack.effective_uri", "not UTF-8"),
            ("seq 0.0", try bundle(replacing(#""seq":0"#, #""seq":0.0"#)), p + ".seq", "not an integer"),
            ("seq 0e0", try bundle(replacing(#""seq":0"#, #""seq":0e0"#)), p + ".seq", "not an integer"),
            ("size 2^60", try bundle(replacing(#""size":100"#, #""size":1152921504606846976"#)), p + ".ack.size", "not an integer"),
            ("negative size", try bundle(replacing(#""size":100"#, #""size":-100"#)), p + ".ack.size", "below the minimum"),
            ("fractional time", try bundle(replacing(#""time_ms":1764000000000"#, #""time_ms":1764000000000.5"#)),
             p + ".ack.time_ms", "not an integer"),
            ("unknown kind", try bundle(replacing(#""kind":"object""#, #""kind":"objekt""#)), p + ".ack.kind", "unknown value 'objekt'"),
            ("unknown outcome", try bundle(replacing(#""outcome":"verified""#, #""outcome":"trusted""#)),
             p + ".ack.outcome", "unknown value 'trusted'"),
            ("unknown type", try bundle(replacing(#""type":"ack""#, #""type":"note""#)), p + ".type", "unknown value 'note'"),
        ]
        // Outside the signed payloads too: the bundle's own JSON.
        let good = try bundle { Array($0.utf8) }
        let text = String(decoding: good, as: UTF8.self)
        out.append(("bundle version twice", Array(text.replacingOccurrences(of: #""version":1"#, with: #""version":1,"version":2"#).utf8),
                    "version", "duplicate"))
        out.append(("bundle trailing comma", Array((text.dropLast() + ",}").utf8), "bundle", "trailing comma"))
        return out
    }

    func testAmbiguousBundlesAreRefusedNamingThePath() throws {
        for (what, bytes, path, reason) in try ambiguousBundles() {
            do {
                _ = try AuditBundle.verify(bytes, owner: Fixture.owner.publicKey)
                XCTFail("\(what): verified")
            } catch {
                guard case .malformed(let at, let why) = error else { XCTFail("\(what): \(error)"); continue }
                XCTAssertEqual(at, path, "\(what): \(error)")
                XCTAssertTrue(why.contains(reason), "\(what): \(error)")
            }
        }
    }

    func testCollectorRefusesAmbiguousBundlesAndStoresValidJSON() throws {
        let dir = try TempDir()
        let db = dir.path + "/collector.db"
        let store = try SQLiteStore(path: db)
        let server = try CollectorServer(service: CollectorService(store: store, ownerKey: Fixture.owner))
        defer { server.stop(); store.close() }
        for (what, bytes, path, _) in try ambiguousBundles() {
            let r = try TestHTTP.postBundle(port: server.port, bytes)
            XCTAssertEqual(r.status, 400, "\(what): \(r.text)")
            XCTAssertTrue(r.text.contains(path + ":"), "\(what): \(r.text)")
            XCTAssertEqual(r.text.filter { $0 == "\n" }.count, 1, "\(what): one line: \(r.text)")
        }
        XCTAssertEqual(try store.allBundles().count, 0, "nothing ambiguous stored")

        // What is stored is JSON every reader agrees on, SQLite included.
        XCTAssertEqual(try TestHTTP.postBundle(port: server.port, try CollectorFixture.bundle()).status, 200)
        let cmcd = #"{"e":"ps","sid":"s-1","sn":0,"sta":"s","ts":1764000000000,"v":2,"cid":"caf\u00e9"}"#
        let r = try TestHTTP.send(port: server.port, method: "POST", target: "/v1/cmcd", contentType: "application/json",
                                  body: Array(cmcd.utf8))
        XCTAssertEqual(r.status, 200, r.text)
        let check = try runPython("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            rows = c.execute("SELECT json_valid(fields) FROM records").fetchall() + c.execute("SELECT json_valid(body) FROM cmcd").fetchall()
            print(len(rows), sum(r[0] for r in rows))
            """, [db])
        XCTAssertEqual(check, "5 5", "records and CMCD JSON rows, all json_valid")
    }

    // MARK: CMCD

    func testCMCDBodiesUseTheSameStrictParser() throws {
        let ok = #"{"e":"ps","sid":"s","sn":1,"sta":"p","ts":1,"v":2}"#
        XCTAssertEqual(try CMCDParser.parseJSONBody(Array(ok.utf8)).count, 1)
        let cases: [(String, String, String)] = [
            ("duplicate sid", #"{"sid":"a","sid":"b","sn":1}"#, "CMCD JSON at sid: duplicate member name"),
            ("trailing comma", #"[{"sid":"a","sn":1},]"#, "CMCD JSON at $: trailing comma"),
            ("sn 1.0", #"{"sid":"a","sn":1.0}"#, "key sn: must be an integer"),
            ("negative bl", #"{"sid":"a","sn":1,"bl":-5}"#, "key bl: must not be negative"),
            ("unknown event", #"{"e":"zz","sid":"a","sn":1,"ts":1,"v":2}"#, "key e: unknown value 'zz'"),
            ("unknown state", #"{"e":"ps","sid":"a","sn":1,"sta":"x","ts":1,"v":2}"#, "key sta: unknown value 'x'"),
            ("unknown key", #"{"sid":"a","sn":1,"zz":1}"#, "key zz: not a key of CTA-5004-B"),
        ]
        for (what, body, message) in cases {
            XCTAssertThrowsError(try CMCDParser.parseJSONBody(Array(body.utf8)), what) {
                XCTAssertTrue("\($0)".contains(message), "\(what): \($0)")
            }
        }
        XCTAssertThrowsError(try CMCDParser.parseJSONBody(Array(#"{"sid":""#.utf8) + [0xFF] + Array(#"","sn":1}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("CMCD JSON at sid: not UTF-8"), "\($0)")
        }
        let lines: [(String, String)] = [
            ("e=ps,sid=\"a\",sn=1,sta=zz,ts=1,v=2", "key sta: unknown value 'zz'"),
            ("e=ps,sid=\"a\",sn=1,sta=p,ts=1.5,v=2", "key ts: must be an integer"),
            ("e=t,ot=x,sid=\"a\",sn=1,ts=1,v=2", "key ot: unknown value 'x'"),
            ("bl=-1,e=t,sid=\"a\",sn=1,ts=1,v=2", "key bl: must not be negative"),
        ]
        for (line, message) in lines {
            XCTAssertThrowsError(try CMCDParser.parseEventBody(Array(line.utf8)), line) {
                XCTAssertTrue("\($0)".contains(message), "\(line): \($0)")
            }
        }
    }
}

private extension Array where Element == UInt8 {
    func replacingFirst(_ a: [UInt8], with b: [UInt8]) -> [UInt8] {
        guard let i = (0...(count - a.count)).first(where: { Array(self[$0..<$0 + a.count]) == a }) else { return self }
        return Array(self[..<i]) + b + Array(self[(i + a.count)...])
    }
}

/// Runs a Python 3 program (Debian's, with its sqlite3 module); returns stdout, trimmed.
func runPython(_ program: String, _ args: [String]) throws -> String {
    try Subprocess("/usr/bin/python3", ["-c", program] + args, deadline: 120).run().stdoutText
        .trimmingCharacters(in: .whitespacesAndNewlines)
}
