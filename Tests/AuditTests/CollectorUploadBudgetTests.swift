// Slow uploads cannot pile up the collector's memory (docs/collector.md §Limits): a stalled
// upload holds its declared length of the body budget; another that does not fit gets 503
// (the relay retries); when the stalled one goes, its share comes back.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class CollectorUploadBudgetTests: XCTestCase {
    func testUploadsBeyondTheBodyBudgetGet503() throws {
        let dir = try TempDir()
        let store = try SQLiteStore(path: dir.path + "/c.db")
        let server = try CollectorServer(service: CollectorService(store: store, ownerKey: Fixture.owner),
                                         uploadBudget: AuditLimits.bundleBytes)
        defer { server.stop(); store.close() }
        // A slow client: declares 12 MiB, sends 1000 bytes, stalls.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = server.port.bigEndian
        addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(rc, 0)
        let declared = 12 << 20
        let head = Array("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(declared)\r\n\r\n".utf8)
        let first = head + [UInt8](repeating: 0x20, count: 1000)
        XCTAssertEqual(first.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }, first.count)
        var held = 0
        for _ in 0..<2000 where held != declared { held = server.uploads.inUse; usleep(5000) }
        XCTAssertEqual(held, declared, "the stalled upload holds its declared length")

        // A second large upload does not fit: 503, nothing stored, budget unchanged.
        let big = try TestHTTP.send(port: server.port, method: "POST", target: "/v1/sessions", contentType: "application/json",
                                    body: [UInt8](repeating: 0x20, count: 8 << 20))
        XCTAssertEqual(big.status, 503, big.text)
        XCTAssertTrue(big.text.hasPrefix("busy:"), big.text)
        XCTAssertEqual(server.uploads.inUse, declared)
        // A small one still fits.
        XCTAssertEqual(try TestHTTP.postBundle(port: server.port, try CollectorFixture.bundle()).status, 200)

        // The slow client gives up: its share is released.
        close(fd)
        for _ in 0..<2000 where server.uploads.inUse != 0 { usleep(5000) }
        XCTAssertEqual(server.uploads.inUse, 0)
        let again = try TestHTTP.send(port: server.port, method: "POST", target: "/v1/sessions", contentType: "application/json",
                                      body: [UInt8](repeating: 0x20, count: 8 << 20))
        XCTAssertEqual(again.status, 400, "fits now, and is refused only for what it is: \(again.text)")
    }
}
