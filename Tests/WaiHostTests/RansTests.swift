import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// docs/entropy-coding.md: tables (§1), values (§2), bypass (§3), coder (§4), layout (§5),
/// errors and the final-state check (§6).
final class RansTests: XCTestCase {

    // MARK: - Round trips

    func testEmptyStreamIsTheFlushedInitialState() throws {
        let bytes = RansEncoder().finish()
        XCTAssertEqual(bytes, [0x00, 0x00, 0x80, 0x00])   // L = 2^23, little-endian (§5)
        let decoder = try RansDecoder(bytes)
        XCTAssertNoThrow(try decoder.finish())
    }

    func testRoundTripEveryPrecision() throws {
        var rng = SplitMix64(seed: 1)
        for p in 1...16 {
            for _ in 0..<6 {
                let k = 1 + rng.below(min(1 << p, 300))
                let table = try randomTable(&rng, precision: p, symbolCount: k)
                let values = randomValues(&rng, table: table, count: 400)
                try assertRoundTrip(values.map { ($0, table) }, "p=\(p) K=\(k)")
            }
        }
    }

    func testRoundTripAlphabetSizes() throws {
        var rng = SplitMix64(seed: 2)
        for k in [1, 2, 3, 4, 5, 7, 16, 31, 64, 100, 255, 256, 257, 1000, 2048, 4095, 4096] {
            for p in [12, 14, 16] where k <= 1 << p {
                let table = try randomTable(&rng, precision: p, symbolCount: k)
                let values = randomValues(&rng, table: table, count: 3000)
                try assertRoundTrip(values.map { ($0, table) }, "K=\(k) p=\(p)")
            }
        }
    }

    /// K = 2^p: every symbol has frequency 1 (the table is uniform and full).
    func testEveryFrequencyOne() throws {
        var rng = SplitMix64(seed: 3)
        for p in [1, 2, 5, 8, 12] {
            let k = 1 << p
            let table = try FrequencyTable(precision: p, frequencies: Array(repeating: 1, count: k),
                                           escapeSymbol: rng.below(k), offset: -Int32(k / 2))
            let values = (0..<2000).map { _ in Int32(rng.below(k + 6)) - Int32(k / 2) - 3 }
            try assertRoundTrip(values.map { ($0, table) }, "p=\(p)")
        }
    }

    /// Frequency-1 symbols next to a dominant one, coded often: the tightest x_max case.
    func testSkewedTablesWithFrequencyOneSymbols() throws {
        var rng = SplitMix64(seed: 4)
        let table = try FrequencyTable(precision: 16, frequencies: [65533, 1, 1, 1], escapeSymbol: 3, offset: 0)
        var values: [Int32] = []
        for _ in 0..<5000 { values.append(Int32(rng.below(3))) }          // rare symbols often
        for _ in 0..<5000 { values.append(rng.below(100) == 0 ? 2 : 0) }  // as the table expects
        try assertRoundTrip(values.map { ($0, table) }, "skewed")
        let bytes = encode(values.suffix(5000).map { ($0, table) })
        XCTAssertLessThan(bytes.count, 400, "a likely symbol must cost far less than a bit")

        for p in [1, 4, 9, 16] {
            let k = min(1 << p, 50)
            var freqs = Array(repeating: 1, count: k)
            freqs[rng.below(k)] += (1 << p) - k
            let skewed = try FrequencyTable(precision: p, frequencies: freqs, escapeSymbol: k - 1, offset: 10)
            try assertRoundTrip(randomValues(&rng, table: skewed, count: 2000).map { ($0, skewed) }, "p=\(p)")
        }
    }

    func testEscapesAcrossTheWholeInt32Range() throws {
        let extremes: [Int32] = [.min, .min + 1, -1 << 30, -65537, -1, 0, 1, 65536, 1 << 30, .max - 1, .max]
        let tables = [
            try FrequencyTable(precision: 8, frequencies: [200, 50, 6], escapeSymbol: 2, offset: 0),
            try FrequencyTable(precision: 8, frequencies: [256], escapeSymbol: 0, offset: 0),       // K = 1
            try FrequencyTable(precision: 8, frequencies: [256], escapeSymbol: 0, offset: .min),
            try FrequencyTable(precision: 8, frequencies: [256], escapeSymbol: 0, offset: .max),
            try FrequencyTable(precision: 4, frequencies: [8, 4, 4], escapeSymbol: 0, offset: .min),
            try FrequencyTable(precision: 4, frequencies: [8, 4, 4], escapeSymbol: 1, offset: .max - 1),
            try FrequencyTable(precision: 16, frequencies: [1, 65535], escapeSymbol: 0, offset: .max),
        ]
        var sequence: [(Int32, FrequencyTable)] = []
        for table in tables { for v in extremes { sequence.append((v, table)) } }
        try assertRoundTrip(sequence, "extremes")
        var rng = SplitMix64(seed: 5)
        let random = (0..<3000).map { _ in
            (Int32(truncatingIfNeeded: rng.next()), tables[rng.below(tables.count)])
        }
        try assertRoundTrip(random, "random int32")
    }

    /// Per-value table selection, as the Gaussian-conditional decoder does by scale index.
    func testPerValueTableSwitching() throws {
        var rng = SplitMix64(seed: 6)
        var tables: [FrequencyTable] = []
        for i in 0..<24 {
            tables.append(try randomTable(&rng, precision: 1 + i % 16, symbolCount: 1 + rng.below(min(1 << (1 + i % 16), 80))))
        }
        var sequence: [(Int32, FrequencyTable)] = []
        for _ in 0..<20000 {
            let t = tables[rng.below(tables.count)]
            sequence.append((randomValues(&rng, table: t, count: 1)[0], t))
        }
        try assertRoundTrip(sequence, "switching")
    }

    func testDecodeCountMatchesSingleDecodes() throws {
        var rng = SplitMix64(seed: 7)
        let table = try randomTable(&rng, precision: 11, symbolCount: 40)
        let values = randomValues(&rng, table: table, count: 500)
        var encoder = RansEncoder()
        encoder.encode(values, table: table)
        XCTAssertEqual(encoder.valueCount, 500)
        var decoder = try RansDecoder(encoder.finish())
        XCTAssertEqual(try decoder.decode(count: 500, table: table), values)
        XCTAssertEqual(decoder.valueCount, 500)
        XCTAssertNoThrow(try decoder.finish())
    }

    // MARK: - Known-answer vector (pins the format, §3–§5)

    func testKnownAnswerVector() throws {
        let a = try FrequencyTable(precision: 8, frequencies: [100, 60, 40, 40, 16], escapeSymbol: 4, offset: -2)
        let b = try FrequencyTable(precision: 16, cdf: [0, 1, 30000, 65535, 65536], escapeSymbol: 0, offset: 7)
        let sequence: [(Int32, FrequencyTable)] = [
            (-2, a), (-1, a), (0, a), (1, a), (2, a), (-3, a), (-100_000, a), (.max, a), (.min, a),
            (7, b), (8, b), (9, b), (6, b), (10, b), (0, a), (0, a), (1_000_000, b),
        ]
        let bytes = encode(sequence)
        XCTAssertEqual(hex(bytes), Self.knownAnswerHex)
        try assertRoundTrip(sequence, "known answer")
    }

    /// Computed once by this encoder and, independently, by a from-the-doc Python
    /// implementation of §3–§5; both agree. A change here is a format change.
    private static let knownAnswerHex =
        "303590009bf0f1e135d0b3f8ffffffaff8ffffffbfa90000001100ea30a800168e640c"

    // MARK: - Value mapping (§2)

    func testDirectSymbolsSkipTheEscape() throws {
        let table = try FrequencyTable(precision: 4, frequencies: [3, 3, 3, 3, 4], escapeSymbol: 2, offset: 10)
        XCTAssertEqual(table.lowestDirectValue, 10)
        XCTAssertEqual(table.highestDirectValue, 13)
        XCTAssertEqual((9...14).map { table.directSymbol(for: $0) }, [nil, 0, 1, 3, 4, nil])
        XCTAssertEqual([0, 1, 3, 4].map { table.value(ofDirectSymbol: $0) }, [10, 11, 12, 13])
    }

    func testBypassRanksAreABijectionOutsideTheDirectRange() {
        let (lo, hi): (Int64, Int64) = (-2, 3)
        XCTAssertEqual([4, -3, 5, -4, 6].map { BypassCoding.rank(of: $0, lowestDirect: lo, highestDirect: hi) },
                       [0, 1, 2, 3, 4])
        for r: UInt64 in 0..<100 {
            guard let v = BypassCoding.value(ofRank: r, lowestDirect: lo, highestDirect: hi) else {
                return XCTFail("rank \(r) has no value")
            }
            XCTAssertEqual(BypassCoding.rank(of: v, lowestDirect: lo, highestDirect: hi), r)
        }
        XCTAssertEqual(BypassCoding.nibbleCount(0), 0)
        XCTAssertEqual(BypassCoding.nibbleCount(15), 1)
        XCTAssertEqual(BypassCoding.nibbleCount(16), 2)
        XCTAssertEqual(BypassCoding.nibbleCount((1 << 33) - 1), 9)
        XCTAssertNil(BypassCoding.value(ofRank: 1 << 33, lowestDirect: 0, highestDirect: -1))
    }

    // MARK: - Table validation (§1)

    func testInvalidTablesAreRefused() {
        func refused(_ make: @autoclosure () throws -> FrequencyTable, _ expected: FrequencyTableError,
                     line: UInt = #line) {
            XCTAssertThrowsError(try make(), line: line) { error in
                XCTAssertEqual(error as? FrequencyTableError, expected, line: line)
                XCTAssertFalse(String(describing: error).isEmpty, line: line)
            }
        }
        refused(try FrequencyTable(precision: 0, cdf: [0, 1], escapeSymbol: 0, offset: 0), .precisionOutOfRange(0))
        refused(try FrequencyTable(precision: 17, cdf: [0, 1 << 17], escapeSymbol: 0, offset: 0), .precisionOutOfRange(17))
        refused(try FrequencyTable(precision: 4, cdf: [0], escapeSymbol: 0, offset: 0), .noSymbols)
        refused(try FrequencyTable(precision: 4, cdf: [], escapeSymbol: 0, offset: 0), .noSymbols)
        refused(try FrequencyTable(precision: 2, frequencies: [1, 1, 1, 1, 1], escapeSymbol: 0, offset: 0),
                .tooManySymbols(count: 5, maximum: 4))
        refused(try FrequencyTable(precision: 16, frequencies: Array(repeating: 1, count: 65537), escapeSymbol: 0, offset: 0),
                .tooManySymbols(count: 65537, maximum: 65536))
        refused(try FrequencyTable(precision: 4, cdf: [1, 8, 16], escapeSymbol: 0, offset: 0), .cdfStartNotZero(1))
        refused(try FrequencyTable(precision: 4, cdf: [0, 8, 15], escapeSymbol: 0, offset: 0),
                .totalMismatch(expected: 16, found: 15))
        refused(try FrequencyTable(precision: 4, frequencies: [8, 9], escapeSymbol: 0, offset: 0),
                .totalMismatch(expected: 16, found: 17))
        refused(try FrequencyTable(precision: 4, cdf: [0, 8, 8, 16], escapeSymbol: 0, offset: 0),
                .frequencyNotPositive(symbol: 1, cdfLow: 8, cdfHigh: 8))
        refused(try FrequencyTable(precision: 4, cdf: [0, 20, 4, 16], escapeSymbol: 0, offset: 0),
                .frequencyNotPositive(symbol: 1, cdfLow: 20, cdfHigh: 4))
        refused(try FrequencyTable(precision: 4, frequencies: [8, 0, 8], escapeSymbol: 0, offset: 0),
                .frequencyNotPositive(symbol: 1, cdfLow: 8, cdfHigh: 8))
        refused(try FrequencyTable(precision: 4, frequencies: [8, Int.min, 8], escapeSymbol: 0, offset: 0),
                .frequencyNotPositive(symbol: 1, cdfLow: 8, cdfHigh: 8 &+ Int.min))
        refused(try FrequencyTable(precision: 4, frequencies: [Int.max, 8], escapeSymbol: 0, offset: 0),
                .totalMismatch(expected: 16, found: Int.max))
        refused(try FrequencyTable(precision: 4, cdf: [0, Int.min, 16], escapeSymbol: 0, offset: 0),
                .frequencyNotPositive(symbol: 0, cdfLow: 0, cdfHigh: Int.min))
        refused(try FrequencyTable(precision: 4, frequencies: [8, 8], escapeSymbol: 2, offset: 0),
                .escapeOutOfRange(escapeSymbol: 2, symbolCount: 2))
        refused(try FrequencyTable(precision: 4, frequencies: [8, 8], escapeSymbol: -1, offset: 0),
                .escapeOutOfRange(escapeSymbol: -1, symbolCount: 2))
        refused(try FrequencyTable(precision: 4, frequencies: [4, 4, 8], escapeSymbol: 0, offset: .max),
                .directRangeBeyondInt32(offset: .max, symbolCount: 3))
        XCTAssertNoThrow(try FrequencyTable(precision: 4, frequencies: [4, 4, 8], escapeSymbol: 0, offset: .max - 1))
        XCTAssertNoThrow(try FrequencyTable(precision: 16, frequencies: Array(repeating: 1, count: 65536),
                                            escapeSymbol: 65535, offset: 0))
    }

    // MARK: - Bad streams (§6)

    func testShortAndInvalidHeadsAreRefused() {
        for n in 0..<4 {
            XCTAssertThrowsError(try RansDecoder(Array(repeating: 0x40, count: n))) {
                XCTAssertEqual($0 as? RansDecodingError, .streamTooShort(length: n))
            }
        }
        XCTAssertThrowsError(try RansDecoder([0xFF, 0xFF, 0x7F, 0x00])) {   // 2^23 − 1
            XCTAssertEqual($0 as? RansDecodingError, .invalidInitialState(0x007F_FFFF))
        }
        XCTAssertThrowsError(try RansDecoder([0x00, 0x00, 0x00, 0x80])) {   // 2^31
            XCTAssertEqual($0 as? RansDecodingError, .invalidInitialState(0x8000_0000))
        }
        XCTAssertNoThrow(try RansDecoder([0xFF, 0xFF, 0xFF, 0x7F]))
    }

    func testEveryTruncationIsDetected() throws {
        var rng = SplitMix64(seed: 8)
        let tables = [try randomTable(&rng, precision: 12, symbolCount: 30),
                      try randomTable(&rng, precision: 3, symbolCount: 5),
                      try FrequencyTable(precision: 16, frequencies: [65535, 1], escapeSymbol: 1, offset: 0)]
        var sequence: [(Int32, FrequencyTable)] = []
        for i in 0..<300 {
            let t = tables[i % tables.count]
            sequence.append((randomValues(&rng, table: t, count: 1)[0], t))
        }
        sequence.append((Int32.min, tables[0]))
        let bytes = encode(sequence)
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try decodeAll(Array(bytes.prefix(cut)), sequence.map { $0.1 }), "cut at \(cut)")
        }
        XCTAssertThrowsError(try decodeAll(bytes + [0], sequence.map { $0.1 })) {
            XCTAssertEqual($0 as? RansDecodingError, .trailingBytes(consumed: bytes.count, length: bytes.count + 1))
        }
        // Asking for one value more than was coded runs out of stream.
        XCTAssertThrowsError(try decodeAll(bytes, sequence.map { $0.1 } + [tables[0]]))
    }

    /// Bit flips: either a clear error, or an accepted stream that re-encodes to itself
    /// (every accepted stream is canonical, §3), never a crash.
    func testBitFlipsGiveErrorsOrCanonicalStreams() throws {
        var rng = SplitMix64(seed: 9)
        let table = try randomTable(&rng, precision: 10, symbolCount: 12)
        let values = randomValues(&rng, table: table, count: 120)
        let bytes = encode(values.map { ($0, table) })
        var refused = 0
        for bit in 0..<(bytes.count * 8) {
            var corrupt = bytes
            corrupt[bit / 8] ^= UInt8(1 << (bit % 8))
            do {
                let decoded = try decodeAll(corrupt, Array(repeating: table, count: values.count))
                XCTAssertEqual(encode(decoded.map { ($0, table) }), corrupt, "bit \(bit)")
            } catch is RansDecodingError {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, bytes.count * 8 / 2)
    }

    func testNonCanonicalEscapesAreRefused() throws {
        let table = try FrequencyTable(precision: 8, frequencies: [128, 64, 64], escapeSymbol: 2, offset: 0)
        func stream(nibbles: [UInt32]) -> [UInt8] {
            var encoder = RansEncoder()
            encoder.appendRawSymbol(start: table.cdf[2], frequency: 64, precision: 8)
            for g in nibbles { encoder.appendRawSymbol(start: g, frequency: 1, precision: 4) }
            return encoder.finish()
        }
        func decodeOne(_ bytes: [UInt8]) throws -> Int32 {
            var decoder = try RansDecoder(bytes)
            let v = try decoder.decode(table: table)
            try decoder.finish()
            return v
        }
        XCTAssertEqual(try decodeOne(stream(nibbles: [1, 5])), -3)      // rank 5 → below: lo − 1 − 2
        XCTAssertEqual(try decodeOne(stream(nibbles: [0])), 2)          // rank 0 → hi + 1
        XCTAssertThrowsError(try decodeOne(stream(nibbles: [2, 0, 5]))) {
            XCTAssertEqual($0 as? RansDecodingError, .nonMinimalBypass(valueIndex: 0))
        }
        XCTAssertThrowsError(try decodeOne(stream(nibbles: [10] + Array(repeating: 1, count: 10)))) {
            XCTAssertEqual($0 as? RansDecodingError, .invalidBypassLength(valueIndex: 0, nibbles: 10))
        }
        let tooBig: [UInt32] = [9, 2] + Array(repeating: 0, count: 8)   // rank 2^33
        XCTAssertThrowsError(try decodeOne(stream(nibbles: tooBig))) {
            XCTAssertEqual($0 as? RansDecodingError, .bypassValueOutOfRange(valueIndex: 0, rank: 1 << 33))
        }
    }

    func testErrorDescriptionsNameTheProblem() {
        XCTAssertTrue(RansDecodingError.truncated(valueIndex: 3, offset: 17).description.contains("byte 17"))
        XCTAssertTrue(RansDecodingError.finalStateMismatch(state: 5).description.contains("final state"))
    }

    // MARK: - Helpers

    private func encode(_ sequence: [(Int32, FrequencyTable)]) -> [UInt8] {
        var encoder = RansEncoder()
        for (v, t) in sequence { encoder.encode(v, table: t) }
        return encoder.finish()
    }

    private func decodeAll(_ bytes: [UInt8], _ tables: [FrequencyTable]) throws -> [Int32] {
        var decoder = try RansDecoder(bytes)
        let values = try tables.map { try decoder.decode(table: $0) }
        try decoder.finish()
        return values
    }

    private func assertRoundTrip(_ sequence: [(Int32, FrequencyTable)], _ message: String,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = encode(sequence)
        let decoded = try decodeAll(bytes, sequence.map { $0.1 })
        XCTAssertEqual(decoded, sequence.map { $0.0 }, message, file: file, line: line)
    }

    /// Random frequencies ≥ 1 summing to 2^p, often very skewed.
    private func randomTable(_ rng: inout SplitMix64, precision p: Int, symbolCount k: Int) throws -> FrequencyTable {
        let total = 1 << p
        var freqs = Array(repeating: 1, count: k)
        let weights = (0..<k).map { _ in 1 << rng.below(12) }
        let sum = weights.reduce(0, +)
        let spare = total - k
        var given = 0
        for i in 0..<k {
            let extra = spare * weights[i] / sum
            freqs[i] += extra
            given += extra
        }
        freqs[rng.below(k)] += spare - given
        let offset = Int32(truncatingIfNeeded: Int(rng.below(2001)) - 1000)
        return try FrequencyTable(precision: p, frequencies: freqs, escapeSymbol: rng.below(k), offset: offset)
    }

    /// Mostly direct values, some escapes near the range and some far outside it.
    private func randomValues(_ rng: inout SplitMix64, table: FrequencyTable, count: Int) -> [Int32] {
        (0..<count).map { _ in
            let r = rng.below(100)
            let lo = table.lowestDirectValue, hi = table.highestDirectValue
            if r < 80, hi >= lo { return Int32(lo + Int64(rng.below(Int(hi - lo + 1)))) }
            if r < 95 { return Int32(clamping: (r & 1 == 0 ? hi + 1 : lo - 1) + Int64(rng.below(40)) - 20) }
            return Int32(truncatingIfNeeded: rng.next())
        }
    }

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
