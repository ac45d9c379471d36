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

    /// The portable loop's direct buckets (entropy_kernels.h): 2^directBits per table, so
    /// 8 KiB a table. Built only for up to `directTableLimit` tables (8 MiB): a model set
    /// has a few dozen, and a larger set is decoded by the other loops instead.
    static let directBits = Int(WAI_RANS_DIRECT_BITS)
    static let directTableLimit = 1024
    /// The direct buckets, nil beyond `directTableLimit` tables.
    let direct: [UInt64]?
    /// The precision every table has (a model set's: one for all), else 0; the portable
    /// loop then takes it as a constant instead of reading it per value.
    let sharedPrecision: Int32

    static func vectorTables(_ entries: [Entry], cdfCount: Int, lookupCount: Int) -> [wai_rans_table]? {
        guard cdfCount < Int(Int32.max) - 2, lookupCount < Int(Int32.max) - 2, entries.count < 1 << 27 else { return nil }
        return entries.map { e in
            // escape < K ≤ 65536 (§1), precision ≤ 16, shifts ≤ 16: each field fits its bits.
            let directShift = e.precision - min(e.precision, UInt32(directBits))
            return wai_rans_table(meta: e.precision | e.lookupShift << 5 | directShift << 10
                                      | UInt32(truncatingIfNeeded: e.escape) << 16,
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
            Self.walkBuckets(t, bits: Self.lookupBits) { _, _, s in
                // K ≤ 65536, so a symbol fits in 16 bits (§1).
                lookup.append(UInt16(truncatingIfNeeded: s))
            }
        }
        lookup.append(0)
        self.tables = tables
        self.entries = entries
        self.cdf = cdf
        vector = Self.vectorTables(entries, cdfCount: cdf.count, lookupCount: lookup.count - 1)
        self.lookup = lookup
        direct = tables.count <= Self.directTableLimit ? Self.directBuckets(tables) : nil
        let first = tables.first?.precision ?? 0
        sharedPrecision = tables.allSatisfy { $0.precision == first } ? Int32(first) : 0
    }

    /// Each table's direct buckets as entropy_kernels.h lays them out: where a bucket's
    /// slots all lie in one direct symbol, the whole §4 step's data in one word; elsewhere
    /// (an escape, a bucket across symbols) the symbol of its first slot, for the search.
    static func directBuckets(_ tables: [FrequencyTable]) -> [UInt64] {
        let perTable = 1 << directBits
        var direct = [UInt64](repeating: 0, count: tables.count * perTable)
        for (i, t) in tables.enumerated() {
            let c = t.cdf
            walkBuckets(t, bits: directBits) { bucket, last, s in
                let whole = c[s + 1] > last && s != t.escapeSymbol
                // A direct symbol's frequency is below 2^16: the escape has at least 1 of 2^p ≤ 2^16.
                direct[i * perTable + bucket] = whole
                    ? UInt64(UInt32(bitPattern: t.value(ofDirectSymbol: s))) | UInt64(c[s]) << 32
                        | UInt64(c[s + 1] - c[s]) << 48
                    : UInt64(s)
            }
        }
        return direct
    }

    /// The table's 2^min(precision, bits) buckets in order, each with its last slot and the
    /// symbol holding its first slot: the walk both the bucket lookup and the direct buckets
    /// are built from.
    private static func walkBuckets(_ t: FrequencyTable, bits: Int,
                                    _ body: (_ bucket: Int, _ lastSlot: UInt32, _ symbol: Int) -> Void) {
        let used = min(t.precision, bits), shift = t.precision - used
        t.cdf.withUnsafeBufferPointer { c in
            // c[K] = 2^precision > every slot, so the walk stops inside the table.
            var s = 0
            for bucket in 0..<(1 << used) {
                let first = UInt32(bucket << shift)
                while c[s + 1] <= first { s += 1 }
                body(bucket, first + UInt32(1 << shift) - 1, s)
            }
        }
    }
}
