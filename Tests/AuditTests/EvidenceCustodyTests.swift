// Evidence at the relay (docs/audit-bundle.md §5, §7, §8): what the spool refuses is held in
// memory and still delivered; two relays sharing a spool never delete each other's files; a
// bundle only ever goes to its own owner's collector; a long session continues in chained
// bundles that each verify; a journal whose writer is gone becomes a bundle.
import Foundation
import TestSupport
import XCTest
@testable import Audit
@testable import Relay
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class EvidenceCustodyTests: XCTestCase {
    let fast = AuditDelivery.Backoff(initialSeconds: 0.01, maxSeconds: 0.05)

    static func event(_ n: Int, withheld: Bool = false) -> ObjectEvent {
        ObjectEvent(localPath: "/o/\(n)", originURL: "http://user:secret@127.0.0.1:1/seg\(n).ts", effectiveURL: nil,
                    kind: .object, sha256: SHA256.hex(Array("segment \(n)".utf8)), size: 1000 + n,
                    outcome: withheld ? .withheld(reason: "hash_mismatch", detail: "x") : .verified,
                    time: 1_764_000_000 + Double(n))
    }

    func testBundleTheSpoolRefusesIsHeldInMemoryAndDelivered() throws {
        let dir = try TempDir()
        let chain = try Fixture.chain()
        let spool = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        // The spool folder stops being writable (a full or read-only file system answers the
        // same way: the temporary file cannot be written).
        try FileManager.default.removeItem(atPath: spool.directory)
        XCTAssertTrue(FileManager.default.createFile(atPath: spool.directory, contents: Data()))
        let events = Locked<[AuditDelivery.Event]>([])
        let down = try TestCollector(failures: 2)
        let d = AuditDelivery(collector: down.base, owner: Fixture.owner.publicKey, spool: spool, backoff: fast) { events.append($0) }
        XCTAssertFalse(d.submit(chain.bundle.encoded(), sessionId: chain.sessionId))
        XCTAssertEqual(d.heldInMemory, [chain.sessionId])
        guard case .heldInMemory(let id, let reason)? = events.value.first else { return XCTFail("\(events.value)") }
        XCTAssertEqual(id, chain.sessionId)
        XCTAssertTrue(reason.contains("audit spool"), reason)
        d.start()
        defer { d.stop() }
        XCTAssertTrue(d.waitUntilDelivered(seconds: 60), "\(events.value)")
        XCTAssertEqual(down.stored[chain.sessionId], chain.bundle.encoded(), "delivered from memory, through two 503s")
        XCTAssertEqual(d.heldInMemory, [])
    }

    func testTemporaryFileOfALiveWriterIsNeverRemoved() throws {
        let dir = try TempDir()
        let spool = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        let temp = spool.directory + "/.tmp-\(AuditChain.newSessionId())-99999-0123456789ab"
        XCTAssertTrue(FileManager.default.createFile(atPath: temp, contents: Data([1, 2, 3])))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: temp)
        // Another relay still writing it holds the file's lock (flock locks belong to an open
        // file description, so a descriptor of this test's own stands for the other process).
        let holder = open(temp, O_RDONLY | O_CLOEXEC)
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        _ = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        XCTAssertTrue(FileManager.default.fileExists(atPath: temp), "a starting relay deleted a live writer's temporary file")
        close(holder)
        _ = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp), "an abandoned temporary file is cleaned up")
    }

    func testBundleOnlyGoesToItsOwnersCollector() throws {
        let dir = try TempDir()
        // Owner A's bundle, left in the spool root by an older relay, and one misfiled into B's folder.
        let a = try AuditChain(installationKey: Fixture.installation, owner: Fixture.stranger.publicKey)
        var ac = a
        try ac.append(.session(Fixture.summary))
        try Data(ac.bundle.encoded()).write(to: URL(fileURLWithPath: dir.path + "/\(a.sessionId).bundle"))
        var m = try AuditChain(installationKey: Fixture.installation, owner: Fixture.stranger.publicKey)
        try m.append(.session(Fixture.summary))
        let spoolB = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        try spoolB.store(m.bundle.encoded(), sessionId: m.sessionId)
        // B's own bundle.
        let b = try Fixture.chain()
        try spoolB.store(b.bundle.encoded(), sessionId: b.sessionId)

        let collectorB = try TestCollector(failures: 0)
        let events = Locked<[AuditDelivery.Event]>([])
        let d = AuditDelivery(collector: collectorB.base, owner: Fixture.owner.publicKey, spool: spoolB, backoff: fast) { events.append($0) }
        XCTAssertEqual(try d.deliver(sessionId: b.sessionId), .stored)
        XCTAssertThrowsError(try d.deliver(sessionId: m.sessionId)) {
            XCTAssertEqual($0 as? DeliveryError, .notThisOwner(sessionId: m.sessionId, owner: Fixture.owner.publicKey.hex))
        }
        XCTAssertEqual(collectorB.postCount, 1, "only B's own bundle was posted to B's collector")
        XCTAssertEqual(Set(collectorB.stored.keys), [b.sessionId])
        // A's evidence is untouched, in A's folder, for A's collector.
        let spoolA = try AuditSpool(root: dir.path, owner: Fixture.stranger.publicKey)
        XCTAssertEqual(spoolA.pending(), [a.sessionId])
        XCTAssertEqual(try spoolA.read(a.sessionId), ac.bundle.encoded())
        XCTAssertEqual(spoolB.pending(), [m.sessionId], "the misfiled bundle stays, never deleted by B's acknowledgement")
    }

    func testLongSessionContinuesInChainedBundlesThatEachVerify() throws {
        let dir = try TempDir()
        let sink = CollectingSink()
        let recorder = try AuditRecorder(installationKey: Fixture.installation, owner: Fixture.owner.publicKey,
                                         sink: sink, partLimitBytes: 8192)
        for n in 0..<100 { recorder.received(Self.event(n, withheld: n % 10 == 9)) }
        let last = try recorder.finish(endReason: .idleTimeout)
        let parts = sink.completed
        XCTAssertGreaterThan(parts.count, 3)
        XCTAssertEqual(parts.last?.1, last)
        XCTAssertEqual(parts.map { $0.0 }, recorder.partSessionIds)
        var previous: VerifiedBundle?
        var acks = 0
        for (i, (id, bytes)) in parts.enumerated() {
            XCTAssertLessThan(bytes.count, 8192 + 4096, "part \(i) stays near the part limit")
            let v = try AuditBundle.verify(bytes, owner: Fixture.owner.publicKey, trustedInstallationKeys: [Fixture.installation.publicKey])
            XCTAssertEqual(v.sessionId, id)
            XCTAssertEqual(v.session.endReason, i == parts.count - 1 ? .idleTimeout : .continued)
            XCTAssertEqual(v.session.objects, Int64(v.acks.count), "part \(i) counts its own acks")
            if let p = previous {
                let link = try XCTUnwrap(v.binding.continues, "part \(i) names the bundle before it")
                XCTAssertEqual(link.sessionId, p.sessionId)
                XCTAssertEqual(link.part, Int64(i))
                XCTAssertEqual(link.lastRecordSha256, SHA256.hex(try AuditBundle.parse(parts[i - 1].1).records.last!.payload))
            } else {
                XCTAssertNil(v.binding.continues)
            }
            XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("secret"), "userinfo redacted")
            acks += v.acks.count
            previous = v
            // `waihost audit verify` accepts each part.
            let file = dir.path + "/part\(i).bundle"
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let verify = try Subprocess(AuditCLITests.waihost, ["audit", "verify", file, "--owner", Fixture.owner.publicKey.hex], deadline: 120).run()
            XCTAssertEqual(verify.status, 0, "part \(i): \(verify.stderrText)")
        }
        XCTAssertEqual(acks, 100)
        XCTAssertTrue(try AuditBundle.verify(parts[0].1).acks[0].uri.hasPrefix("http://***@127.0.0.1:1/"))
    }

    func testJournalOfALiveRelayIsLeftAloneAndOfADeadOneRecovered() throws {
        let dir = try TempDir()
        let spool = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        let collector = try TestCollector(failures: 0)
        var custody: EvidenceCustody? = EvidenceCustody(delivery: AuditDelivery(collector: collector.base, owner: Fixture.owner.publicKey,
                                                                               spool: spool, backoff: fast))
        var recorder: AuditRecorder? = try AuditRecorder(installationKey: Fixture.installation, owner: Fixture.owner.publicKey,
                                                         sink: custody)
        for n in 0..<5 { recorder?.received(Self.event(n)) }
        let sid = try XCTUnwrap(recorder?.sessionId)
        XCTAssertEqual(spool.journals(), [sid])
        // Another relay starting now: the journal's writer lives, so it is not touched.
        let other = try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey)
        XCTAssertEqual(other.recoverJournals().recovered, [])
        XCTAssertEqual(spool.journals(), [sid])
        XCTAssertEqual(spool.pending(), [])
        // The writer is gone (its descriptors closed, as at a kill): the journal becomes a bundle.
        recorder = nil
        custody = nil
        let r = other.recoverJournals()
        XCTAssertEqual(r.recovered, [sid])
        XCTAssertEqual(r.unreadable, [:])
        XCTAssertEqual(spool.journals(), [])
        let v = try AuditBundle.verify(try spool.read(sid), owner: Fixture.owner.publicKey)
        XCTAssertEqual(v.session.endReason, .interrupted)
        XCTAssertEqual(v.acks.map { $0.sha256 }, (0..<5).map { Self.event($0).sha256 })
        XCTAssertEqual(v.session.objects, 5)
        XCTAssertEqual(v.session.bytes, Int64((0..<5).map { 1000 + $0 }.reduce(0, +)))
        // A torn last line (killed mid-write) is dropped, the rest recovered.
        let c = try AuditChain(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        let start = AuditPartStart(sessionId: c.sessionId, owner: Fixture.owner.publicKey, binding: c.binding,
                                   sessionKey: c.sessionKey, startMs: 1, decodeUnits: ["player"])
        let j = try AuditJournal.create(in: spool, start)
        var cc = c
        j.append(try cc.append(.ack(Fixture.ack(0))))
        j.close(remove: false)
        let torn = try cc.append(.ack(Fixture.ack(1))).encoded()
        let fh = try FileHandle(forWritingTo: URL(fileURLWithPath: spool.journalPath(of: c.sessionId)))
        fh.seekToEndOfFile()
        fh.write(Data(torn.prefix(torn.count / 2)))
        try fh.close()
        XCTAssertEqual(spool.recoverJournals().recovered, [c.sessionId])
        let t = try AuditBundle.verify(try spool.read(c.sessionId))
        XCTAssertEqual(t.acks, [Fixture.ack(0)])
        XCTAssertEqual(t.session.endReason, .interrupted)
    }
}

final class CollectingSink: AuditEvidenceSink, @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [(String, [UInt8])] = []
    func begin(_ part: AuditPartStart) {}
    func append(_ record: Envelope, sessionId: String) {}
    func complete(_ bundle: [UInt8], sessionId: String) { lock.lock(); parts.append((sessionId, bundle)); lock.unlock() }
    var completed: [(String, [UInt8])] { lock.lock(); defer { lock.unlock() }; return parts }
}
