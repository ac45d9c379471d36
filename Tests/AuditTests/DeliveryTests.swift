// The spool and delivery: a bundle is on disk before it is posted, survives a restart, is
// retried until the collector's signed acknowledgement verifies, and only then removed.

import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
import Relay

final class DeliveryTests: XCTestCase {
    let fast = AuditDelivery.Backoff(initialSeconds: 0.01, maxSeconds: 0.05)

    func testSpoolWritesWholeFilesAndListsThem() throws {
        let dir = try TempDir()
        let spool = try AuditSpool(root: dir.path + "/spool", owner: Fixture.owner.publicKey)
        let a = AuditChain.newSessionId(), b = AuditChain.newSessionId()
        try spool.store([1, 2, 3], sessionId: a)
        try spool.store([4], sessionId: b)
        XCTAssertEqual(Set(spool.pending()), [a, b])
        XCTAssertEqual(try spool.read(a), [1, 2, 3])
        // A temporary file a crash left behind (unlocked, over a minute old) is removed at the
        // next start, never delivered.
        let temp = spool.directory + "/.tmp-\(a)-1-000000000000"
        XCTAssertTrue(FileManager.default.createFile(atPath: temp, contents: Data([9])))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: temp)
        let again = try AuditSpool(root: dir.path + "/spool", owner: Fixture.owner.publicKey)
        XCTAssertEqual(Set(again.pending()), [a, b])
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp))
        try again.remove(a)
        XCTAssertEqual(again.pending(), [b])
        XCTAssertThrowsError(try spool.store([1], sessionId: "../x")) {
            XCTAssertEqual($0 as? SpoolError, .badSessionId("../x"))
        }
    }

    func testSpooledBundleSurvivesRestartAndIsRetriedUntilAcknowledged() throws {
        let dir = try TempDir()
        let collector = try TestCollector(failures: 3)
        let chain = try Fixture.chain()
        let bytes = chain.bundle.encoded()

        // First run: spooled, never started (the process "died" before posting).
        let first = AuditDelivery(collector: collector.base, owner: Fixture.owner.publicKey,
                                  spool: try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey), backoff: fast)
        first.submit(bytes, sessionId: chain.sessionId)
        XCTAssertEqual(collector.postCount, 0)

        // Second run: the spool is scanned at start; three 503s, then the acknowledgement.
        let events = Locked<[AuditDelivery.Event]>([])
        let second = AuditDelivery(collector: collector.base + "/", owner: Fixture.owner.publicKey,
                                   spool: try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey), backoff: fast) { events.append($0) }
        second.start()
        defer { second.stop() }
        XCTAssertTrue(second.waitUntilDelivered(seconds: 120), "not delivered: \(events.value)")
        XCTAssertEqual(collector.stored[chain.sessionId], bytes)
        XCTAssertEqual(collector.postCount, 4)
        XCTAssertEqual(second.spool.pending(), [])
        let all = events.value
        XCTAssertEqual(all.count, 4)
        XCTAssertEqual(all.last, .delivered(sessionId: chain.sessionId, status: .stored))
        for (i, e) in all.dropLast().enumerated() {
            guard case .failed(let id, let reason, let retry) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(id, chain.sessionId)
            XCTAssertEqual(reason, "collector answered HTTP 503: try later")
            XCTAssertEqual(retry, min(0.05, 0.01 * Double(1 << i)))
        }
    }

    func testAcknowledgementByAnotherKeyLeavesTheBundleSpooled() throws {
        let dir = try TempDir()
        let collector = try TestCollector(failures: 0, signer: Fixture.stranger)
        let chain = try Fixture.chain()
        let d = AuditDelivery(collector: collector.base, owner: Fixture.owner.publicKey,
                              spool: try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey), backoff: fast)
        d.submit(chain.bundle.encoded(), sessionId: chain.sessionId)
        XCTAssertThrowsError(try d.deliver(sessionId: chain.sessionId)) {
            XCTAssertEqual($0 as? AcknowledgementError,
                           .signature(keyID: Fixture.stranger.publicKey.hex, owner: Fixture.owner.publicKey.hex))
        }
        XCTAssertEqual(d.spool.pending(), [chain.sessionId])
        XCTAssertNotNil(collector.stored[chain.sessionId])
    }

    func testCollectorUnreachableKeepsTheBundle() throws {
        let dir = try TempDir()
        let chain = try Fixture.chain()
        // A port that was just free and is closed again: nothing listens there.
        let closed = try HTTPServer { _ in HTTPResponse(status: 500) }
        let port = closed.port
        closed.stop()
        let d = AuditDelivery(collector: "http://127.0.0.1:\(port)", owner: Fixture.owner.publicKey,
                              spool: try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey), backoff: fast)
        d.submit(chain.bundle.encoded(), sessionId: chain.sessionId)
        XCTAssertThrowsError(try d.deliver(sessionId: chain.sessionId)) {
            guard case .transport? = $0 as? HTTPPostError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(d.spool.pending(), [chain.sessionId])
    }
}

