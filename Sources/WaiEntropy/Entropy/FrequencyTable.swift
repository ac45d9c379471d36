/// One integer distribution for the rANS coder (docs/entropy-coding.md §1–§2).
/// Validated on construction, so the coder never meets a table it cannot code with.
public struct FrequencyTable: Sendable, Equatable {
    public static let maximumPrecision = 16
    public static let maximumSymbolCount = 65536

    /// Frequencies sum to 2^precision.
    public let precision: Int
    /// K+1 cumulative frequencies, cdf[0] = 0, cdf[K] = 2^precision.
    public let cdf: [UInt32]
    /// The symbol that announces a bypass-coded value (§3).
    public let escapeSymbol: Int
    /// The value of the lowest direct symbol (§2).
    public let offset: Int32

    public var symbolCount: Int { cdf.count - 1 }
    /// Direct values are lowestDirectValue…highestDirectValue; empty when K = 1.
    public var lowestDirectValue: Int64 { Int64(offset) }
    public var highestDirectValue: Int64 { Int64(offset) + Int64(symbolCount) - 2 }

    public init(precision: Int, cdf: [Int], escapeSymbol: Int, offset: Int32) throws {
        guard (1...Self.maximumPrecision).contains(precision) else {
            throw FrequencyTableError.precisionOutOfRange(precision)
        }
        let symbolCount = cdf.count - 1
        guard symbolCount >= 1 else { throw FrequencyTableError.noSymbols }
        let total = 1 << precision
        let limit = min(Self.maximumSymbolCount, total)
        guard symbolCount <= limit else {
            throw FrequencyTableError.tooManySymbols(count: symbolCount, maximum: limit)
        }
        guard cdf[0] == 0 else { throw FrequencyTableError.cdfStartNotZero(cdf[0]) }
        guard cdf[symbolCount] == total else {
            throw FrequencyTableError.totalMismatch(expected: total, found: cdf[symbolCount])
        }
        // Comparison, not subtraction: arbitrary Ints must not overflow here. Strictly
        // increasing between 0 and 2^p also bounds every entry to 0…2^p.
        for s in 0..<symbolCount where cdf[s + 1] <= cdf[s] {
            throw FrequencyTableError.frequencyNotPositive(symbol: s, cdfLow: cdf[s], cdfHigh: cdf[s + 1])
        }
        guard (0..<symbolCount).contains(escapeSymbol) else {
            throw FrequencyTableError.escapeOutOfRange(escapeSymbol: escapeSymbol, symbolCount: symbolCount)
        }
        guard Int64(offset) + Int64(symbolCount) - 2 <= Int64(Int32.max) else {
            throw FrequencyTableError.directRangeBeyondInt32(offset: offset, symbolCount: symbolCount)
        }
        self.precision = precision
        self.cdf = cdf.map { UInt32($0) }
        self.escapeSymbol = escapeSymbol
        self.offset = offset
    }

    /// Convenience: K frequencies instead of K+1 cumulative ones.
    public init(precision: Int, frequencies: [Int], escapeSymbol: Int, offset: Int32) throws {
        guard (1...Self.maximumPrecision).contains(precision) else {
            throw FrequencyTableError.precisionOutOfRange(precision)
        }
        var cdf = [0]
        cdf.reserveCapacity(frequencies.count + 1)
        for (s, f) in frequencies.enumerated() {
            // Wrapping add only builds the error's numbers: hi &- lo gives f back exactly.
            guard f >= 1 else {
                throw FrequencyTableError.frequencyNotPositive(symbol: s, cdfLow: cdf[s], cdfHigh: cdf[s] &+ f)
            }
            let (sum, overflow) = cdf[s].addingReportingOverflow(f)
            guard !overflow else {
                throw FrequencyTableError.totalMismatch(expected: 1 << precision, found: Int.max)
            }
            cdf.append(sum)
        }
        try self.init(precision: precision, cdf: cdf, escapeSymbol: escapeSymbol, offset: offset)
    }

    /// The direct symbol of `value`, or nil when it must be escaped.
    @inline(__always)
    func directSymbol(for value: Int32) -> Int? {
        let v = Int64(value)
        guard v >= lowestDirectValue, v <= highestDirectValue else { return nil }
        let index = Int(v - lowestDirectValue)
        return index < escapeSymbol ? index : index + 1
    }

    /// The value of a direct (non-escape) symbol; fits in int32 by the construction check.
    @inline(__always)
    func value(ofDirectSymbol s: Int) -> Int32 {
        Int32(truncatingIfNeeded: Int64(offset) + Int64(s < escapeSymbol ? s : s - 1))
    }

    /// The symbol whose interval [cdf[s], cdf[s+1]) holds `slot` (slot < 2^precision).
    @inline(__always)
    func symbol(forSlot slot: UInt32) -> Int {
        var lo = 0
        var hi = cdf.count - 1   // invariant: cdf[lo] ≤ slot < cdf[hi]
        while hi - lo > 1 {
            let mid = (lo + hi) >> 1
            if cdf[mid] <= slot { lo = mid } else { hi = mid }
        }
        return lo
    }
}

public enum FrequencyTableError: Error, Equatable, CustomStringConvertible {
    case precisionOutOfRange(Int)
    case noSymbols
    case tooManySymbols(count: Int, maximum: Int)
    case cdfStartNotZero(Int)
    case totalMismatch(expected: Int, found: Int)
    case frequencyNotPositive(symbol: Int, cdfLow: Int, cdfHigh: Int)
    case escapeOutOfRange(escapeSymbol: Int, symbolCount: Int)
    case directRangeBeyondInt32(offset: Int32, symbolCount: Int)

    public var description: String {
        switch self {
        case .precisionOutOfRange(let p):
            return "frequency table: precision \(p) is outside 1…\(FrequencyTable.maximumPrecision)"
        case .noSymbols:
            return "frequency table: no symbols (the cdf needs at least 2 entries)"
        case .tooManySymbols(let count, let maximum):
            return "frequency table: \(count) symbols, at most \(maximum) allowed at this precision"
        case .cdfStartNotZero(let v):
            return "frequency table: cdf[0] is \(v), must be 0"
        case .totalMismatch(let expected, let found):
            return "frequency table: frequencies sum to \(found), must be 2^precision = \(expected)"
        case .frequencyNotPositive(let s, let lo, let hi):
            return "frequency table: symbol \(s) has frequency \(hi &- lo) (cdf \(lo)…\(hi)), every frequency must be ≥ 1"
        case .escapeOutOfRange(let e, let k):
            return "frequency table: escape symbol \(e) is outside 0…\(k - 1)"
        case .directRangeBeyondInt32(let offset, let k):
            return "frequency table: offset \(offset) with \(k) symbols puts direct values beyond int32"
        }
    }
}
