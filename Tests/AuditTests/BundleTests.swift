// Bundles: signed and verified round trip, and every tamper refused with the error naming it.

import Foundation
import XCTest
@testable import Audit
import WaiCrypto

final class BundleTests: XCTestCase {
    func testRoundTrip() throws {
        let c = try Fixture.chain()
        let bytes = c.bundle.encoded()
        let v = try AuditBundle.verify(bytes, owner: Fixture.owner.publicKey,
                                       trustedInstallationKeys: [Fixture.installation.publicKey])
        XCTAssertEqual(v.sessionId, c.sessionId)
        XCTAssertEqual(v.owner, Fixture.owner.publicKey.hex)
        XCTAssertEqual(v.installationKey, Fixture.installation.publicKey.hex)
        XCTAssertEqual(v.sessionKey, c.sessionKey.publicKey.hex)
        XCTAssertEqual(v.acks, (0..<3).map(Fixture.ack))
        XCTAssertEqual(v.session, Fixture.summary)
        XCTAssertEqual(v.records.map { $0.seq }, [0, 1, 2, 3])
        XCTAssertEqual(v.bundleSha256, SHA256.hex(bytes))
        // The writer's spelling is stable: parse and re-encode gives the same bytes.
        XCTAssertEqual(try AuditBundle.parse(bytes).encoded(), bytes)
    }

    func testEverySingleByteFlipIsRefused() throws {
        let bytes = try Fixture.chain().bundle.encoded()
        for i in bytes.indices {
            var t = bytes
            t[i] ^= 0x01
            XCTAssertThrowsError(try AuditBundle.verify(t), "flip at byte \(i) verified")
        }
    }

    func testFlippedPayloadByteNamesTheRecord() throws {
        var b = try Fixture.chain().bundle
        b.records[2].payload[10] ^= 0x20
        XCTAssertBundleError(b.encoded(), .recordSignature(index: 2))
    }

    /// A long bundle's signatures are checked a window at a time on every core
    /// (AuditBundle.parallelSignaturesFrom): the answers and the first error are a serial walk's,
    /// on either side of a window's edge, and an earlier error of another kind still comes first.
    func testLongBundlesGiveTheSerialWalksFirstError() throws {
        let window = AuditBundle.parallelSignaturesFrom
        var c = try AuditChain(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        for i in 0..<(2 * window + 10) { try c.append(.ack(Fixture.ack(i % 200))) }
        try c.append(.session(Fixture.summary))
        let good = c.bundle
        XCTAssertEqual(try AuditBundle.verify(good.encoded()).records.count, 2 * window + 11)
        for bad in [0, window - 1, window, window + 1, 2 * window + 9] {
            var b = good
            b.records[bad].payload[10] ^= 0x20
            XCTAssertBundleError(b.encoded(), .recordSignature(index: bad))
            // A later bad signature, in the same window and in the next, does not hide it.
            b.records[min(bad + 3, b.records.count - 1)].signature[0] ^= 1
            b.records[min(bad + window + 1, b.records.count - 1)].signature[0] ^= 1
            XCTAssertBundleError(b.encoded(), .recordSignature(index: bad))
        }
        var b = good
        b.records[window + 5].signature[0] ^= 1
        b.records[window + 2].payloadType = "text/plain"
        XCTAssertBundleError(b.encoded(), .recordPayloadType(index: window + 2, got: "text/plain"))
    }

    func testDroppedRecord() throws {
        var b = try Fixture.chain().bundle
        b.records.remove(at: 1)
        XCTAssertBundleError(b.encoded(), .sequence(index: 1, expected: 1, got: 2))
    }

    func testReorderedRecords() throws {
        var b = try Fixture.chain().bundle
        b.records.swapAt(1, 2)
        XCTAssertBundleError(b.encoded(), .sequence(index: 1, expected: 1, got: 2))
    }

    func testRecordFromAnotherSessionIsRefused() throws {
        var b = try Fixture.chain().bundle
        let other = try Fixture.chain().bundle
        b.records[1] = other.records[1]
        XCTAssertBundleError(b.encoded(), .unboundRecordKey(index: 1, keyID: other.records[1].keyID,
                                                            sessionKey: b.records[0].keyID))
    }

    func testRecordNamingAnotherSessionUnderTheSessionKey() throws {
        let c = try Fixture.chain()
        var b = c.bundle
        let other = AuditChain.newSessionId()
        b.records[1] = try Fixture.record(sessionId: other, seq: 1, prev: SHA256.hex(b.records[0].payload),
                                          body: .ack(Fixture.ack(1)), key: c.sessionKey)
        XCTAssertBundleError(b.encoded(), .recordSession(index: 1, expected: c.sessionId, got: other))
    }

    func testBrokenChainLink() throws {
        let c = try Fixture.chain()
        var b = c.bundle
        let wrong = SHA256.hex(Array("not the previous record".utf8))
        b.records[2] = try Fixture.record(sessionId: c.sessionId, seq: 2, prev: wrong, body: .ack(Fixture.ack(9)),
                                          key: c.sessionKey)
        XCTAssertBundleError(b.encoded(), .chain(index: 2, expected: SHA256.hex(b.records[1].payload), got: wrong))
    }

    func testReplayedWholeRecordWithinSession() throws {
        var b = try Fixture.chain().bundle
        b.records.insert(b.records[1], at: 2)
        XCTAssertBundleError(b.encoded(), .sequence(index: 2, expected: 2, got: 1))
    }

    func testBindingNotSignedByTheInstallationKeyItNames() throws {
        var b = try Fixture.chain().bundle
        let forged = try Envelope.sign(type: AuditPayloadType.binding, payload: b.binding.payload, key: Fixture.stranger)
        b.binding.signature = forged.signature
        XCTAssertBundleError(b.encoded(), .bindingSignature(installationKey: Fixture.installation.publicKey.hex))
    }

    func testRecordSignedByUnboundKeyClaimingTheSessionKey() throws {
        let c = try Fixture.chain()
        var b = c.bundle
        var forged = try Fixture.record(sessionId: c.sessionId, seq: 1, prev: SHA256.hex(b.records[0].payload),
                                        body: .ack(Fixture.ack(7)), key: Fixture.stranger)
        forged.keyID = c.sessionKey.publicKey.hex
        b.records[1] = forged
        XCTAssertBundleError(b.encoded(), .recordSignature(index: 1))
    }

    func testUntrustedInstallation() throws {
        let bytes = try Fixture.chain(installation: Fixture.stranger).bundle.encoded()
        XCTAssertBundleError(bytes, .untrustedInstallationKey(Fixture.stranger.publicKey.hex),
                             trusted: [Fixture.installation.publicKey])
    }

    func testWrongOwner() throws {
        let bytes = try Fixture.chain().bundle.encoded()
        XCTAssertBundleError(bytes, .wrongOwner(expected: Fixture.stranger.publicKey.hex, got: Fixture.owner.publicKey.hex),
                             owner: Fixture.stranger.publicKey)
    }

    func testReaddressedToAnotherOwner() throws {
        var b = try Fixture.chain().bundle
        b.owner = Fixture.stranger.publicKey.hex
        XCTAssertBundleError(b.encoded(), .bindingMismatch(field: "owner", bundle: Fixture.stranger.publicKey.hex,
                                                           binding: Fixture.owner.publicKey.hex))
    }

    func testTruncatedBytes() throws {
        let bytes = try Fixture.chain().bundle.encoded()
        // The cut falls in the member name "version": the error names where, and the byte.
        XCTAssertBundleError(Array(bytes.dropLast(7)),
                             .malformed(at: "bundle", reason: "string not closed (truncated?) (byte \(bytes.count - 7))"))
    }

    func testMissingSessionRecord() throws {
        var b = try Fixture.chain().bundle
        b.records.removeLast()
        XCTAssertBundleError(b.encoded(), .sessionRecordMissing)
    }

    func testRecordAfterTheSessionRecord() throws {
        let c = try Fixture.chain()
        var b = c.bundle
        b.records.append(try Fixture.record(sessionId: c.sessionId, seq: 4, prev: SHA256.hex(b.records[3].payload),
                                            body: .ack(Fixture.ack(4)), key: c.sessionKey))
        XCTAssertBundleError(b.encoded(), .sessionRecordNotLast(index: 3))
    }

    func testOversizedBundle() {
        let big = [UInt8](repeating: 0x20, count: AuditLimits.bundleBytes + 1)
        XCTAssertBundleError(big, .tooLarge(what: "bundle", size: AuditLimits.bundleBytes + 1, limit: AuditLimits.bundleBytes))
    }

    func testOversizedRecordPayload() throws {
        var c = try AuditChain(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        var a = Fixture.ack(0)
        a.uri = String(repeating: "a", count: AuditLimits.payloadBytes)
        try c.append(.ack(a))
        try c.append(.session(Fixture.summary))
        let size = c.records[0].payload.count
        XCTAssertBundleError(c.bundle.encoded(), .tooLarge(what: "records[0].payload", size: size, limit: AuditLimits.payloadBytes))
    }

    func testNonCanonicalBase64() throws {
        var b = try Fixture.chain().bundle.encoded()
        // Insert a newline into the first payload's base64: decoders that skip it would accept.
        let text = String(decoding: b, as: UTF8.self)
        let marker = "\"payload\":\""
        let r = try XCTUnwrap(text.range(of: marker, range: text.range(of: "\"records\"")!.upperBound..<text.endIndex))
        let at = text.utf8.distance(from: text.startIndex, to: r.upperBound) + 4
        b.insert(contentsOf: Array("\\n".utf8), at: at)
        XCTAssertBundleError(b, .malformed(at: "records[0].payload", reason: "not canonical standard base64"))
    }

    func testCollectorAcknowledgement() throws {
        let c = try Fixture.chain()
        let hash = SHA256.hex(c.bundle.encoded())
        let ack = CollectorAcknowledgement(sessionId: c.sessionId, bundleSha256: hash, status: .stored, storedMs: 5)
        let body = try ack.signed(by: Fixture.owner)
        XCTAssertEqual(try CollectorAcknowledgement.verify(body, owner: Fixture.owner.publicKey, sessionId: c.sessionId,
                                                           bundleSha256: hash), ack)
        XCTAssertThrowsError(try CollectorAcknowledgement.verify(try ack.signed(by: Fixture.stranger), owner: Fixture.owner.publicKey,
                                                                 sessionId: c.sessionId, bundleSha256: hash)) {
            XCTAssertEqual($0 as? AcknowledgementError, .signature(keyID: Fixture.stranger.publicKey.hex, owner: Fixture.owner.publicKey.hex))
        }
        let other = SHA256.hex([1])
        XCTAssertThrowsError(try CollectorAcknowledgement.verify(body, owner: Fixture.owner.publicKey, sessionId: c.sessionId,
                                                                 bundleSha256: other)) {
            XCTAssertEqual($0 as? AcknowledgementError, .mismatch(field: "bundle_sha256", expected: other, got: hash))
        }
    }
}
