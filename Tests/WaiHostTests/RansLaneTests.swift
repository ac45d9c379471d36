import TestSupport
import XCTest
import WaiHost
import EmulatedEntropyKernels
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// docs/entropy-coding.md §8: lane streams — layout (§8.1–§8.2), the encoder's lane count
/// (§8.3), decoding on several threads (§8.4), and what is refused (§8.5).
final class RansLaneTests: XCTestCase {

    // MARK: - Round trips

    /// Awkward counts against every lane count that makes them awkward: no value, one value,
    /// fewer values than lanes, one more or less than a multiple, and enough for threads.
    func testRoundTripAwkwardCountsAndLaneCounts() throws {
        var rng = SplitMix64(seed: 21)
        let tables = try (0..<5).map { i in try randomTable(&rng, precision: [16, 12, 4, 1, 16][i], symbolCount: [40, 9, 3, 1, 257][i]) }
        let set = RansTableSet(tables)
        for count in [0, 1, 2, 7, 8, 9, 31, 33, 100, 1023, 20_011] {
            let selection = (0..<count).map { _ in Int32(rng.below(tables.count)) }
            let values = selection.map { randomValue(&rng, table: tables[Int($0)]) }
            for lanes in [1, 2, 3, 8, 9, 16, 31, 32] {
                let stream = encode(values, selection, tables, lanes: lanes)
                XCTAssertEqual(stream.first, UInt8(lanes))
                for threads in [1, 2, 3] {
                    let decoded = try RansLaneDecoder.decodeWithExtremes(stream, count: count, tables: set, selection: selection,
                                                                         threads: threads)
                    XCTAssertEqual(decoded.values, values, "count \(count), \(lanes) lanes, \(threads) threads")
                    XCTAssertEqual(decoded.extremes, extremes(values), "count \(count), \(lanes) lanes, \(threads) threads")
                }
            }
        }
    }

    /// The C loops with the AVX-512 one on emulated intrinsics (Tests/EmulatedEntropyKernels):
    /// that loop's logic, checked on every CPU.
    private let emulated = RansLaneDecoder.Loops(vector: wai_rans_lanes_decode_avx512_emulated,
                                                 portable: wai_rans_lanes_decode_portable)

    /// Each C loop (EntropyKernels: the portable one, the AVX2 one where this CPU has AVX2,
    /// the AVX-512 one on this CPU where it has AVX-512 and on emulated intrinsics
    /// everywhere) decodes every valid stream by itself —
    /// escapes (15 % of these values), every precision from 1 to 16, lanes in their last 4
    /// bytes, partial rounds, groups of 1 to 32 lanes — to the Swift loop's values and their
    /// extremes; the Swift loop is not quietly doing its work. On damaged streams the answer
    /// (values or the error's text) is the Swift loop's.
    func testTheCLoopsDecodeAsTheSwiftLoop() throws {
        try checkLoop(.portable, .native, "portable", tables: .mixed)
        try checkLoop(.portable, .native, "portable, precision 16", tables: .sixteen)
        try checkLoop(.avx512, emulated, "avx512, emulated", tables: .mixed)
        if RansLaneDecoder.vectorAvailable { try checkLoop(.avx512, .native, "avx512", tables: .mixed) }
        if RansLaneDecoder.avx2Available {
            try checkLoop(.avx2, .native, "avx2, precision 16", tables: .sixteen)
            try checkLoop(.avx2, .native, "avx2, precision 7", tables: .seven)
            // Tables of differing precisions: the AVX2 loop hands the group to the portable one.
            try checkLoop(.avx2, .native, "avx2, mixed", tables: .mixed)
        }
    }

    /// Tables of every precision; or all of precision 16, as a model set's are, which the
    /// portable and AVX2 loops decode with the precision as a constant; or all of precision
    /// 7, below the direct buckets' 10 bits, so one bucket a slot.
    private enum TableKind { case mixed, sixteen, seven }

    private func checkLoop(_ kernel: RansLaneDecoder.Kernel, _ loops: RansLaneDecoder.Loops, _ name: String,
                           tables kind: TableKind) throws {
        var rng = SplitMix64(seed: 24)
        let (precisions, symbolCounts): ([Int], [Int]) = switch kind {
        case .mixed: ([1, 2, 4, 7, 12, 13, 15, 16], [1, 3, 5, 40, 300, 9, 1000, 257])
        case .sixteen: (Array(repeating: 16, count: 6), [1, 2, 40, 257, 5000, 65536])
        case .seven: (Array(repeating: 7, count: 5), [1, 2, 9, 60, 128])
        }
        let tables = try zip(precisions, symbolCounts).map { p, k in try randomTable(&rng, precision: p, symbolCount: min(1 << p, k)) }
        let set = RansTableSet(tables)
        XCTAssertEqual(Int(set.sharedPrecision), kind == .mixed ? 0 : precisions[0])
        for count in [0, 1, 15, 16, 17, 33, 1023, 20_011] {
            let selection = (0..<count).map { _ in Int32(rng.below(tables.count)) }
            let values = selection.map { randomValue(&rng, table: tables[Int($0)]) }
            for lanes in [1, 3, 8, 15, 16, 17, 31, 32] {
                let stream = encode(values, selection, tables, lanes: lanes)
                let label = "\(name), count \(count), \(lanes) lanes"
                for threads in [1, 2] {
                    // The Swift loop once per table set: the AVX-512 checks reuse the mixed set.
                    for path in kernel == .portable ? [.only(kernel), .swift] : [RansLaneDecoder.Path.only(kernel)] {
                        let decoded = try RansLaneDecoder.decodeWithExtremes(stream, count: count, tables: set, selection: selection,
                                                                             threads: threads, path: path, loops: loops)
                        XCTAssertEqual(decoded?.values, values, "\(label), \(path), \(threads) threads")
                        XCTAssertEqual(decoded?.extremes, extremes(values), "\(label), \(path), \(threads) threads")
                    }
                }
                guard count > 0 else { continue }
                for _ in 0..<6 {
                    var bad = stream
                    let at = 1 + 4 * lanes + rng.below(bad.count - 1 - 4 * lanes)
                    if rng.below(4) == 0 { bad.removeSubrange(at...) } else { bad[at] ^= UInt8(1 << rng.below(8)) }
                    func answer(_ path: RansLaneDecoder.Path) -> String {
                        do { return "\(try RansLaneDecoder.decode(bad, count: count, tables: set, selection: selection, threads: 2, path: path, loops: loops) ?? [])" }
                        catch { return "error: \(error)" }
                    }
                    XCTAssertEqual(answer(.best), answer(.swift), "\(label), byte \(at) damaged")
                    // Alone, the loop either gives the stream up or decodes the Swift loop's values.
                    if let mine = try? RansLaneDecoder.decode(bad, count: count, tables: set, selection: selection, threads: 2,
                                                              path: .only(kernel), loops: loops) {
                        XCTAssertEqual("\(mine)", answer(.swift), "\(label), byte \(at) damaged: the loop decided alone")
                    }
                }
            }
        }
    }

    /// The best path gives a group to the widest loop the CPU runs and the group is large
    /// enough for (docs/entropy-coding.md §8.4): the AVX-512 loop from 9 lanes, the AVX2
    /// loop from 6, else the portable loop; and on this CPU the loops it has are offered.
    func testTheBestPathChoosesTheWidestLoopAGroupIsLargeEnoughFor() {
        let loop: RansLaneDecoder.Loop = wai_rans_lanes_decode_portable
        let all = RansLaneDecoder.Loops(vector: loop, portable: loop, avx2: loop)
        let avx2 = RansLaneDecoder.Loops(vector: nil, portable: loop, avx2: loop)
        let plain = RansLaneDecoder.Loops(vector: nil, portable: loop)
        func chosen(_ lanes: Int, _ loops: RansLaneDecoder.Loops) -> RansLaneDecoder.Kernel? {
            RansLaneDecoder.kernel(for: lanes, path: .best, loops: loops)
        }
        XCTAssertEqual((1...32).map { chosen($0, all) }, Array(repeating: .portable, count: 5)
                       + Array(repeating: .avx2, count: 3) + Array(repeating: .avx512, count: 24))
        XCTAssertEqual((1...32).map { chosen($0, avx2) }, Array(repeating: .portable, count: 5)
                       + Array(repeating: .avx2, count: 27))
        XCTAssertEqual(Set((1...32).map { chosen($0, plain) }), [.portable])
        XCTAssertNil(RansLaneDecoder.kernel(for: 32, path: .swift, loops: all))
        XCTAssertEqual(RansLaneDecoder.Loops.native.avx2 != nil, RansLaneDecoder.avx2Available)
        XCTAssertEqual(RansLaneDecoder.Loops.native.vector != nil, RansLaneDecoder.vectorAvailable)
        // Where the kernel lists AVX2 (it does only when it also saves the vector state), the
        // detection finds it: a detection that never did would leave the AVX2 loop untested.
        if let info = SmallFile.text("/proc/cpuinfo", limit: 32 << 20),
           let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
           flags.split(separator: " ").contains("avx2") {
            XCTAssertTrue(RansLaneDecoder.avx2Available, "/proc/cpuinfo lists avx2, RegionKernels does not detect it")
        }
    }

    /// Beyond the tables the portable loop's direct buckets are built for, it gives every
    /// group up and the Swift loop decodes them: the values are the same either way.
    func testTooManyTablesForTheDirectBucketsFallBackToTheSwiftLoop() throws {
        var rng = SplitMix64(seed: 25)
        let tables = try (0...RansTableSet.directTableLimit).map { _ in try randomTable(&rng, precision: 6, symbolCount: 4) }
        let set = RansTableSet(tables)
        XCTAssertNil(set.direct)
        XCTAssertNotNil(RansTableSet(Array(tables.dropLast())).direct)
        let selection = (0..<5000).map { _ in Int32(rng.below(tables.count)) }
        let values = selection.map { randomValue(&rng, table: tables[Int($0)]) }
        let stream = encode(values, selection, tables, lanes: 16)
        XCTAssertNil(try RansLaneDecoder.decode(stream, count: values.count, tables: set, selection: selection, threads: 1,
                                                path: .only(.portable)))
        XCTAssertEqual(try RansLaneDecoder.decode(stream, count: values.count, tables: set, selection: selection, threads: 2),
                       values)
    }

    /// The direct buckets as entropy_kernels.h lays them out, worked by hand: a table below
    /// 2^10 slots has one bucket a slot; at precision 16 a bucket is 64 slots, and only one
    /// that lies inside a direct symbol holds that symbol's cdf entry, frequency and value.
    func testDirectBucketsHoldOneSymbolsStepOrTheSymbolToSearchFrom() throws {
        func word(value: Int32, start: Int, frequency: Int) -> UInt64 {
            UInt64(UInt32(bitPattern: value)) | UInt64(start) << 32 | UInt64(frequency) << 48
        }
        let perTable = 1 << RansTableSet.directBits
        // Precision 2, symbols 0 (slots 0–1), 1 = the escape (slot 2), 2 (slot 3); offset −7,
        // so symbol 0 is −7 and symbol 2, above the escape, is −6.
        let small = try FrequencyTable(precision: 2, frequencies: [2, 1, 1], escapeSymbol: 1, offset: -7)
        // Precision 16: symbol 0 holds slots 0–99, 1 slots 100–65 434, 2 (the escape) the rest.
        let wide = try FrequencyTable(precision: 16, frequencies: [100, 65335, 101], escapeSymbol: 2, offset: 40)
        let set = RansTableSet([small, wide])
        let direct = try XCTUnwrap(set.direct)
        XCTAssertEqual(direct.count, 2 * perTable)
        XCTAssertEqual(Array(direct[0..<4]), [word(value: -7, start: 0, frequency: 2), word(value: -7, start: 0, frequency: 2),
                                              1, word(value: -6, start: 3, frequency: 1)])
        XCTAssertTrue(direct[4..<perTable].allSatisfy { $0 == 0 }, "unused buckets")
        let w = Array(direct[perTable...])
        XCTAssertEqual(w[0], word(value: 40, start: 0, frequency: 100))     // slots 0–63
        XCTAssertEqual(w[1], 0)                                             // 64–127: symbols 0 and 1, search from 0
        XCTAssertEqual(w[2], word(value: 41, start: 100, frequency: 65335))
        XCTAssertEqual(w[1021], word(value: 41, start: 100, frequency: 65335))  // 65 344–65 407
        XCTAssertEqual(w[1022], 1)                                          // 65 408–65 471: 1, then the escape from 65 435
        XCTAssertEqual(w[1023], 2)                                          // the escape's own
        XCTAssertEqual(set.sharedPrecision, 0)
        XCTAssertEqual(RansTableSet([wide, wide]).sharedPrecision, 16)
    }

    /// Lane k is exactly the §5 stream of values k, k+L, k+2L, … (§8.1): a version-1 decoder
    /// reads it, and re-encoding reproduces the lane stream byte for byte.
    func testEachLaneIsAVersion1StreamOfItsValues() throws {
        var rng = SplitMix64(seed: 22)
        let table = try randomTable(&rng, precision: 14, symbolCount: 30)
        let values = (0..<1001).map { _ in randomValue(&rng, table: table) }
        let selection = [Int32](repeating: 0, count: values.count)
        let stream = encode(values, selection, [table], lanes: 12)
        let ranges = try RansLanes.laneRanges(stream)
        XCTAssertEqual(ranges.count, 12)
        XCTAssertEqual(ranges.first?.lowerBound, 1 + 4 * 12)
        for (k, r) in ranges.enumerated() {
            var d = try RansDecoder(Array(stream[r]))
            let mine = stride(from: k, to: values.count, by: 12).map { values[$0] }
            XCTAssertEqual(try d.decode(count: mine.count, table: table), mine, "lane \(k)")
            XCTAssertNoThrow(try d.finish(), "lane \(k)")
            let length = (0..<4).reduce(0) { $0 | Int(stream[1 + 4 * k + $1]) << (8 * $1) }
            XCTAssertEqual(length, r.count)
        }
    }

    /// Pinned bytes: the empty stream in 1 and 3 lanes (§8.2), and one value in 2 lanes
    /// (lane 1 is empty).
    func testKnownAnswers() throws {
        let empty: [UInt8] = [0x00, 0x00, 0x80, 0x00]
        XCTAssertEqual(RansLaneEncoder(laneCount: 1)?.finish(), [1, 4, 0, 0, 0] + empty)
        XCTAssertEqual(RansLaneEncoder(laneCount: 3)?.finish(), [3, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0] + empty + empty + empty)
        let table = try FrequencyTable(precision: 8, frequencies: [128, 64, 64], escapeSymbol: 2, offset: 0)
        var e = try XCTUnwrap(RansLaneEncoder(laneCount: 2))
        e.encode(1, table: table)
        var single = RansEncoder()
        single.encode(1, table: table)
        let lane0 = single.finish()
        XCTAssertEqual(e.finish(), [2] + le32(lane0.count) + [4, 0, 0, 0] + lane0 + empty)
        XCTAssertNil(RansLaneEncoder(laneCount: 0))
        XCTAssertNil(RansLaneEncoder(laneCount: 33))
    }

    /// §8.3: at least 1024 values a lane, at most 32 lanes.
    func testDefaultLaneCount() {
        XCTAssertEqual(RansLanes.defaultLaneCount(forValueCount: 0), 1)
        XCTAssertEqual(RansLanes.defaultLaneCount(forValueCount: 2047), 1)
        XCTAssertEqual(RansLanes.defaultLaneCount(forValueCount: 2048), 2)
        XCTAssertEqual(RansLanes.defaultLaneCount(forValueCount: 32 * 1024), 32)
        XCTAssertEqual(RansLanes.defaultLaneCount(forValueCount: 1 << 28), 32)
        XCTAssertEqual(RansLaneEncoder(forValueCount: 5000).laneCount, 4)
    }

    /// §8.3: the int_hyper encoder also keeps 4096 bytes of the single stream a lane.
    func testLaneCountFromTheSingleStreamsLength() {
        XCTAssertEqual(RansLanes.laneCount(forValueCount: 92_160, singleStreamBytes: 5_300), 1)
        XCTAssertEqual(RansLanes.laneCount(forValueCount: 92_160, singleStreamBytes: 8_192), 2)
        XCTAssertEqual(RansLanes.laneCount(forValueCount: 92_160, singleStreamBytes: 1 << 20), 32)
        XCTAssertEqual(RansLanes.laneCount(forValueCount: 3_000, singleStreamBytes: 1 << 20), 2, "and 1024 values a lane")
        XCTAssertEqual(RansLanes.laneCount(forValueCount: 0, singleStreamBytes: 4), 1)
    }

    // MARK: - Refusals (§8.5)

    func testLaneTableErrors() throws {
        let set = RansTableSet([try FrequencyTable(precision: 4, frequencies: [8, 8], escapeSymbol: 1, offset: 0)])
        let empty: [UInt8] = [0x00, 0x00, 0x80, 0x00]
        func refused(_ stream: [UInt8], _ expected: RansLaneError, _ label: String) {
            XCTAssertThrowsError(try RansLaneDecoder.decode(stream, count: 0, tables: set, selection: [], threads: 2), label) { e in
                XCTAssertEqual(e as? RansLaneError, expected, label)
            }
        }
        refused([], .truncatedLaneTable(needed: 1, length: 0), "empty")
        refused([0] + empty, .laneCountOutOfRange(0), "no lanes")
        refused([33] + Array(repeating: 0, count: 200), .laneCountOutOfRange(33), "33 lanes")
        refused([2, 4, 0, 0, 0, 4, 0], .truncatedLaneTable(needed: 9, length: 7), "cut lane table")
        refused([2, 4, 0, 0, 0, 3, 0, 0, 0] + empty + [0, 0, 0], .laneTooShort(lane: 1, length: 3, offset: 5), "short lane")
        refused([1, 5, 0, 0, 0] + empty, .lanesBeyondEnd(needed: 10, length: 9), "lane past the end")
        refused([1, 0xFF, 0xFF, 0xFF, 0xFF] + empty, .lanesBeyondEnd(needed: 5 + 0xFFFF_FFFF, length: 9), "huge length")
        refused([1, 4, 0, 0, 0] + empty + [7], .trailingBytes(count: 1, offset: 9), "trailing byte")
        XCTAssertThrowsError(try RansLaneDecoder.decode([1, 4, 0, 0, 0] + empty, count: 1, tables: set, selection: [1], threads: 1)) { e in
            XCTAssertEqual(e as? RansLaneError, .tableIndexOutOfRange(valueIndex: 0, table: 1, tableCount: 1))
        }
        XCTAssertTrue(RansLaneError.laneTooShort(lane: 1, length: 3, offset: 5).description.contains("lane 1"))
    }

    /// A table index out of range anywhere in a stream the C loops decode (they check each
    /// one as they read it, §8.4) is refused on every path with the first bad value named,
    /// never read: past the end, negative, in a partial last round, two at once.
    func testATableIndexOutOfRangeIsRefusedOnEveryPath() throws {
        var rng = SplitMix64(seed: 25)
        let tables = try (0..<3).map { _ in try randomTable(&rng, precision: 12, symbolCount: 30) }
        let set = RansTableSet(tables)
        let count = 20_011
        let selection = (0..<count).map { _ in Int32(rng.below(tables.count)) }
        let values = selection.map { randomValue(&rng, table: tables[Int($0)]) }
        let stream = encode(values, selection, tables, lanes: 32)
        var paths: [(RansLaneDecoder.Path, RansLaneDecoder.Loops)] = [(.best, .native), (.swift, .native), (.only(.portable), .native),
                                                                      (.best, emulated), (.only(.avx512), emulated)]
        if RansLaneDecoder.vectorAvailable { paths.append((.only(.avx512), .native)) }
        if RansLaneDecoder.avx2Available { paths.append((.only(.avx2), .native)) }
        let cases: [(String, [(Int, Int32)], Int)] = [
            ("past the end", [(7_001, 3)], 7_001), ("negative", [(40, -1)], 40), ("huge", [(12_345, .max)], 12_345),
            ("in the last round", [(count - 1, 3)], count - 1), ("two", [(19_000, 9), (300, -7)], 300),
        ]
        for (label, bad, first) in cases {
            var sel = selection
            for (i, t) in bad { sel[i] = t }
            for (path, loops) in paths {
                for threads in [1, 2] {
                    XCTAssertThrowsError(try RansLaneDecoder.decode(stream, count: count, tables: set, selection: sel,
                                                                    threads: threads, path: path, loops: loops), "\(label), \(path)") { e in
                        XCTAssertEqual(e as? RansLaneError, .tableIndexOutOfRange(valueIndex: first, table: Int(sel[first]),
                                                                                  tableCount: 3), "\(label), \(path)")
                    }
                }
            }
        }
    }

    /// Every cut of a lane, with the lane table fixed up to match, is refused naming that
    /// lane; so is a lane with an extra byte; asking for more or fewer values is refused.
    func testTruncatedOverlongAndMiscountedLanes() throws {
        var rng = SplitMix64(seed: 23)
        let table = try randomTable(&rng, precision: 12, symbolCount: 20)
        let set = RansTableSet([table])
        let count = 200
        let values = (0..<count).map { _ in randomValue(&rng, table: table) }
        let selection = [Int32](repeating: 0, count: count)
        let stream = encode(values, selection, [table], lanes: 4)
        let ranges = try RansLanes.laneRanges(stream)
        for lane in 0..<4 {
            for cut in 1...(ranges[lane].count - 4) {
                let bad = resized(stream, lane: lane, by: -cut)
                XCTAssertThrowsError(try RansLaneDecoder.decode(bad, count: count, tables: set, selection: selection, threads: 2)) { e in
                    guard case .lane(lane, _, _)? = e as? RansLaneError else { return XCTFail("lane \(lane) cut \(cut): \(e)") }
                }
            }
            let long = resized(stream, lane: lane, by: 1)
            XCTAssertThrowsError(try RansLaneDecoder.decode(long, count: count, tables: set, selection: selection, threads: 2)) { e in
                guard case .lane(lane, _, let inner)? = e as? RansLaneError else { return XCTFail("lane \(lane) long: \(e)") }
                XCTAssertTrue("\(e)".contains("lane \(lane)"), "\(e)")
                _ = inner
            }
        }
        for n in [count - 1, count + 1, count + 4] {
            XCTAssertThrowsError(try RansLaneDecoder.decode(stream, count: n, tables: set,
                                                            selection: [Int32](repeating: 0, count: n), threads: 2), "count \(n)") { e in
                XCTAssertTrue(e is RansLaneError, "\(e)")
            }
        }
    }

    /// With two lanes corrupt, the lower one's error is reported, on any number of threads.
    func testTheLowestFailingLaneIsReported() throws {
        var rng = SplitMix64(seed: 24)
        let table = try randomTable(&rng, precision: 16, symbolCount: 60)
        let set = RansTableSet([table])
        let count = 40_000
        let values = (0..<count).map { _ in randomValue(&rng, table: table) }
        let selection = [Int32](repeating: 0, count: count)
        let stream = encode(values, selection, [table], lanes: 32)
        let ranges = try RansLanes.laneRanges(stream)
        var bad = stream
        for lane in [29, 11] { bad[ranges[lane].lowerBound + 3] = 0xFF }   // the state leaves [2^23, 2^31)
        for threads in [1, 2, 4] {
            XCTAssertThrowsError(try RansLaneDecoder.decode(bad, count: count, tables: set, selection: selection, threads: threads)) { e in
                XCTAssertEqual(e as? RansLaneError, .lane(lane: 11, start: ranges[11].lowerBound,
                                                         error: .invalidInitialState(UInt32(stream[ranges[11].lowerBound])
                                                             | UInt32(stream[ranges[11].lowerBound + 1]) << 8
                                                             | UInt32(stream[ranges[11].lowerBound + 2]) << 16 | 0xFF00_0000)))
            }
        }
    }

    /// Bit flips give a typed error, or values whose re-encoding is the flipped stream
    /// (every accepted lane stream is canonical), and v1's decoder agrees lane by lane.
    func testBitFlipsGiveErrorsOrCanonicalStreams() throws {
        var rng = SplitMix64(seed: 25)
        let tables = [try randomTable(&rng, precision: 10, symbolCount: 12), try randomTable(&rng, precision: 6, symbolCount: 3)]
        let set = RansTableSet(tables)
        let count = 90
        let selection = (0..<count).map { _ in Int32(rng.below(2)) }
        let values = selection.map { randomValue(&rng, table: tables[Int($0)]) }
        let stream = encode(values, selection, tables, lanes: 5)
        var accepted = 0
        for i in 0..<stream.count {
            for bit in 0..<8 {
                var b = stream
                b[i] ^= UInt8(1 << bit)
                do {
                    let decoded = try RansLaneDecoder.decode(b, count: count, tables: set, selection: selection, threads: 2)
                    XCTAssertEqual(encode(decoded, selection, tables, lanes: 5), b, "byte \(i) bit \(bit)")
                    accepted += 1
                } catch let e as RansLaneError {
                    XCTAssertFalse(e.description.isEmpty)
                }
            }
        }
        XCTAssertLessThan(accepted, stream.count * 8)
    }

    /// Escapes of the whole int32 range and K = 1 tables decode through the lane decoder's
    /// own bypass path exactly as through RansDecoder.
    func testEscapesMatchTheVersion1Decoder() throws {
        let tables = [
            try FrequencyTable(precision: 8, frequencies: [200, 50, 6], escapeSymbol: 2, offset: 0),
            try FrequencyTable(precision: 8, frequencies: [256], escapeSymbol: 0, offset: .min),
            try FrequencyTable(precision: 4, frequencies: [8, 4, 4], escapeSymbol: 1, offset: .max - 1),
            try FrequencyTable(precision: 16, frequencies: [65534, 1, 1], escapeSymbol: 0, offset: -5),
        ]
        let extremes: [Int32] = [.min, .min + 1, -65537, -1, 0, 1, 65536, .max - 1, .max]
        var values: [Int32] = [], selection: [Int32] = []
        for (t, _) in tables.enumerated() {
            for v in extremes { values.append(v); selection.append(Int32(t)) }
        }
        let stream = encode(values, selection, tables, lanes: 7)
        XCTAssertEqual(try RansLaneDecoder.decode(stream, count: values.count, tables: RansTableSet(tables),
                                                  selection: selection, threads: 2), values)
    }

    // MARK: - Helpers

    /// The least and greatest of `values`, as the decoder reports them.
    private func extremes(_ values: [Int32]) -> ClosedRange<Int32>? {
        guard let lo = values.min(), let hi = values.max() else { return nil }
        return lo...hi
    }

    private func encode(_ values: [Int32], _ selection: [Int32], _ tables: [FrequencyTable], lanes: Int) -> [UInt8] {
        guard var e = RansLaneEncoder(laneCount: lanes) else { return [] }
        for (v, t) in zip(values, selection) { e.encode(v, table: tables[Int(t)]) }
        return e.finish()
    }

    /// The stream with lane `lane` shortened (by < 0) or lengthened by a zero byte, its
    /// length field fixed up to match.
    private func resized(_ stream: [UInt8], lane: Int, by delta: Int) -> [UInt8] {
        guard let ranges = try? RansLanes.laneRanges(stream) else { return stream }
        var out = stream
        let r = ranges[lane]
        if delta < 0 { out.removeSubrange((r.upperBound + delta)..<r.upperBound) } else { out.insert(0, at: r.upperBound) }
        out.replaceSubrange((1 + 4 * lane)..<(5 + 4 * lane), with: le32(r.count + delta))
        return out
    }

    private func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    private func randomTable(_ rng: inout SplitMix64, precision p: Int, symbolCount k: Int) throws -> FrequencyTable {
        let total = 1 << p
        var freqs = Array(repeating: 1, count: k)
        let weights = (0..<k).map { _ in 1 << rng.below(12) }
        let sum = weights.reduce(0, +)
        var given = 0
        for i in 0..<k {
            let extra = (total - k) * weights[i] / sum
            freqs[i] += extra
            given += extra
        }
        freqs[rng.below(k)] += total - k - given
        return try FrequencyTable(precision: p, frequencies: freqs, escapeSymbol: rng.below(k),
                                  offset: Int32(rng.below(201)) - 100)
    }

    /// Mostly direct values, some escapes near the range and a few anywhere in int32.
    private func randomValue(_ rng: inout SplitMix64, table: FrequencyTable) -> Int32 {
        let r = rng.below(100)
        let lo = table.lowestDirectValue, hi = table.highestDirectValue
        if r < 85, hi >= lo { return Int32(lo + Int64(rng.below(Int(hi - lo + 1)))) }
        if r < 97 { return Int32(clamping: (r & 1 == 0 ? hi + 1 : lo - 1) + Int64(rng.below(40)) - 20) }
        return Int32(truncatingIfNeeded: rng.next())
    }
}
