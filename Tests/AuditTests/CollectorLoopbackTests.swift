// The collector on both loopbacks (docs/collector.md §Listening): the same port on 127.0.0.1
// and ::1, bundles acknowledged and /health answered over either.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import Relay
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class CollectorLoopbackTests: XCTestCase {
    func testTheCollectorAnswersOnIPv4AndIPv6Loopback() throws {
        let tmp = try TempDir("collector-loopback")
        let dir = URL(fileURLWithPath: tmp.path)
        let store = try SQLiteStore(path: dir.path + "/collector.db")
        let server = try CollectorServer(service: CollectorService(store: store, ownerKey: Fixture.owner),
                                         bindAddresses: CollectorServer.loopback)
        let port = server.port
        XCTAssertEqual(server.http.addresses, ["127.0.0.1", "::1"])
        for ipv6 in [false, true] {
            let health = try TestHTTP.send(port: port, method: "GET", target: "/health", ipv6: ipv6)
            XCTAssertEqual(health.status, 200, health.text)
            XCTAssertEqual(health.text, "{\"status\":\"ok\"}\n")
        }
        // A bundle over IPv6 is verified, stored and acknowledged like one over IPv4.
        let sid = AuditChain.newSessionId()
        let bytes = try CollectorFixture.bundle(sessionId: sid)
        let ack = try TestHTTP.postBundle(port: port, bytes, ipv6: true)
        XCTAssertEqual(ack.status, 200, ack.text)
        XCTAssertEqual(try store.bundle(sessionID: sid)?.bytes, bytes)
        XCTAssertEqual(try TestHTTP.send(port: port, method: "POST", target: "/health", ipv6: true).status, 405)

        server.stop()
        store.close()
        XCTAssertThrowsError(try TestHTTP.send(port: port, method: "GET", target: "/health", ipv6: true)) { error in
            XCTAssertTrue("\(error)".hasPrefix("connect [::1]:\(port): errno \(ECONNREFUSED)"), "\(error)")
        }
    }

    func testAnAddressThatIsNotOneIsRefusedNamingIt() {
        XCTAssertThrowsError(try HTTPServer(bindAddresses: ["127.0.0.1", "localhost"]) { _ in
            HTTPResponse(status: 200, headers: [], body: [])
        }) { error in
            XCTAssertTrue("\(error)".contains("parse bind address localhost (an IPv4 or IPv6 address)"), "\(error)")
        }
    }
}
