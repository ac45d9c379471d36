// The sender keeps its connection to the collector (docs/collector.md §Measured: a connection
// per bundle costs the collector a thread start), and a connection the collector closed (a
// restart) or that is gone fails that one post cleanly: the bundle stays spooled and the next
// post connects afresh. Each post is one synchronous `deliver`, so nothing here waits on time.

import XCTest
import TestSupport
@testable import Audit

final class DeliveryConnectionTests: XCTestCase {
    func testConsecutivePostsShareAConnectionAndARestartedCollectorStillGetsEveryBundle() throws {
        let dir = try TempDir()
        let first = try TestCollector(failures: 0)
        let port = first.port
        let delivery = AuditDelivery(collector: first.base, owner: Fixture.owner.publicKey,
                                     spool: try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey))
        func spooled() throws -> (id: String, bytes: [UInt8]) {
            let chain = try Fixture.chain()
            let bytes = chain.bundle.encoded()
            delivery.submit(bytes, sessionId: chain.sessionId)
            return (chain.sessionId, bytes)
        }

        let n = 5
        var sent: [String: [UInt8]] = [:]
        for _ in 0..<n {
            let b = try spooled()
            XCTAssertEqual(try delivery.deliver(sessionId: b.id), .stored)
            sent[b.id] = b.bytes
        }
        XCTAssertEqual(first.stored, sent)
        XCTAssertGreaterThanOrEqual(first.connections, 1)
        XCTAssertLessThan(first.connections, n, "each post opened its own connection")

        // Restart between two posts: the kept connection is closed under the sender.
        first.stop()
        let second = try TestCollector(failures: 0, port: port)
        let afterRestart = try spooled()
        XCTAssertEqual(try delivery.deliver(sessionId: afterRestart.id), .stored)
        XCTAssertEqual(second.stored[afterRestart.id], afterRestart.bytes)
        XCTAssertEqual(second.connections, 1)

        // Down: the post fails as a transfer error and the bundle stays spooled (nothing lost);
        // up again on the same port, the next try connects afresh and delivers it.
        second.stop()
        let whileDown = try spooled()
        XCTAssertThrowsError(try delivery.deliver(sessionId: whileDown.id)) {
            guard case .transport? = $0 as? HTTPPostError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(delivery.spool.pending(), [whileDown.id])
        let third = try TestCollector(failures: 0, port: port)
        XCTAssertEqual(try delivery.deliver(sessionId: whileDown.id), .stored)
        XCTAssertEqual(third.stored[whileDown.id], whileDown.bytes)
        XCTAssertEqual(delivery.spool.pending(), [])
        XCTAssertEqual(third.connections, 1)
    }
}
