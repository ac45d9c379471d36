import EntropyKernels
import RegionKernels

/// Decoder of a lane stream (docs/entropy-coding.md §8): the lanes are independent §5
/// streams, so groups of lanes are decoded on separate threads, and inside a group the
/// lanes' symbol steps are interleaved, which gives the core independent dependency chains
/// instead of one (Giesen, "Interleaved entropy coders", 2014). A group goes to a C loop
/// (EntropyKernels): on a CPU with AVX-512, when it has at least 9 lanes, the vector loop,
/// one lane per vector element; else, on a CPU with AVX2, when it has at least
/// `avx2From` lanes, the AVX2 loop; else the portable loop. The Swift loop below is the
/// definition, and decodes again any group a C loop gives up, naming the error.
public enum RansLaneDecoder {
    /// Lanes of one vector of the AVX-512 loop.
    static let vectorGroupSize = 16
    /// The vector loop takes a group of at least this many lanes; a smaller one (a low-rate
    /// stream has few lanes, §8.3) is the portable loop's. A round costs the vector loop its
    /// chain of gathers however few elements are live: on the Zen 4 machine it overtook the
    /// Swift loop between 8 and 9 lanes, and with 1 or 2 it ran at a quarter of its speed
    /// (docs/entropy-coding.md §8.4).
    static let vectorFrom = 9
    /// The AVX2 loop takes a group of at least this many lanes, the portable loop a smaller
    /// one: a vector of 8 lanes costs its gathers however few are live
    /// (docs/entropy-coding.md §8.4).
    static let avx2From = 6
    /// Below this many values, threads cost more than they save.
    static let parallelThreshold = 1 << 14

    /// The C loops, each decoding a group of lanes or giving it up (entropy_kernels.h).
    enum Kernel: Sendable { case avx512, avx2, portable }

    /// Which loop decodes: the best C loop for each group (the Swift one decoding any group
    /// it gives up), the Swift one alone, or one C loop alone (tests: that it finishes what
    /// it should, not only that the fallback is right).
    enum Path: Equatable { case best, swift, only(Kernel) }

    /// True where the vector loop runs on this CPU: AVX-512 F, BW, VL and VNNI as
    /// RegionKernels detects them.
    static var vectorAvailable: Bool { wai_region_best_isa() == WAI_REGION_ISA_AVX512 }

    /// True where the AVX2 loop runs on this CPU: AVX2 or more as RegionKernels detects it.
    static var avx2Available: Bool { wai_region_best_isa().rawValue >= WAI_REGION_ISA_AVX2.rawValue }

    /// A C loop's entry point, as entropy_kernels.h declares them.
    typealias Loop = @convention(c) (UnsafePointer<wai_rans_lane_job>?, Int32, Int32, UnsafeMutablePointer<Int32>?) -> Int32

    /// The C loops a decode calls: the AVX-512 vector loop and the AVX2 loop where the CPU
    /// runs them, and the portable loop. The tests give the vector loop on emulated
    /// intrinsics (Tests/EmulatedEntropyKernels), so that its logic is checked on CPUs
    /// without AVX-512 too.
    struct Loops: @unchecked Sendable {
        var vector: Loop?
        var portable: Loop
        var avx2: Loop? = nil

        /// This CPU's: each vector loop only where RegionKernels detects its ISA.
        static var native: Loops {
            Loops(vector: vectorAvailable ? wai_rans_lanes_decode_avx512 : nil, portable: wai_rans_lanes_decode_portable,
                  avx2: avx2Available ? wai_rans_lanes_decode_avx2 : nil)
        }

        func loop(_ kernel: Kernel) -> Loop? {
            switch kernel {
            case .avx512: vector
            case .avx2: avx2
            case .portable: portable
            }
        }
    }

    /// Lanes decoded together on one thread. The AVX-512 loop's vector where it decodes;
    /// else (the AVX2 and portable loops) the lanes shared evenly by the threads, 8 to 32 a
    /// group: more lanes give the core more independent loads in flight (on the Zen 3 guest
    /// the portable loop decoded 32 lanes 3–10 % faster than 16), but a group is one
    /// thread's, so more than the threads' share would leave a core idle
    /// (docs/entropy-coding.md §8.4).
    static func groupSize(laneCount: Int, threads: Int, path: Path, loops: Loops) -> Int {
        if path == .only(.avx512) || (path == .best && loops.vector != nil) { return vectorGroupSize }
        let threads = max(threads, 1)
        return min(max((laneCount + threads - 1) / threads, 8), Int(WAI_RANS_PORTABLE_LANES))
    }

    /// The C loop that decodes a group of `lanes` lanes on `path`; nil for the Swift loop.
    static func kernel(for lanes: Int, path: Path, loops: Loops) -> Kernel? {
        switch path {
        case .swift: nil
        case .only(let k): k
        case .best:
            if loops.vector != nil && lanes >= vectorFrom { .avx512 }
            else if loops.avx2 != nil && lanes >= avx2From { .avx2 }
            else { .portable }
        }
    }

    /// The `count` values of `stream`, value i decoded with table `selection[i]` of
    /// `tables`, every lane's final-state check done (§8.5). On a failure the error of the
    /// lowest-numbered failing lane is thrown, whatever the thread timing.
    public static func decode(_ stream: [UInt8], count: Int, tables: RansTableSet, selection: [Int32],
                              threads: Int) throws -> [Int32] {
        try decodeWithExtremes(stream, count: count, tables: tables, selection: selection, threads: threads).values
    }

    /// As `decode`, with the least and greatest value (nil when `count` is 0). The loops
    /// find them as they write the values, so a caller's range check (int_hyper's contract)
    /// costs nothing more than the decode: on 2 cores a separate pass is about 2 ms of a 4K
    /// picture's 25.
    public static func decodeWithExtremes(_ stream: [UInt8], count: Int, tables: RansTableSet, selection: [Int32],
                                          threads: Int) throws -> (values: [Int32], extremes: ClosedRange<Int32>?) {
        guard let decoded = try decodeWithExtremes(stream, count: count, tables: tables, selection: selection,
                                                   threads: threads, path: .best) else {
            preconditionFailure("the best path falls back rather than decline")
        }
        return decoded
    }

    /// With `.only`, nil when that loop did not finish some group (or `loops` has no such
    /// loop); otherwise as `decode`.
    static func decode(_ stream: [UInt8], count: Int, tables: RansTableSet, selection: [Int32],
                       threads: Int, path: Path, loops: Loops = .native) throws -> [Int32]? {
        try decodeWithExtremes(stream, count: count, tables: tables, selection: selection, threads: threads,
                               path: path, loops: loops)?.values
    }

    static func decodeWithExtremes(_ stream: [UInt8], count: Int, tables: RansTableSet, selection: [Int32],
                                   threads: Int, path: Path,
                                   loops: Loops = .native) throws -> (values: [Int32], extremes: ClosedRange<Int32>?)? {
        precondition(selection.count == count, "one table selection per value")
        let ranges = try RansLanes.laneRanges(stream)
        let laneCount = ranges.count
        if case .only(let k) = path, loops.loop(k) == nil || tables.vector == nil { return nil }
        // The C loops check each value's table as they read it and give a group up on a bad
        // one; the Swift loop reads them unchecked, so without a C loop the selection is
        // checked first, and with one before any group is decoded again in Swift. On 2 cores
        // the check is about 2 ms of a 4K picture's 28, so it stays off the common path.
        let cTables = path == .swift || tables.vector == nil ? nil : tables
        if cTables == nil, let e = Self.selectionError(selection, tableCount: tables.count) { throw e }
        let width = count >= parallelThreshold ? threads : 1
        let size = groupSize(laneCount: laneCount, threads: width, path: path, loops: loops)
        let groups = stride(from: 0, to: laneCount, by: size).map { $0..<min($0 + size, laneCount) }
        var failure: RansLaneError?
        var declined = false
        var extremes: ClosedRange<Int32>?
        // `count` was bounded by the caller (a payload's dimensions) before this point; Int32
        // is trivial, and the array is returned only when every lane wrote all its values.
        let values = [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = count
            // A 4K picture's y is 25 MB of fresh pages, which the lanes would otherwise fault in
            // 4 KiB at a time, waiting on each other's faults (docs/entropy-coding.md §8.4).
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            let out = buffer
            // The hot loop reads through buffer pointers: one bounds check per lane and
            // byte range (laneRanges) instead of several per symbol.
            stream.withUnsafeBufferPointer { bytes in
                tables.cdf.withUnsafeBufferPointer { cdf in
                    tables.lookup.withUnsafeBufferPointer { lookup in
                        tables.entries.withUnsafeBufferPointer { entries in
                            selection.withUnsafeBufferPointer { sel in
                                let job = LaneJob(laneCount: laneCount, count: count, ranges: ranges, bytes: bytes,
                                                  cdf: cdf, lookup: lookup, entries: entries, selection: sel, out: out)
                                var outcome = KernelLanes.with(cTables, job) { c in
                                    parallelMap(groups, width: width) { g -> GroupOutcome in
                                        if let c, let k = kernel(for: g.count, path: path, loops: loops),
                                           let loop = loops.loop(k) {
                                            return c.decode(lanes: g, with: loop).map { .done($0) } ?? .declined
                                        }
                                        return job.decode(lanes: g) ? .failed : .decodedInSwift
                                    }
                                }
                                // A group a C loop did not finish is decoded again by the Swift
                                // loop, which names any error.
                                let redo = outcome.indices.filter { outcome[$0] == .declined }
                                if !redo.isEmpty {
                                    if let e = Self.selectionError(selection, tableCount: tables.count) {
                                        failure = e
                                        return
                                    }
                                    if case .only = path {
                                        declined = true
                                        return
                                    }
                                    let again = parallelMap(redo, width: width) { i -> GroupOutcome in
                                        job.decode(lanes: groups[i]) ? .failed : .decodedInSwift
                                    }
                                    for (i, o) in zip(redo, again) { outcome[i] = o }
                                }
                                if outcome.contains(.decodedInSwift) {
                                    // The fallback and the tests' path: one pass over the values.
                                    extremes = Self.extremes(of: out)
                                } else {
                                    for case .done(let e?) in outcome {
                                        extremes = extremes.map { min($0.lowerBound, e.lowerBound)...max($0.upperBound, e.upperBound) } ?? e
                                    }
                                }
                                if let g = outcome.firstIndex(of: .failed) {
                                    // Slow path, once: lane by lane, for the lowest lane's own error.
                                    // Lanes are independent, so a lane that failed in its group
                                    // fails alone too.
                                    guard let e = groups[g].lazy.compactMap({ job.laneError($0) }).first else {
                                        preconditionFailure("lane group \(groups[g]) failed, but none of its lanes alone")
                                    }
                                    failure = e
                                }
                            }
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
        return declined ? nil : (values, extremes)
    }

    /// A group decoded by a C loop, with its values' extremes (nil when it has none); decoded
    /// by the Swift loop; failed in the Swift loop; or given up by a C loop.
    private enum GroupOutcome: Equatable { case done(ClosedRange<Int32>?), decodedInSwift, failed, declined }

    /// The least and greatest of `values`, nil when there are none: one pass, vectorised.
    private static func extremes<C: Collection<Int32>>(of values: C) -> ClosedRange<Int32>? {
        var lo = Int32.max, hi = Int32.min
        for v in values { lo = min(lo, v); hi = max(hi, v) }
        return values.isEmpty ? nil : lo...hi
    }

    /// The first value whose table is not one of `tableCount`, as the error; nil when every
    /// one is. A min/max pass (vectorised) first, the index only when there is a bad one.
    private static func selectionError(_ selection: [Int32], tableCount: Int) -> RansLaneError? {
        guard let e = extremes(of: selection), e.lowerBound < 0 || Int(e.upperBound) >= tableCount,
              let i = selection.firstIndex(where: { $0 < 0 || Int($0) >= tableCount }) else { return nil }
        return .tableIndexOutOfRange(valueIndex: i, table: Int(selection[i]), tableCount: tableCount)
    }
}

/// The C loops' view of one decode: the job's buffers and the tables as the C struct the
/// loops read (alive for the closure only).
private struct KernelLanes: @unchecked Sendable {
    let job: UnsafePointer<wai_rans_lane_job>

    /// The extremes of the group's values (nil when it has none) when the loop decoded its
    /// lanes and they passed every check; .none when the loop gave the group up.
    func decode(lanes: Range<Int>, with loop: RansLaneDecoder.Loop) -> ClosedRange<Int32>?? {
        var e: [Int32] = [.max, .min]
        guard loop(job, Int32(lanes.lowerBound), Int32(lanes.count), &e) == 0 else { return .none }
        return .some(e[0] <= e[1] ? e[0]...e[1] : nil)
    }

    static func with<R>(_ set: RansTableSet?, _ job: LaneJob, _ body: (KernelLanes?) -> R) -> R {
        guard let set, let tables = set.vector else { return body(nil) }
        let lanes = job.ranges.map { wai_rans_lane_range(begin: Int64($0.lowerBound), end: Int64($0.upperBound)) }
        return tables.withUnsafeBufferPointer { t in
            lanes.withUnsafeBufferPointer { l in
                withOptionalBuffer(set.direct) { d in
                    var c = wai_rans_lane_job(bytes: job.bytes.baseAddress, cdf: job.cdf.baseAddress,
                                              lookup: job.lookup.baseAddress, tables: t.baseAddress,
                                              selection: job.selection.baseAddress, out: job.out.baseAddress,
                                              count: Int64(job.count), lane_count: Int32(job.laneCount),
                                              table_count: Int32(tables.count), lanes: l.baseAddress, direct: d,
                                              precision: set.sharedPrecision)
                    return withUnsafePointer(to: &c) { body(KernelLanes(job: $0)) }
                }
            }
        }
    }

    /// The array's storage for the closure, or nil for no array.
    private static func withOptionalBuffer<T, R>(_ array: [T]?, _ body: (UnsafePointer<T>?) -> R) -> R {
        guard let array else { return body(nil) }
        return array.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// One decode's inputs, shared read-only by the threads; each thread writes only the
/// output elements of its own lanes (i ≡ lane mod laneCount), so no two threads touch the
/// same element.
private struct LaneJob {
    let laneCount: Int
    let count: Int
    let ranges: [Range<Int>]
    let bytes: UnsafeBufferPointer<UInt8>
    let cdf: UnsafeBufferPointer<UInt32>
    let lookup: UnsafeBufferPointer<UInt16>
    let entries: UnsafeBufferPointer<RansTableSet.Entry>
    let selection: UnsafeBufferPointer<Int32>
    let out: UnsafeMutableBufferPointer<Int32>

    /// Decodes a group's lanes interleaved; true when one of them failed.
    func decode(lanes: Range<Int>) -> Bool {
        (try? run(lanes)) == nil
    }

    /// The error of one lane decoded alone, nil when it decodes.
    func laneError(_ lane: Int) -> RansLaneError? {
        do {
            try run(lane..<(lane + 1))
            return nil
        } catch {
            return .lane(lane: lane, start: ranges[lane].lowerBound, error: error)
        }
    }

    private func run(_ lanes: Range<Int>) throws(RansDecodingError) {
        // Per-lane state in a stack buffer: a SIMD8 indexed by a variable compiles to a
        // spill and reload of the whole vector on every access.
        var failure: RansDecodingError?
        withUnsafeTemporaryAllocation(of: LaneState.self, capacity: lanes.count) { lane in
            do throws(RansDecodingError) {
                try run(lanes, lane)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    private struct LaneState {
        var x: UInt32
        var at: Int
        var end: Int
    }

    private func run(_ lanes: Range<Int>, _ lane: UnsafeMutableBufferPointer<LaneState>) throws(RansDecodingError) {
        let lower = RansCore.lowerBound
        for (j, k) in lanes.enumerated() {
            let r = ranges[k]
            var x: UInt32 = 0
            for b in 0..<RansCore.stateByteCount { x |= UInt32(bytes[r.lowerBound + b]) << UInt32(8 * b) }
            guard x >= lower, x < lower << 8 else { throw RansDecodingError.invalidInitialState(x) }
            lane.initializeElement(at: j, to: LaneState(x: x, at: r.lowerBound + RansCore.stateByteCount, end: r.upperBound))
        }
        let first = lanes.lowerBound
        let width = lanes.count
        let rounds = RansLanes.valueCount(lane: first, laneCount: laneCount, count: count)
        // Rounds in which every lane of the group has a value, then the last partial one.
        let full = count >= first + width ? (count - first - width) / laneCount + 1 : 0
        for t in 0..<full {
            let base = t &* laneCount &+ first
            for j in 0..<width { try step(lane, j, base &+ j) }
        }
        for t in full..<rounds {
            let base = t &* laneCount &+ first
            for j in 0..<width where base &+ j < count { try step(lane, j, base &+ j) }
        }
        for j in 0..<width {
            let l = lane[j]
            guard l.at == l.end else { throw RansDecodingError.trailingBytes(consumed: l.at, length: l.end) }
            guard l.x == lower else { throw RansDecodingError.finalStateMismatch(state: l.x) }
        }
    }

    /// Value i, the next of lane j: the §4 step, the §4 renormalisation, the §3 escape.
    @inline(__always)
    private func step(_ lane: UnsafeMutableBufferPointer<LaneState>, _ j: Int, _ i: Int) throws(RansDecodingError) {
        let lower = RansCore.lowerBound
        let table = Int(selection[i])
        let e = entries[table]
        let p = e.precision
        var l = lane[j]
        let slot = l.x & ((1 &<< p) &- 1)
        let c = e.cdfBase
        var s = Int(lookup[e.lookupBase &+ Int(slot &>> e.lookupShift)])
        while cdf[c &+ s &+ 1] <= slot { s &+= 1 }
        let start = cdf[c &+ s]
        l.x = (cdf[c &+ s &+ 1] &- start) &* (l.x &>> p) &+ slot &- start
        if l.at &+ 2 <= l.end {
            // At most 2 bytes (x ≥ 2^7 after a step with p ≤ 16, §4), taken without a
            // branch: the byte count follows the coded data and would mispredict.
            let b0 = UInt32(bytes[l.at]), b1 = UInt32(bytes[l.at &+ 1])
            let n0 = l.x < lower
            let x1 = n0 ? (l.x &<< 8) | b0 : l.x
            let n1 = x1 < lower
            l.x = n1 ? (x1 &<< 8) | b1 : x1
            l.at &+= (n0 ? 1 : 0) &+ (n1 ? 1 : 0)
        } else {
            while l.x < lower {
                guard l.at < l.end else { throw RansDecodingError.truncated(valueIndex: i, offset: l.at) }
                l.x = (l.x &<< 8) | UInt32(bytes[l.at])
                l.at &+= 1
            }
        }
        if s == e.escape {
            out[i] = try escaped(&l.x, &l.at, end: l.end, table: table, index: i)
        } else {
            out[i] = e.offset &+ Int32(truncatingIfNeeded: s) &- (s > e.escape ? 1 : 0)
        }
        lane[j] = l
    }

    /// The bypass nibbles after an escape (§3), exactly as RansDecoder reads them.
    @inline(never)
    /// Takes the table's index, not its entry, so the hot loop keeps the entry's fields in
    /// registers rather than a copy in memory for this call.
    private func escaped(_ x: inout UInt32, _ at: inout Int, end: Int, table: Int,
                         index: Int) throws(RansDecodingError) -> Int32 {
        let e = entries[table]
        func nibble() throws(RansDecodingError) -> UInt32 {
            let g = x & 0xF
            x &>>= RansCore.nibblePrecision   // freq 1, start g: x = (x >> 4) + g − g
            while x < RansCore.lowerBound {
                guard at < end else { throw RansDecodingError.truncated(valueIndex: index, offset: at) }
                x = (x &<< 8) | UInt32(bytes[at])
                at &+= 1
            }
            return g
        }
        let n = Int(try nibble())
        guard n <= BypassCoding.maximumNibbleCount else {
            throw RansDecodingError.invalidBypassLength(valueIndex: index, nibbles: n)
        }
        var rank: UInt64 = 0
        for k in 0..<n {
            let g = try nibble()
            if k == 0 && g == 0 { throw RansDecodingError.nonMinimalBypass(valueIndex: index) }
            rank = (rank << 4) | UInt64(g)
        }
        guard let v = BypassCoding.value(ofRank: rank, lowestDirect: e.lowestDirect, highestDirect: e.highestDirect) else {
            throw RansDecodingError.bypassValueOutOfRange(valueIndex: index, rank: rank)
        }
        return v
    }
}
