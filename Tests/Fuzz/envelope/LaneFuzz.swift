// libFuzzer harness for the lane-stream decoder (docs/entropy-coding.md §8), built by
// scripts/fuzz-entropy.sh (target `lanes`) with Sources/WaiEntropy/Entropy and the parallel
// helper it runs lanes on.
//
// Input layout (all of it fuzzer-chosen):
//   byte 0     number of tables T (1…4), then per table 4 bytes as in RansFuzz.swift
//              (precision, symbol count, escape, offset) and frequency bytes;
//   2 bytes    how many values to decode (≤ 4096); 1 byte: threads (1…4);
//   the rest   the lane stream. Value i uses table (i·7 + byte 0) mod T.
// Properties: no crash, no out-of-bounds access, no untyped error; the lane decoder agrees
// with the version-1 decoder run on each lane on its own (same values when it accepts, a
// refusal of some lane when it refuses), and the extremes it reports are its values'; an
// accepted stream re-encodes to itself.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func laneFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(fuzzBytes(data, size))
    let (tableByte, tables) = input.tables()
    let tableCount = tables.count
    let count = input.uint16() % 4097
    let threads = 1 + Int(input.byte() % 4)
    let stream = input.rest
    let selection = (0..<count).map { Int32(($0 * 7 + Int(tableByte)) % tableCount) }

    let lanes: [Int32]?
    do {
        let decoded = try RansLaneDecoder.decodeWithExtremes(stream, count: count, tables: RansTableSet(tables),
                                                             selection: selection, threads: threads)
        let lo = decoded.values.min(), hi = decoded.values.max()
        guard decoded.extremes?.lowerBound == lo, decoded.extremes?.upperBound == hi else {
            fatalError("extremes \(String(describing: decoded.extremes)) for values from \(String(describing: lo)) to \(String(describing: hi))")
        }
        lanes = decoded.values
    } catch let e as RansLaneError {
        _ = e.description
        lanes = nil
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    // The version-1 decoder, lane by lane (§8.1).
    guard let ranges = try? RansLanes.laneRanges(stream) else {
        if lanes != nil { fatalError("accepted a stream whose lane table is refused") }
        return 0
    }
    var serial = [Int32](repeating: 0, count: count)
    var serialOK = true
    for (k, r) in ranges.enumerated() where serialOK {
        do {
            var d = try RansDecoder(Array(stream[r]))
            for i in stride(from: k, to: count, by: ranges.count) {
                serial[i] = try d.decode(table: tables[Int(selection[i])])
            }
            try d.finish()
        } catch {
            serialOK = false
        }
    }
    switch (lanes, serialOK) {
    case (let values?, true):
        guard values == serial else { fatalError("lane decoder and version-1 decoder disagree") }
        guard var e = RansLaneEncoder(laneCount: ranges.count) else { fatalError("lane count") }
        for (i, v) in values.enumerated() { e.encode(v, table: tables[Int(selection[i])]) }
        guard e.finish() == stream else { fatalError("accepted lane stream is not canonical") }
    case (nil, false):
        break
    default:
        fatalError("lane decoder \(lanes == nil ? "refused" : "accepted") what the version-1 decoder \(serialOK ? "accepts" : "refuses")")
    }
    return 0
}
