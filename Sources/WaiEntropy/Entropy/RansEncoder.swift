/// rANS encoder (docs/entropy-coding.md §4–§5). rANS is last-in first-out, so values are
/// buffered as coder symbols in decoding order and coded in reverse by `finish()`; the
/// resulting stream decodes forwards, in the order `encode` was called.
public struct RansEncoder: Sendable {
    private var symbols: [RansSymbol] = []
    public private(set) var valueCount = 0

    public init() {}

    /// Codes any int32 value with `table`: directly when it lies in the table's direct
    /// range, else as the escape symbol plus bypass nibbles (§3).
    public mutating func encode(_ value: Int32, table: FrequencyTable) {
        valueCount += 1
        let precision = UInt32(table.precision)
        if let s = table.directSymbol(for: value) {
            symbols.append(RansSymbol(start: table.cdf[s], frequency: table.cdf[s + 1] - table.cdf[s],
                                      precision: precision))
            return
        }
        let e = table.escapeSymbol
        symbols.append(RansSymbol(start: table.cdf[e], frequency: table.cdf[e + 1] - table.cdf[e],
                                  precision: precision))
        let rank = BypassCoding.rank(of: value, lowestDirect: table.lowestDirectValue,
                                     highestDirect: table.highestDirectValue)
        let n = BypassCoding.nibbleCount(rank)
        appendNibble(UInt32(n))
        for i in stride(from: n - 1, through: 0, by: -1) {
            appendNibble(UInt32(truncatingIfNeeded: rank >> UInt64(4 * i)) & 0xF)
        }
    }

    public mutating func encode<S: Sequence>(_ values: S, table: FrequencyTable) where S.Element == Int32 {
        for v in values { encode(v, table: table) }
    }

    /// The stream: flushed state (4 bytes, little-endian), then the renormalisation bytes
    /// in the order the decoder reads them.
    public func finish() -> [UInt8] {
        var emitted: [UInt8] = []   // in emission order; reversed at the end
        emitted.reserveCapacity(symbols.count / 2 + 8)
        var x = RansCore.lowerBound
        for sym in symbols.reversed() {
            // x_max = ((L >> p) << 8) · freq ≤ 2^31: fits, see §4.
            let xMax = ((RansCore.lowerBound >> sym.precision) << 8) * sym.frequency
            while x >= xMax {
                emitted.append(UInt8(truncatingIfNeeded: x))
                x >>= 8
            }
            x = ((x / sym.frequency) << sym.precision) + (x % sym.frequency) + sym.start
        }
        // Emitted reversed, so the state's most significant byte goes first.
        for shift in stride(from: 24, through: 0, by: -8) {
            emitted.append(UInt8(truncatingIfNeeded: x >> UInt32(shift)))
        }
        return emitted.reversed()
    }

    /// A bare coder symbol, for tests that must build streams no value produces (a
    /// non-minimal or oversized escape) to check the decoder refuses them.
    mutating func appendRawSymbol(start: UInt32, frequency: UInt32, precision: UInt32) {
        symbols.append(RansSymbol(start: start, frequency: frequency, precision: precision))
    }

    private mutating func appendNibble(_ g: UInt32) {
        symbols.append(RansSymbol(start: g, frequency: 1, precision: RansCore.nibblePrecision))
    }
}
