// libFuzzer harness for the rANS decoder and table validation (docs/entropy-coding.md),
// built by scripts/fuzz-entropy.sh together with Sources/WaiEntropy/Entropy.
//
// Input layout (all of it fuzzer-chosen):
//   byte 0            mode: bit 7 set → table-construction fuzzing, else decoding
//   decoding:  byte 1 number of tables T (1…4); per table 4 bytes
//              (precision, symbol count, escape, offset) with frequencies derived from the
//              following bytes; then 2 bytes: how many values to decode (≤ 4096);
//              the rest is the rANS stream. Value i uses table (i·7 + byte 1) mod T, so
//              table switching is exercised.
// Properties: no crash and no out-of-bounds access whatever the stream; and when the
// decoder accepts a stream (finish() succeeds), re-encoding the decoded values with the
// same tables reproduces the stream byte for byte (every accepted stream is canonical, §3).

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func ransFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(fuzzBytes(data, size))
    let mode = input.byte()
    if mode & 0x80 != 0 {
        fuzzTableConstruction(&input)
    } else {
        fuzzDecoding(&input)
    }
    return 0
}

/// Arbitrary cdf entries (including negative and huge) must only ever produce errors.
private func fuzzTableConstruction(_ input: inout FuzzInput) {
    let precision = Int(Int8(bitPattern: input.byte()))
    let count = Int(input.byte())
    var cdf: [Int] = []
    for _ in 0..<count {
        let raw = Int64(bitPattern: (0..<8).reduce(UInt64(0)) { acc, _ in (acc << 8) | UInt64(input.byte()) })
        // Mostly small values near a valid table, sometimes anything.
        cdf.append(raw & 1 == 0 ? Int(raw >> 1) : Int((raw >> 1) & 0x1FFFF))
    }
    let escape = Int(Int8(bitPattern: input.byte()))
    let offset = Int32(bitPattern: UInt32(input.uint16()) << 16 | UInt32(input.uint16()))
    if let table = try? FrequencyTable(precision: precision, cdf: cdf, escapeSymbol: escape, offset: offset) {
        // A constructed table must code any value both ways.
        var encoder = RansEncoder()
        for v in [Int32.min, -1, 0, 1, offset, Int32.max] { encoder.encode(v, table: table) }
        let stream = encoder.finish()
        guard var decoder = try? RansDecoder(stream),
              let values = try? (0..<6).map({ _ in try decoder.decode(table: table) }),
              values == [Int32.min, -1, 0, 1, offset, Int32.max],
              (try? decoder.finish()) != nil else {
            fatalError("table \(table) does not round-trip")
        }
    }
    if let table = try? FrequencyTable(precision: precision, frequencies: cdf, escapeSymbol: escape, offset: offset) {
        _ = table.symbolCount
    }
}

private func fuzzDecoding(_ input: inout FuzzInput) {
    let (tableByte, tables) = input.tables()
    let tableCount = tables.count
    let valueCount = input.uint16() % 4097
    let stream = input.rest
    guard var decoder = try? RansDecoder(stream) else { return }
    var values: [Int32] = []
    var used: [FrequencyTable] = []
    for i in 0..<valueCount {
        let table = tables[(i * 7 + Int(tableByte)) % tableCount]
        do {
            values.append(try decoder.decode(table: table))
            used.append(table)
        } catch let error as RansDecodingError {
            _ = error.description
            return
        } catch {
            fatalError("unexpected error type: \(error)")
        }
    }
    guard (try? decoder.finish()) != nil else { return }
    var encoder = RansEncoder()
    for (v, t) in zip(values, used) { encoder.encode(v, table: t) }
    guard encoder.finish() == stream else { fatalError("accepted stream is not canonical") }
}
