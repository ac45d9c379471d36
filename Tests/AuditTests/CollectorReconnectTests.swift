// The collector on PostgreSQL across a database restart (docs/collector.md §Health): while the
// server is down every bundle gets a one-line 503 and /health says degraded; once it is back
// the collector reconnects by itself and acknowledges again, with no restart of its own.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto

final class CollectorReconnectTests: XCTestCase {
    func testCollectorReconnectsAfterPostgresRestarts() throws {
        let pg = try TestPostgres()
        let store = try PostgresStore(uri: pg.uri)
        let server = try CollectorServer(service: CollectorService(store: store, ownerKey: Fixture.owner))
        defer { server.stop(); store.close() }
        let port = server.port
        XCTAssertEqual(try TestHTTP.postBundle(port: port, try CollectorFixture.bundle()).status, 200)
        let healthy = try TestHTTP.send(port: port, method: "GET", target: "/health")
        XCTAssertEqual(healthy.status, 200, healthy.text)
        XCTAssertEqual(healthy.text, "{\"status\":\"ok\"}\n")

        try pg.stop()
        let down = try TestHTTP.postBundle(port: port, try CollectorFixture.bundle())
        XCTAssertEqual(down.status, 503, down.text)
        XCTAssertEqual(down.text.filter { $0 == "\n" }.count, 1, "one line: \(down.text)")
        XCTAssertTrue(down.text.hasPrefix("bundle not stored: database postgres://"), down.text)
        let degraded = try TestHTTP.send(port: port, method: "GET", target: "/health")
        XCTAssertEqual(degraded.status, 503, degraded.text)
        XCTAssertTrue(degraded.text.hasPrefix("{\"reason\":\"database postgres://"), degraded.text)
        XCTAssertTrue(degraded.text.hasSuffix("\"status\":\"degraded\"}\n"), degraded.text)
        XCTAssertEqual(degraded.text.filter { $0 == "\n" }.count, 1)

        try pg.start()
        // Reconnection is retried with backoff (at most 5 s apart): within 200 tries 100 ms
        // apart a bundle is acknowledged again.
        let sid = AuditChain.newSessionId()
        let bytes = try CollectorFixture.bundle(sessionId: sid)
        var answer: HTTPReply?
        for _ in 0..<200 {
            let r = try TestHTTP.postBundle(port: port, bytes)
            answer = r
            if r.status == 200 { break }
            XCTAssertEqual(r.status, 503, r.text)
            XCTAssertEqual(r.text.filter { $0 == "\n" }.count, 1, "one line: \(r.text)")
            usleep(100_000)
        }
        XCTAssertEqual(answer?.status, 200, "never reconnected: \(answer?.text ?? "")")
        XCTAssertEqual(try store.bundle(sessionID: sid)?.bytes, bytes)
        XCTAssertEqual(try TestHTTP.send(port: port, method: "GET", target: "/health").status, 200)
        XCTAssertEqual(try store.allBundles().count, 2)
    }
}
