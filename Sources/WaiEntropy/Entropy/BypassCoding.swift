/// The escape mapping of docs/entropy-coding.md §3: values outside a table's direct range
/// ↔ natural numbers ("ranks"), written as a nibble count and big-endian nibbles.
enum BypassCoding {
    /// Largest nibble count: every rank of an int32 value is below 2^33 < 16^9.
    static let maximumNibbleCount = 9

    /// Rank of a value outside lo…hi: above → even, below → odd.
    static func rank(of value: Int32, lowestDirect lo: Int64, highestDirect hi: Int64) -> UInt64 {
        let v = Int64(value)
        if v > hi { return UInt64(v - hi - 1) << 1 }
        return (UInt64(lo - v - 1) << 1) | 1
    }

    /// The value of a rank, or nil when it lies outside int32.
    static func value(ofRank r: UInt64, lowestDirect lo: Int64, highestDirect hi: Int64) -> Int32? {
        // r < 2^36 (nine nibbles), so r >> 1 and the sums below stay far inside Int64.
        let half = Int64(r >> 1)
        let v = (r & 1) == 0 ? hi + 1 + half : lo - 1 - half
        return Int32(exactly: v)
    }

    /// Number of nibbles of r: 0 for 0, else the smallest n with r < 16^n.
    static func nibbleCount(_ r: UInt64) -> Int {
        (64 - r.leadingZeroBitCount + 3) / 4
    }
}
