import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// docs/envelope.md: layout (§1), names (§2), parsing errors with field and offset (§3).
final class EnvelopeTests: XCTestCase {
    private let capability = "wai.neural.int_hyper"

    func testKnownAnswerLayout() throws {
        // Computed independently with Python's hashlib from the layout table of §1.
        let expected = "5741493101147761692e6e657572616c2e696e745f68797065720400000000000000010203ff"
            + "c75387cfef7b302bf86b71044f48a51d64d370ac114904e13896d34afc781fe7"
        let bytes = try Envelope.encode(capability: capability, payload: [1, 2, 3, 0xFF])
        XCTAssertEqual(hex(bytes), expected)
        let parsed = try Envelope.parse(bytes)
        XCTAssertEqual(parsed.capability, self.capability)
        XCTAssertEqual(parsed.payload, [1, 2, 3, 0xFF])
    }

    func testRoundTrip() throws {
        var seed: UInt64 = 0x1234_5678
        for (capability, size) in [("wai.neural.int_synth", 0), ("wai.video.int_cond", 1), ("wai.a.b", 1000),
                                   ("wai.splat.int_codec", 70000),
                                   ("wai." + String(repeating: "x", count: 29) + "." + String(repeating: "y9_", count: 10), 5)] {
            let payload = (0..<size).map { _ -> UInt8 in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: seed >> 33)
            }
            let bytes = try Envelope.encode(capability: capability, payload: payload)
            XCTAssertEqual(bytes.count, 46 + capability.utf8.count + size)
            XCTAssertTrue(Envelope.isEnvelope(bytes))
            let parsed = try Envelope.parse(bytes)
            XCTAssertEqual(parsed.capability, capability)
            XCTAssertEqual(parsed.payload, payload)
        }
    }

    func testIsEnvelopeLooksOnlyAtTheMagic() {
        XCTAssertFalse(Envelope.isEnvelope([]))
        XCTAssertFalse(Envelope.isEnvelope(Array("WAI".utf8)))
        XCTAssertFalse(Envelope.isEnvelope(Array("WAI2 payload".utf8)))
        XCTAssertFalse(Envelope.isEnvelope([0x89, 0x50, 0x4E, 0x47]))
        XCTAssertTrue(Envelope.isEnvelope(Array("WAI1".utf8)))   // then it must parse as one
    }

    func testCapabilityNames() {
        for good in ["wai.neural.int_hyper", "wai.video.int_motion", "wai.audio.int_codec", "wai.a.b",
                     "wai.x1.y_2_", "wai." + String(repeating: "a", count: 58) + ".b"] {
            XCTAssertTrue(Envelope.isValidCapabilityName(good), good)
        }
        for bad in ["", "wai", "wai.", "wai.a", "wai..b", "wai.a.", "wai.a.b.c", "WAI.a.b", "wai.A.b",
                    "wai.1a.b", "wai.a._b", "wai.a.b-c", "wai.a.b ", " wai.a.b", "xai.a.b", "wai.neüral.x",
                    "wai." + String(repeating: "a", count: 59) + ".b"] {
            XCTAssertFalse(Envelope.isValidCapabilityName(bad), bad)
            XCTAssertThrowsError(try Envelope.encode(capability: bad, payload: [])) {
                XCTAssertEqual(($0 as? EnvelopeError)?.field, .capability)
            }
        }
    }

    func testEveryPrefixIsRefused() throws {
        let bytes = try Envelope.encode(capability: capability, payload: Array(0..<40))
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try Envelope.parse(Array(bytes.prefix(cut))), "cut at \(cut)") { error in
                guard let e = error as? EnvelopeError else { return XCTFail("\(error)") }
                switch e.problem {
                case .truncated, .lengthBeyondEnd: break
                default: XCTFail("cut at \(cut): \(e)")
                }
                XCTAssertLessThanOrEqual(e.offset, cut)
            }
        }
        XCTAssertThrowsError(try Envelope.parse([])) {
            XCTAssertEqual($0 as? EnvelopeError,
                           EnvelopeError(field: .magic, offset: 0, problem: .truncated(needed: 4, available: 0)))
        }
        XCTAssertThrowsError(try Envelope.parse(Array(bytes.prefix(30)))) {   // inside the payload length
            XCTAssertEqual($0 as? EnvelopeError,
                           EnvelopeError(field: .payloadLength, offset: 26, problem: .truncated(needed: 8, available: 4)))
        }
        XCTAssertThrowsError(try Envelope.parse(Array(bytes.prefix(bytes.count - 1)))) {
            XCTAssertEqual($0 as? EnvelopeError,
                           EnvelopeError(field: .payloadLength, offset: 26, problem: .lengthBeyondEnd(length: 40, available: 39)))
        }
    }

    func testWrongMagicAndVersion() throws {
        let bytes = try Envelope.encode(capability: capability, payload: [7])
        for magic in ["WAI2", "wai1", "RIFF"] {
            var b = bytes
            b.replaceSubrange(0..<4, with: Array(magic.utf8))
            XCTAssertThrowsError(try Envelope.parse(b)) {
                XCTAssertEqual($0 as? EnvelopeError,
                               EnvelopeError(field: .magic, offset: 0, problem: .wrongMagic(Array(magic.utf8))))
            }
        }
        for version: UInt8 in [0, 2, 255] {
            var b = bytes
            b[4] = version
            XCTAssertThrowsError(try Envelope.parse(b)) {
                XCTAssertEqual($0 as? EnvelopeError,
                               EnvelopeError(field: .version, offset: 4, problem: .unsupportedVersion(version)))
            }
        }
    }

    func testBadNamesInParsedEnvelopes() {
        for length in [0, 4, 65, 255] {
            let b = rawEnvelope(name: Array(repeating: UInt8(ascii: "a"), count: length), payload: [], nameLength: UInt8(length))
            XCTAssertThrowsError(try Envelope.parse(b)) {
                XCTAssertEqual(($0 as? EnvelopeError)?.field, .capabilityLength)
                XCTAssertEqual(($0 as? EnvelopeError)?.offset, 5)
            }
        }
        for bad: [UInt8] in [Array("wai.neural".utf8), Array("WAI.neural.x".utf8), Array("wai.a.b\u{0}".utf8),
                             Array("wai.ne\u{FC}ral.x".utf8), [0x77, 0x61, 0x69, 0x2E, 0x61, 0x2E, 0xFF]] {
            XCTAssertThrowsError(try Envelope.parse(rawEnvelope(name: bad, payload: [1]))) { error in
                guard let e = error as? EnvelopeError, case .invalidCapabilityName(let shown) = e.problem else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(e.field, .capability)
                XCTAssertEqual(e.offset, 6)
                XCTAssertTrue(shown.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, shown)
            }
        }
        XCTAssertThrowsError(try Envelope.parse(rawEnvelope(name: [0x77, 0x61, 0x69, 0x2E, 0x61, 0x2E, 0xFF], payload: []))) {
            XCTAssertEqual(($0 as? EnvelopeError)?.problem, .invalidCapabilityName("wai.a.\\xff"))
        }
    }

    func testPayloadLengthBeyondEndIsRefusedWithoutAllocating() throws {
        let bytes = try Envelope.encode(capability: capability, payload: Array(repeating: 9, count: 10))
        for length: UInt64 in [11, 1 << 40, UInt64(Int.max), UInt64(Int.max) + 1, .max] {
            var b = bytes
            for i in 0..<8 { b[26 + i] = UInt8(truncatingIfNeeded: length >> UInt64(8 * i)) }
            XCTAssertThrowsError(try Envelope.parse(b)) {
                XCTAssertEqual($0 as? EnvelopeError,
                               EnvelopeError(field: .payloadLength, offset: 26,
                                             problem: .lengthBeyondEnd(length: length, available: 10)))
            }
        }
        var shorter = bytes
        shorter[26] = 9
        XCTAssertThrowsError(try Envelope.parse(shorter)) {
            XCTAssertEqual($0 as? EnvelopeError,
                           EnvelopeError(field: .digest, offset: 43, problem: .trailingBytes(count: 1)))
        }
    }

    func testTrailingBytesAndDigest() throws {
        let bytes = try Envelope.encode(capability: capability, payload: Array(repeating: 1, count: 16))
        let digestOffset = bytes.count - 32
        XCTAssertThrowsError(try Envelope.parse(bytes + [0])) {
            XCTAssertEqual($0 as? EnvelopeError,
                           EnvelopeError(field: .digest, offset: digestOffset, problem: .trailingBytes(count: 1)))
        }
        // Every single bit flip anywhere is refused; flips in the payload or digest are
        // caught by the SHA-256 alone.
        for bit in 0..<(bytes.count * 8) {
            var b = bytes
            b[bit / 8] ^= UInt8(1 << (bit % 8))
            XCTAssertThrowsError(try Envelope.parse(b), "bit \(bit)") { error in
                if bit / 8 >= 34 {
                    XCTAssertEqual(error as? EnvelopeError,
                                   EnvelopeError(field: .digest, offset: digestOffset, problem: .digestMismatch), "bit \(bit)")
                }
            }
        }
    }

    func testErrorsNameFieldAndOffset() {
        let e = EnvelopeError(field: .payloadLength, offset: 26, problem: .lengthBeyondEnd(length: 99, available: 3))
        XCTAssertTrue(e.description.contains("payload length at byte 26"), e.description)
        XCTAssertTrue(e.description.contains("99"), e.description)
    }

    // MARK: - Helpers

    /// An envelope with any name bytes and a correct digest, to reach the name checks.
    private func rawEnvelope(name: [UInt8], payload: [UInt8], nameLength: UInt8? = nil) -> [UInt8] {
        var b: [UInt8] = Array("WAI1".utf8)
        b += [1, nameLength ?? UInt8(name.count)]
        b += name
        for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(8 * i))) }
        b += payload
        return b + SHA256.digest(b)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
