// The collector over HTTP, in process, on SQLite and on a PostgreSQL server of its own:
// bundles made by the audit API are acknowledged only once stored, resends get the same
// acknowledgement, conflicts 409, and every kind of bad input a 4xx with nothing stored.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto

final class CollectorHTTPTests: XCTestCase {
    func testEndToEndOnSQLite() throws {
        let dir = try TempDir()
        try exercise(try SQLiteStore(path: dir.path + "/collector.db"))
    }

    func testEndToEndOnPostgres() throws {
        let pg = try TestPostgres()
        try exercise(try PostgresStore(uri: pg.uri))
    }

    private func exercise(_ store: CollectorStore) throws {
        let server = try CollectorServer(service: CollectorService(store: store, ownerKey: Fixture.owner))
        defer {
            server.stop()
            store.close()
        }
        let port = server.port
        try acknowledgesOnlyStoredBundles(port, store)
        try refusesBadBundles(port, store)
        try acceptsAndDeduplicatesCMCD(port, store)
        try refusesBadCMCD(port, store)
        // Still serving after all that.
        let last = try CollectorFixture.bundle()
        XCTAssertEqual(try TestHTTP.postBundle(port: port, last).status, 200)
    }

    private func acknowledgesOnlyStoredBundles(_ port: UInt16, _ store: CollectorStore) throws {
        let sid = AuditChain.newSessionId()
        let bytes = try CollectorFixture.bundle(sessionId: sid)
        let first = try TestHTTP.postBundle(port: port, bytes)
        XCTAssertEqual(first.status, 200, first.text)
        let ack = try CollectorAcknowledgement.verify(first.body, owner: Fixture.owner.publicKey, sessionId: sid,
                                                      bundleSha256: SHA256.hex(bytes))
        XCTAssertEqual(ack.status, .stored)
        let stored = try XCTUnwrap(try store.bundle(sessionID: sid))
        XCTAssertEqual(stored.bytes, bytes)
        XCTAssertEqual(stored.acknowledgement, first.body)
        XCTAssertEqual(stored.lastSequence, 3)
        XCTAssertEqual(try store.records(sessionID: sid).map { $0.type }, ["ack", "ack", "ack", "session"])
        XCTAssertEqual(try store.records(sessionID: sid).map { $0.sequence }, [0, 1, 2, 3])

        // Resent (the relay never saw the first answer): the same acknowledgement, stored once.
        let again = try TestHTTP.postBundle(port: port, bytes)
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again.body, first.body)

        // A different bundle for the same session.
        let other = try CollectorFixture.bundle(sessionId: sid, acks: 1)
        let conflict = try TestHTTP.postBundle(port: port, other)
        XCTAssertEqual(conflict.status, 409, conflict.text)
        XCTAssertTrue(conflict.text.contains(SHA256.hex(bytes)), conflict.text)
        XCTAssertEqual(try store.bundle(sessionID: sid)?.bytes, bytes)
    }

    private func refusesBadBundles(_ port: UInt16, _ store: CollectorStore) throws {
        let before = try store.allBundles().count
        let sid = AuditChain.newSessionId()
        var chain = try AuditChain(installationKey: Fixture.installation, owner: Fixture.owner.publicKey, sessionId: sid)
        for i in 0..<3 { try chain.append(.ack(Fixture.ack(i))) }
        try chain.append(.session(Fixture.summary))
        let good = chain.bundle

        var forged = good
        forged.records[1] = try Fixture.record(sessionId: sid, seq: 1, prev: SHA256.hex(good.records[0].payload),
                                                body: .ack(Fixture.ack(9)), key: Fixture.stranger)
        var badSignature = good
        badSignature.records[2].signature[0] ^= 1
        var replayed = good
        replayed.records.insert(good.records[0], at: 1)
        var reordered = good
        reordered.records.swapAt(0, 1)
        var dropped = good
        dropped.records.remove(at: 1)
        let goodBytes = good.encoded()
        let elsewhere = try CollectorFixture.bundle(owner: Fixture.stranger.publicKey)

        let cases: [(String, [UInt8], String?, Int)] = [
            ("forged record", forged.encoded(), "application/json", 400),
            ("bad signature", badSignature.encoded(), "application/json", 400),
            ("replayed record", replayed.encoded(), "application/json", 400),
            ("out of order", reordered.encoded(), "application/json", 400),
            ("dropped record", dropped.encoded(), "application/json", 400),
            ("truncated", Array(goodBytes.prefix(goodBytes.count / 2)), "application/json", 400),
            ("not JSON", Array("hello".utf8), "application/json", 400),
            ("empty", [], "application/json", 400),
            ("another owner's", elsewhere, "application/json", 403),
            ("wrong media type", goodBytes, "text/plain", 415),
            ("oversized", [UInt8](repeating: 0x20, count: AuditLimits.bundleBytes + 1), "application/json", 413),
        ]
        for (what, body, type, status) in cases {
            let r = try TestHTTP.send(port: port, method: "POST", target: "/v1/sessions", contentType: type, body: body)
            XCTAssertEqual(r.status, status, "\(what): \(r.text)")
            XCTAssertFalse(r.text.isEmpty, "\(what): a reason is given")
        }
        XCTAssertEqual(try TestHTTP.send(port: port, method: "GET", target: "/v1/sessions").status, 405)
        XCTAssertEqual(try TestHTTP.send(port: port, method: "GET", target: "/v2/else").status, 404)
        // An upload cut short: the client closes with half the declared length sent.
        let cut = try? TestHTTP.send(port: port, method: "POST", target: "/v1/sessions", contentType: "application/json",
                                     body: Array(goodBytes.prefix(100)), declaredLength: goodBytes.count)
        XCTAssertNotEqual(cut?.status, 200)
        XCTAssertEqual(try store.allBundles().count, before, "nothing refused was stored")
        XCTAssertNil(try store.bundle(sessionID: sid))
        // The untouched bundle is still accepted afterwards.
        XCTAssertEqual(try TestHTTP.postBundle(port: port, goodBytes).status, 200)
    }

    private func acceptsAndDeduplicatesCMCD(_ port: UInt16, _ store: CollectorStore) throws {
        let sid = "cmcd-\(AuditChain.newSessionId().prefix(8))"
        let line = "br=3200,e=ps,sid=\"\(sid)\",sn=1,sta=p,ts=1764000000000"
        let query = "/v1/cmcd?CMCD=" + percentEncoded(line)
        let r1 = try TestHTTP.send(port: port, method: "GET", target: query)
        XCTAssertEqual(r1.status, 200, r1.text)
        XCTAssertEqual(r1.text, "{\"duplicate\":0,\"stored\":1}")
        XCTAssertEqual(try TestHTTP.send(port: port, method: "GET", target: query).text, "{\"duplicate\":1,\"stored\":0}")

        let events = "e=ps,sid=\"\(sid)\",sn=2,sta=s,ts=1764000000001,v=2\r\ne=ps,sid=\"\(sid)\",sn=1,sta=p,ts=1,v=2\n"
            + "bl=(100;v 200;a),e=t,sid=\"\(sid)\",sn=3,ts=1764000000002,v=2\n"
        let r2 = try TestHTTP.send(port: port, method: "POST", target: "/v1/cmcd", contentType: "application/cmcd",
                                   body: Array(events.utf8))
        XCTAssertEqual(r2.status, 200, r2.text)
        XCTAssertEqual(r2.text, "{\"duplicate\":1,\"stored\":2}")

        let json = "[{\"sid\":\"\(sid)\",\"sn\":4,\"e\":\"ps\",\"sta\":\"p\",\"ts\":5,\"v\":2,\"br\":[100,200]},{\"sid\":\"\(sid)\",\"sn\":3,\"bs\":true}]"
        let r3 = try TestHTTP.send(port: port, method: "POST", target: "/v1/cmcd", contentType: "application/json; charset=utf-8",
                                   body: Array(json.utf8))
        XCTAssertEqual(r3.status, 200, r3.text)
        XCTAssertEqual(r3.text, "{\"duplicate\":1,\"stored\":1}")
        let stored = try store.cmcdReports(sessionID: sid)
        XCTAssertEqual(stored.map { $0.sequence }, [1, 2, 3, 4])
        guard stored.count == 4 else { return }
        XCTAssertEqual(stored[0].body, line)
        XCTAssertEqual(stored[3].body, "{\"br\":[100,200],\"e\":\"ps\",\"sid\":\"\(sid)\",\"sn\":4,\"sta\":\"p\",\"ts\":5,\"v\":2}")
    }

    private func refusesBadCMCD(_ port: UInt16, _ store: CollectorStore) throws {
        let sid = "bad-\(AuditChain.newSessionId().prefix(8))"
        let gets = [
            "sid=\"\(sid)\",sn=1,br=",           // value missing
            "sid=\"\(sid),sn=1",                 // string not closed
            "sid=\"\(sid)\"",                    // sn missing
            "sn=1",                              // sid missing
            "sid=\"\(sid)\",sn=\"1\"",           // sn not an integer
            "sid=\"\(sid)\",sn=-1",              // negative
            "sid=\"\(sid)\",sn=1,sn=2",          // repeated key
            "Sid=\"\(sid)\",sn=1",               // not a key
            "sid=\"\(sid)\",sn=1,",              // trailing comma
            "sid=\"\(String(repeating: "x", count: 65))\",sn=1",
        ]
        for g in gets {
            let r = try TestHTTP.send(port: port, method: "GET", target: "/v1/cmcd?CMCD=" + percentEncoded(g))
            XCTAssertEqual(r.status, 400, "\(g): \(r.text)")
        }
        XCTAssertEqual(try TestHTTP.send(port: port, method: "GET", target: "/v1/cmcd").status, 400)
        let posts: [(String, String, Int)] = [
            ("application/cmcd", "e=t,sid=\"\(sid)\",sn=5,ts=1,v=2\nsid=\"\(sid)\",sn=oops\n", 400),  // one bad line: none stored
            ("application/cmcd", "\n\n", 400),
            ("application/json", "{\"sid\":\"\(sid)\",\"sn\":1.5}", 400),
            ("application/json", "{\"sid\":\"\(sid)\",\"sn\":true}", 400),
            ("application/json", "{\"sid\":\"\(sid)\",\"sn\":6", 400),
            ("application/json", "[]", 400),
            ("text/plain", "sid=\"\(sid)\",sn=7", 415),
            ("application/cmcd", String(repeating: "a", count: CMCDLimits.bodyBytes + 1), 413),
        ]
        for (type, body, status) in posts {
            let r = try TestHTTP.send(port: port, method: "POST", target: "/v1/cmcd", contentType: type, body: Array(body.utf8))
            XCTAssertEqual(r.status, status, "\(type) \(body.prefix(60)): \(r.text)")
        }
        XCTAssertEqual(try store.cmcdReports(sessionID: sid), [])
    }

    private func percentEncoded(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}
