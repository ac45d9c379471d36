/// The warp's probe graphs (docs/integer-ops.md §4.10, docs/probe.md §1): in `semantics`,
/// the places a real kernel gets it wrong — the one rounding at ties of both signs, border
/// clamping of the coordinate (not of the split index) on every axis including scale,
/// integer offsets, zero flow; in `arithmetic`, seeded random shapes, scales and fractional
/// bits at both widths, and the accumulator at the certificate's edge. Every graph holds
/// warp nodes only, so a unit that refuses the op is found by its first graph.
enum WarpCases {
    typealias G = ProbeGraphs

    static func semantics() throws -> [ProbeCase] {
        [try zeroFlowIdentity(), try ties(), try borders(fracBits: 3), try borders(fracBits: 0), try extremeOffsets()]
    }

    static func arithmetic() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: 0x5741_5250_4152_4954)
        var cases: [ProbeCase] = []
        for k in 0..<4 {
            cases.append(try random(&rng, narrow: true, name: "warp_narrow_\(k)"))
            cases.append(try random(&rng, narrow: false, name: "warp_wide_\(k)"))
        }
        cases.append(try accumulatorEdge(fracBits: 5, volume: G.interval(-32768, 32767), storage: .narrow))
        cases.append(try accumulatorEdge(fracBits: 10, volume: G.interval(-2, 1), storage: .wide))
        return cases
    }

    /// `scale`: a 259×263 plane (68117 positions, past 2^16, not a multiple of it) with
    /// offsets reaching across the whole plane, so sample indices far from the output's own
    /// position and past 16 bits are formed, at both widths of the volume.
    static func scale() throws -> [ProbeCase] {
        try [Storage.narrow, .wide].map { storage in
            var rng = SplitMix64(seed: 0x5343_414C &+ UInt64(storage.rawValue))
            let (c, s, h, w, f) = (2, 3, 259, 263, 4)
            let e = Int64(1) << f
            let iv = storage == .narrow ? G.interval(-32768, 32767) : G.interval(-200_000, 200_000)
            let flowIv = G.interval(-Int64(w + 8) * e, Int64(w + 8) * e)
            var b = GraphBuilder()
            let (v, fl) = inputs(&b, c: c, s: s, h: h, w: w, volume: iv, flow: flowIv, storage: storage)
            let y = try b.warp(v, fl, WarpParams(scales: s, fracBits: f), name: "y")
            return try G.finish(b, last: y, name: "warp_plane_2e16_\(storage == .narrow ? "narrow" : "wide")",
                                inputs: [TensorValue(shape: Shape(s * c, h, w), values: G.values(&rng, count: s * c * h * w, in: iv)),
                                         TensorValue(shape: Shape(3, h, w), values: G.values(&rng, count: 3 * h * w, in: flowIv))])
        }
    }

    /// A (S·C)×H×W volume input and a 3×H×W flow input.
    private static func inputs(_ b: inout GraphBuilder, c: Int, s: Int, h: Int, w: Int,
                               volume: Interval, flow: Interval, storage: Storage) -> (Int, Int) {
        let v = b.input("volume", Shape(s * c, h, w), storage: storage, interval: volume)
        let f = b.input("flow", Shape(3, h, w), storage: storage, interval: flow)
        return (v, f)
    }

    /// Zero flow reads scale 0 at the output's own position: y = v[c][i][j].
    static func zeroFlowIdentity() throws -> ProbeCase {
        var rng = SplitMix64(seed: 0x5A45_524F)
        let (c, s, h, w) = (2, 3, 5, 7)
        var b = GraphBuilder()
        let iv = G.interval(-32768, 32767)
        let (v, f) = inputs(&b, c: c, s: s, h: h, w: w, volume: iv, flow: G.interval(0, 0), storage: .narrow)
        let y = try b.warp(v, f, WarpParams(scales: s, fracBits: 4), name: "y")
        return try G.finish(b, last: y, name: "warp_zero_flow_identity",
                            inputs: [TensorValue(shape: Shape(s * c, h, w), values: G.values(&rng, count: s * c * h * w, in: iv)),
                                     TensorValue(zeros: Shape(3, h, w))])
    }

    /// Half-way fractions on one, two and three axes over neighbours whose weighted sum is
    /// odd, so acc lands exactly on a tie of rnd(·, 3F): ties of both signs go toward +∞
    /// (a truncating or half-away-from-zero kernel differs on the negative ones). F = 1, 3, 5.
    static func ties() throws -> ProbeCase {
        let (s, h, w) = (2, 2, 8)
        var b = GraphBuilder()
        var inputsValues: [TensorValue] = []
        var last = -1
        // Columns alternate odd and even values of both signs; scale 1 is scale 0 + 1.
        let row: [Int32] = [-3, -2, 5, 6, -7, 0, 1, -32768]
        var plane0: [Int32] = []
        for i in 0..<h { plane0 += row.map { $0 == -32768 ? $0 : $0 + Int32(i) } }
        let volume = plane0 + plane0.map { $0 == -32768 ? -32767 : $0 + 1 }
        for f in [1, 3, 5] {
            let e = Int32(1) << f, half = e / 2
            var flow = [Int32](repeating: 0, count: 3 * h * w)
            for i in 0..<h {
                for j in 0..<w {
                    let p = i * w + j
                    // Position (row, column) picks which axes sit half-way.
                    flow[p] = half
                    flow[h * w + p] = (j % 2 == 0 && i == 0) ? half : 0
                    flow[2 * h * w + p] = (j % 4 < 2) ? half : 0
                }
            }
            let v = b.input("volume_f\(f)", Shape(s, h, w), storage: .narrow, interval: G.interval(-32768, 32767))
            let fl = b.input("flow_f\(f)", Shape(3, h, w), storage: .narrow, interval: G.interval(0, Int64(half)))
            last = try b.warp(v, fl, WarpParams(scales: s, fracBits: f), name: "ties_f\(f)")
            inputsValues += [TensorValue(shape: Shape(s, h, w), values: volume), TensorValue(shape: Shape(3, h, w), values: flow)]
        }
        return try G.finish(b, last: last, name: "warp_ties", inputs: inputsValues)
    }

    /// Offsets past every border and on it: ±E/2, ±E, ±(E + 1), a whole plane away, and on
    /// the scale axis below 0, at and past (S − 1)·E and one below it. A kernel that clamps
    /// the split index instead of the coordinate blends with the next sample inwards.
    static func borders(fracBits f: Int) throws -> ProbeCase {
        var rng = SplitMix64(seed: 0x424F_5244 &+ UInt64(f))
        let (c, s, h, w) = (2, 3, 6, 7)
        let e = Int64(1) << f
        let half = max(e / 2, 1)
        let offsets: [Int64] = [0, 1, -1, half, -half, e, -e, e + 1, -e - 1, -3 * e - 1, 3 * e + half,
                                Int64(w + 2) * e, -Int64(w + 2) * e + 1]
        let scales: [Int64] = [-e, -1, 0, 1, half, Int64(s - 1) * e - 1, Int64(s - 1) * e, Int64(s - 1) * e + 1,
                               Int64(s) * e + 7, Int64(s - 2) * e + half]
        var flow: [Int32] = []
        for axis in 0..<3 {
            for _ in 0..<(h * w) {
                let set = axis == 2 ? scales : offsets
                flow.append(Int32(set[rng.int(0...(set.count - 1))]))
            }
        }
        // Every position of the corners and edges sees a negative and a positive offset.
        for (p, d) in [(0, -half), (w - 1, half), ((h - 1) * w, -e - 1), (h * w - 1, 3 * e + half)] {
            flow[p] = Int32(d)
            flow[h * w + p] = Int32(-d)
        }
        let reach = (offsets + scales).map { abs($0) }.max() ?? 0
        let iv = G.interval(-20000, 20000)
        var b = GraphBuilder()
        let (v, fl) = inputs(&b, c: c, s: s, h: h, w: w, volume: iv, flow: G.interval(-reach, reach), storage: .narrow)
        let y = try b.warp(v, fl, WarpParams(scales: s, fracBits: f), name: "y")
        return try G.finish(b, last: y, name: "warp_borders_f\(f)",
                            inputs: [TensorValue(shape: Shape(s * c, h, w), values: G.values(&rng, count: s * c * h * w, in: iv)),
                                     TensorValue(shape: Shape(3, h, w), values: flow)])
    }

    /// Flow at the int32 ends the certificate allows: coordinates j·E + dx from INT32_MIN to
    /// INT32_MAX (an unsigned or 64-bit-truncating clamp differs), clamped to the borders.
    static func extremeOffsets() throws -> ProbeCase {
        let (s, h, w) = (2, 3, 5)
        let f = 4
        let e = Int64(1) << f
        let top = G.int32Max - Int64(max(h, w) - 1) * e
        let ends: [Int64] = [G.int32Min, G.int32Min + 1, top, top - 1, -1, 0, 1, G.int32Min / 2, top / 2]
        var rng = SplitMix64(seed: 0x4558_5452)
        var flow: [Int32] = []
        for _ in 0..<(3 * h * w) { flow.append(Int32(ends[rng.int(0...(ends.count - 1))])) }
        flow[0] = Int32(G.int32Min); flow[h * w - 1] = Int32(top)
        let iv = G.interval(-1000, 1000)
        var b = GraphBuilder()
        let (v, fl) = inputs(&b, c: 1, s: s, h: h, w: w, volume: iv, flow: G.interval(G.int32Min, top), storage: .wide)
        let y = try b.warp(v, fl, WarpParams(scales: s, fracBits: f), name: "y")
        return try G.finish(b, last: y, name: "warp_extreme_offsets",
                            inputs: [TensorValue(shape: Shape(s, h, w), values: G.values(&rng, count: s * h * w, in: iv)),
                                     TensorValue(shape: Shape(3, h, w), values: flow)])
    }

    /// A random warp: C 1…3, S 1…4, H×W up to 9×9, F 0…6, offsets reaching a few samples
    /// past every border, the volume's interval as wide as the certificate allows at F.
    static func random(_ rng: inout SplitMix64, narrow: Bool, name: String) throws -> ProbeCase {
        let c = rng.int(1...3), s = rng.int(1...4), h = rng.int(2...9), w = rng.int(2...9)
        let f = rng.int(0...6)
        let e = Int64(1) << f
        let e3 = e * e * e
        let bias = f == 0 ? 0 : Int64(1) << (3 * f - 1)
        let limit = narrow ? Int64(32767) : G.int32Max
        let hi = min(limit, (G.int32Max - bias) / e3), lo = -min(limit + 1, (G.int32Max + 1) / e3)
        let iv = G.interval(lo, hi)
        let reach = Int64(max(h, w, s) + 2) * e
        let flowIv = G.interval(-reach, reach)
        var b = GraphBuilder()
        let (v, fl) = inputs(&b, c: c, s: s, h: h, w: w, volume: iv, flow: flowIv, storage: narrow ? .narrow : .wide)
        let y = try b.warp(v, fl, WarpParams(scales: s, fracBits: f), name: "y")
        return try G.finish(b, last: y, name: name,
                            inputs: [TensorValue(shape: Shape(s * c, h, w), values: G.values(&rng, count: s * c * h * w, in: iv)),
                                     TensorValue(shape: Shape(3, h, w), values: G.values(&rng, count: 3 * h * w, in: flowIv))])
    }

    /// The volume at both ends of its interval everywhere the weights are largest: acc
    /// reaches E³·a (INT32_MIN for F = 10, a = −2) and E³·b; a kernel accumulating in 16
    /// bits, or rounding in a narrower type, differs.
    static func accumulatorEdge(fracBits f: Int, volume iv: Interval, storage: Storage) throws -> ProbeCase {
        var rng = SplitMix64(seed: 0x4143_4345 &+ UInt64(f))
        let (c, s, h, w) = (2, 2, 4, 6)
        let e = Int64(1) << f
        var volume: [Int32] = []
        for k in 0..<(s * c * h * w) { volume.append(Int32(k % 3 == 0 ? iv.hi : iv.lo)) }
        let flowIv = G.interval(-2 * e, 2 * e)
        var flow = G.values(&rng, count: 3 * h * w, in: flowIv)
        for p in 0..<(h * w) where p % 4 == 0 { flow[p] = 0; flow[h * w + p] = 0; flow[2 * h * w + p] = 0 }
        var b = GraphBuilder()
        let (v, fl) = inputs(&b, c: c, s: s, h: h, w: w, volume: iv, flow: flowIv, storage: storage)
        let y = try b.warp(v, fl, WarpParams(scales: s, fracBits: f), name: "y")
        return try G.finish(b, last: y, name: "warp_accumulator_edge_f\(f)",
                            inputs: [TensorValue(shape: Shape(s * c, h, w), values: volume),
                                     TensorValue(shape: Shape(3, h, w), values: flow)])
    }
}
