import EntropyKernels

/// The frequency tables of one stream flattened for the lane decoder's hot loop
/// (docs/entropy-coding.md §8.4): every cdf in one array and, per table, a bucket lookup
/// from the top bits of a slot to the symbol holding the bucket's first slot. Built once per
/// model set; the lookup only speeds up the §4 symbol search, whose result it does not change.
public struct RansTableSet: Sendable, Equatable {
    /// Buckets per table: 2^min(precision, lookupBits). 4096 two-byte entries (8 KiB) per
    /// table keep a model set's 64 Gaussian tables inside a core's L2 cache.
    static let lookupBits = 12

    /// Per table, where its data lies in the flat arrays and how to read its symbols.
    struct Entry: Sendable, Equatable {
        var cdfBase: Int
        var lookupBase: Int
        var precision: UInt32
        var lookupShift: UInt32
        var escape: Int
        var offset: Int32
        var lowestDirect: Int64
        var highestDirect: Int64
    }

    public let tables: [FrequencyTable]
    let entries: [Entry]
    /// Every table's K+1 cumulative frequencies, back to back.
    let cdf: [UInt32]
    /// Every table's buckets: the symbol s with cdf[s] ≤ (bucket << shift) < cdf[s+1]; then
    /// one padding entry, so the vector loop may read the last bucket 4 bytes wide.
    let lookup: [UInt16]
    /// The entries again as the C loops read them (EntropyKernels' `wai_rans_table`); nil
    /// when the flat arrays are too long for the loops' 32-bit indices, or the tables too
    /// many for the vector loop's index `table << 3` (then the Swift loop decodes everything).
    let vector: [wai_rans_table]?

    static func vectorTables(_ entries: [Entry], cdfCount: Int, lookupCount: Int) -> [wai_rans_table]? {
        guard cdfCount < Int(Int32.max) - 2, lookupCount < Int(Int32.max) - 2, entries.count < 1 << 27 else { return nil }
        return entries.map { e in
            // escape < K ≤ 65536 (§1), precision ≤ 16, shift ≤ 16: each field fits its bits.
            wai_rans_table(meta: e.precision | e.lookupShift << 5 | UInt32(truncatingIfNeeded: e.escape) << 16,
                           cdf_base: Int32(e.cdfBase), lookup_base: Int32(e.lookupBase), offset: e.offset,
                           lowest: e.lowestDirect, highest: e.highestDirect)
        }
    }

    public var count: Int { tables.count }

    /// Everything else is derived from the tables.
    public static func == (a: RansTableSet, b: RansTableSet) -> Bool { a.tables == b.tables }

    public init(_ tables: [FrequencyTable]) {
        var entries: [Entry] = []
        var cdf: [UInt32] = []
        var lookup: [UInt16] = []
        // Every decode builds these (a model set's 192 tables: 786 432 buckets), so the arrays
        // are sized once and the bucket walk reads the cdf without a bounds check per step.
        entries.reserveCapacity(tables.count)
        cdf.reserveCapacity(tables.reduce(0) { $0 + $1.cdf.count })
        lookup.reserveCapacity(tables.reduce(1) { $0 + 1 << min($1.precision, Self.lookupBits) })
        for t in tables {
            let bits = min(t.precision, Self.lookupBits)
            let shift = t.precision - bits
            entries.append(Entry(cdfBase: cdf.count, lookupBase: lookup.count, precision: UInt32(t.precision),
                                 lookupShift: UInt32(shift), escape: t.escapeSymbol, offset: t.offset,
                                 lowestDirect: t.lowestDirectValue, highestDirect: t.highestDirectValue))
            cdf += t.cdf
            t.cdf.withUnsafeBufferPointer { c in
                // c[K] = 2^precision > every slot, so the walk stops inside the table.
                var s = 0
                for bucket in 0..<(1 << bits) {
                    let slot = UInt32(bucket << shift)
                    while c[s + 1] <= slot { s += 1 }
                    // K ≤ 65536, so a symbol fits in 16 bits (§1).
                    lookup.append(UInt16(truncatingIfNeeded: s))
                }
            }
        }
        lookup.append(0)
        self.tables = tables
        self.entries = entries
        self.cdf = cdf
        vector = Self.vectorTables(entries, cdfCount: cdf.count, lookupCount: lookup.count - 1)
        self.lookup = lookup
    }
}
