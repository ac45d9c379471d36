// Shared by the rANS and lane-stream harnesses (scripts/fuzz-entropy.sh, targets rans and
// lanes): the frequency tables a case is decoded with, read from the input.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

extension FuzzInput {
    /// Byte 0: the number of tables T (1…4); per table 4 bytes (precision, symbol count,
    /// escape, offset) and frequency bytes. Every table built is valid (each symbol gets at
    /// least 1, the rest shared out by the bytes), so the harness fuzzes the streams, not
    /// table validation. `selector` is byte 0, which the harnesses also pick tables with.
    mutating func tables() -> (selector: UInt8, tables: [FrequencyTable]) {
        let tableByte = byte()
        let tableCount = 1 + Int(tableByte % 4)
        var tables: [FrequencyTable] = []
        for _ in 0..<tableCount {
            let precision = 1 + Int(byte() % 16)
            let symbolCount = 1 + Int(byte()) % min(1 << precision, 64)
            let escape = Int(byte()) % symbolCount
            let offset = Int32(Int8(bitPattern: byte())) * 1000
            var frequencies = Array(repeating: 1, count: symbolCount)
            var spare = (1 << precision) - symbolCount
            for s in 0..<symbolCount where spare > 0 {
                let share = min(spare, Int(byte()) * (1 << precision) / 256)
                frequencies[s] += share
                spare -= share
            }
            frequencies[symbolCount - 1] += spare
            guard let table = try? FrequencyTable(precision: precision, frequencies: frequencies,
                                                  escapeSymbol: escape, offset: offset) else {
                fatalError("harness built an invalid table: \(frequencies)")
            }
            tables.append(table)
        }
        return (tableByte, tables)
    }
}
