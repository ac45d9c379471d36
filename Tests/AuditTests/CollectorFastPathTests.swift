// The collector's fast paths against the general code they stand in for: the one-pass bundle
// reader against the strict I-JSON reader, the strict base64 decoder against Foundation's
// decode-and-re-encode rule, and the acknowledgement writer against JSONEncoder/JSONSerialization
// (docs/collector.md §Measured).

import Foundation
import XCTest
import TestSupport
@testable import Audit
import WaiCrypto
import WaiSupport

final class CollectorFastPathTests: XCTestCase {
    private func same(_ a: AuditBundle, _ b: AuditBundle) -> Bool {
        a.version == b.version && a.sessionId == b.sessionId && a.owner == b.owner && a.binding == b.binding && a.records == b.records
    }

    private func fullReader(_ bytes: [UInt8]) -> Result<AuditBundle, AuditBundleError> {
        Result { () throws(AuditBundleError) -> AuditBundle in try AuditBundle.parseStrict(bytes) }
    }

    func testReaderAgreesWithTheStrictReaderOnEveryByteFlip() throws {
        let bytes = try Fixture.chain().bundle.encoded()
        let plain = try XCTUnwrap(BundleReader.read(bytes), "the writer's own spelling takes the fast path")
        XCTAssertTrue(same(plain, try fullReader(bytes).get()))
        var fast = 0
        for i in bytes.indices {
            for bit in [0x01, 0x20] as [UInt8] {
                var t = bytes
                t[i] ^= bit
                guard let r = BundleReader.read(t) else { continue }
                fast += 1
                // Whatever the one-pass reader accepts, the strict reader accepts with the same values.
                guard case .success(let full) = fullReader(t) else {
                    return XCTFail("byte \(i) ^ \(bit): BundleReader accepted what the strict reader refuses")
                }
                XCTAssertTrue(same(r, full), "byte \(i) ^ \(bit): readers disagree")
            }
        }
        // Flips inside hex and base64 that stay well-formed (and get refused by the signature).
        XCTAssertGreaterThan(fast, 0)
    }

    func testReaderLeavesUnusualSpellingsToTheStrictReader() throws {
        let bytes = try Fixture.chain().bundle.encoded()
        let text = String(decoding: bytes, as: UTF8.self)
        let variants: [(String, Bool)] = [
            // Same meaning, still plain: taken by the fast path.
            (" \n" + text.replacingOccurrences(of: ",\"", with: " ,\t\"") + "\r\n", true),
            // An escape, an unknown envelope member, a null, a duplicate, a trailing comma: the strict reader's.
            (text.replacingOccurrences(of: "\"payloadType\"", with: "\"payload\\u0054ype\""), false),
            (text.replacingOccurrences(of: "\"payloadType\"", with: "\"extra\":1,\"payloadType\""), false),
            (text.replacingOccurrences(of: "\"version\":1", with: "\"version\":null"), false),
            (text.replacingOccurrences(of: "\"version\":1", with: "\"version\":1,\"version\":1"), false),
            (text.replacingOccurrences(of: "\"version\":1", with: "\"version\":1.0"), false),
            (text.replacingOccurrences(of: "}]}", with: "},]}"), false),
            (text + "x", false),
        ]
        for (v, plain) in variants {
            let b = Array(v.utf8)
            let fast = BundleReader.read(b)
            XCTAssertEqual(fast != nil, plain, v.prefix(80).description)
            switch (fast, fullReader(b)) {
            case (let f?, .success(let full)): XCTAssertTrue(same(f, full))
            case (nil, .success(let full)):
                // parse still gives the strict reader's bundle (the escape and unknown-member cases).
                XCTAssertTrue(same(try AuditBundle.parse(b), full))
            case (nil, .failure(let e)):
                XCTAssertThrowsError(try AuditBundle.parse(b)) { XCTAssertEqual($0 as? AuditBundleError, e) }
            case (_?, .failure(let e)): XCTFail("fast path accepted what the strict reader refuses: \(e)")
            }
        }
    }

    func testStrictBase64MatchesFoundationsRoundTripRule() {
        func reference(_ t: String) -> [UInt8]? {
            guard let d = Data(base64Encoded: t), d.base64EncodedString() == t else { return nil }
            return [UInt8](d)
        }
        var g = SystemRandomNumberGenerator()
        var texts: [String] = ["", "=", "==", "A", "AA", "AAA", "AA==", "AB==", "AAA=", "AAB=", "A===", "====", "AA=A", "AAAA====",
                               "QQ==QQ==", " QQ==", "QQ==\n", "-_-_", "QUJD", "QUJDRA==", "QUJDRA", "QUJDRA=", "+/+/"]
        for n in 0..<20 {
            let t = Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }).base64EncodedString()
            texts.append(t)
            // Every single-character change of a valid text, to characters in and out of the alphabet.
            for i in t.indices.prefix(12) {
                for c in ["A", "B", "/", "+", "=", "-", " ", "\n", "\u{e9}"] {
                    var u = t
                    u.replaceSubrange(i...i, with: c)
                    texts.append(u)
                }
            }
        }
        for t in texts { XCTAssertEqual(StrictBase64.decode(t), reference(t), "\(t.debugDescription)") }
    }

    func testAcknowledgementWriterMatchesTheGeneralEncoding() throws {
        for (sid, hash, status, ms) in [(String(repeating: "ab", count: 16), SHA256.hex([1]), CollectorAcknowledgement.Status.stored, Int64(1_764_000_000_123)),
                                        (String(repeating: "0", count: 32), SHA256.hex([]), .duplicate, 0),
                                        ("not hex \"quoted\"", "x", .stored, 7)] {
            let a = CollectorAcknowledgement(sessionId: sid, bundleSha256: hash, status: status, storedMs: ms)
            XCTAssertEqual(try a.signed(by: Fixture.owner), try a.signedThroughJSONEncoder(by: Fixture.owner), sid)
        }
    }

    /// The payload reader (PayloadReader) against the strict decoding it stands in for, on
    /// two bit flips of every byte of a binding, an ack record and a session record: whatever
    /// it takes, the strict reader takes with the same value; the writer's spelling is taken.
    func testPayloadReaderAgreesWithTheStrictReaderOnEveryByteFlip() throws {
        let bundle = try Fixture.chain().bundle
        var withReason = Fixture.ack(7)
        withReason.outcome = .withheld
        withReason.reason = "sha256 mismatch"
        withReason.detail = "expected 00, got 11"
        withReason.effectiveUri = nil
        let extra = PayloadCoding.encode(AuditRecord(sessionId: bundle.sessionId, seq: 9, prev: SHA256.hex([9]), body: .ack(withReason)))
        func agree<T: PayloadDecodable & Equatable>(_ bytes: [UInt8], _ fast: ([UInt8]) -> T?, _: T.Type) throws -> Int {
            let strict = { (b: [UInt8]) in Result { () throws(AuditBundleError) -> T in try PayloadCoding.decode(T.self, b, at: "p") } }
            XCTAssertEqual(try XCTUnwrap(fast(bytes), "the writer's own spelling takes the fast path"), try strict(bytes).get())
            var taken = 0
            for i in bytes.indices {
                for bit in [0x01, 0x20] as [UInt8] {
                    var t = bytes
                    t[i] ^= bit
                    guard let f = fast(t) else { continue }
                    taken += 1
                    guard case .success(let full) = strict(t) else {
                        XCTFail("byte \(i) ^ \(bit): the payload reader took what the strict reader refuses: \(String(decoding: t, as: UTF8.self))")
                        continue
                    }
                    XCTAssertEqual(f, full, "byte \(i) ^ \(bit)")
                }
            }
            return taken
        }
        XCTAssertGreaterThan(try agree(bundle.binding.payload, BundleReader.binding, SessionBinding.self), 0)
        for payload in bundle.records.map(\.payload) + [extra] {
            XCTAssertGreaterThan(try agree(payload, BundleReader.record, AuditRecord.self), 0)
        }
    }

    func testPayloadReaderLeavesUnusualSpellingsToTheStrictReader() throws {
        let bundle = try Fixture.chain().bundle
        let ack = String(decoding: bundle.records[0].payload, as: UTF8.self)
        let session = String(decoding: bundle.records[3].payload, as: UTF8.self)
        let claim = PayloadCoding.encode(AuditRecord(sessionId: bundle.sessionId, seq: 1, prev: SHA256.hex([1]), body: .adClaim(
            AdClaimBody(marker: .daterange, id: "ad1", adClass: nil, startDate: nil, scte35Cmd: nil, scte35Out: nil, scte35In: nil,
                        plannedDurationMs: 1000, segments: [], presentedMs: 5))))
        let variants: [(String, Bool)] = [
            (" " + ack.replacingOccurrences(of: ",\"", with: " ,\n\"") + "\t", true),
            (ack.replacingOccurrences(of: "\"seq\":0", with: "\"seq\":0,\"note\":\"x\""), false),
            (ack.replacingOccurrences(of: "\"seq\":0", with: "\"seq\":0,\"seq\":0"), false),
            (ack.replacingOccurrences(of: "\"seq\":0", with: "\"seq\":-0"), false),
            (ack.replacingOccurrences(of: "\"seq\":0", with: "\"seq\":0.0"), false),
            (ack.replacingOccurrences(of: "\"seq\":0", with: "\"seq\":00"), false),
            (ack.replacingOccurrences(of: "\"kind\":\"object\"", with: "\"kind\":\"obj\\u0065ct\""), false),
            (ack.replacingOccurrences(of: "\"kind\":\"object\"", with: "\"kind\":\"blob\""), false),
            (ack.replacingOccurrences(of: "\"kind\":\"object\"", with: "\"kind\":\"object\",\"reason\":null"), false),
            (ack.replacingOccurrences(of: "\"type\":\"ack\"", with: "\"type\":\"session\""), false),
            (session.replacingOccurrences(of: "\"objects\":3", with: "\"objects\":9007199254740992"), false),
            (session.replacingOccurrences(of: "\"objects\":3", with: "\"objects\":9007199254740991"), true),
            (session.replacingOccurrences(of: "[\"player\"]", with: "[\"player\",1]"), false),
            (session.replacingOccurrences(of: "[\"player\"]", with: "[]"), true),
            (String(decoding: claim, as: UTF8.self), false),
            (ack + "x", false),
        ]
        for (v, plain) in variants {
            let b = Array(v.utf8)
            let fast = BundleReader.record(b)
            XCTAssertEqual(fast != nil, plain, v)
            let strict = Result { () throws(AuditBundleError) -> AuditRecord in try PayloadCoding.decode(AuditRecord.self, b, at: "p") }
            if let fast { XCTAssertEqual(fast, try strict.get(), v) }
        }
    }
}
