/// The warp (docs/integer-ops.md §4.10) in the stages after `semantics` (docs/probe.md §1):
/// volumes and flows at the certificate's int32 limits (`arithmetic`), narrow and wide
/// storage at every fractional-bit count the certificate allows (`widths`), channel counts
/// across SIMD widths with one and several scales (`channels`) and strips past 4096 samples
/// (`scale`). Every graph holds warp nodes only.
enum WarpStageCases {
    typealias G = ProbeGraphs

    /// The widest volume interval the certificate allows at F (§5's warp rule: E³·a and
    /// E³·b + 2^(3F−1) in int32), inside the storage's range.
    static func widestVolume(fracBits f: Int, narrow: Bool) -> Interval {
        let e3 = Int64(1) << (3 * f)
        let bias = f == 0 ? 0 : Int64(1) << (3 * f - 1)
        let limit = narrow ? Int64(32767) : G.int32Max
        return G.interval(-min(limit + 1, (G.int32Max + 1) / e3), min(limit, (G.int32Max - bias) / e3))
    }

    /// The widest flow interval the certificate allows for an H×W plane at F (the
    /// coordinates (max(H, W) − 1)·E + q in int32), inside the storage's range.
    static func widestFlow(fracBits f: Int, h: Int, w: Int, narrow: Bool) -> Interval {
        narrow ? G.interval(-32768, 32767) : G.interval(G.int32Min, G.int32Max - Int64(max(h, w) - 1) << f)
    }

    /// Volume values: the interval's ends in blocks of whole columns (so the eight samples
    /// of a position are often all at one end and acc reaches E³·a or E³·b), the rest random.
    static func volumeValues(_ rng: inout SplitMix64, channels: Int, h: Int, w: Int, in iv: Interval) -> [Int32] {
        var v: [Int32] = []
        for _ in 0..<channels {
            for _ in 0..<h {
                for j in 0..<w {
                    switch j % 6 {
                    case 0, 1: v.append(Int32(iv.lo))
                    case 2, 3: v.append(Int32(iv.hi))
                    default: v.append(Int32(rng.int(iv.lo, iv.hi)))
                    }
                }
            }
        }
        return v
    }

    /// Flow values: both ends of the declared interval at a few positions (they clamp to
    /// the borders), the rest reaching up to two samples past every border (or scale), so
    /// most positions blend and the fractions are random.
    static func flowValues(_ rng: inout SplitMix64, s: Int, h: Int, w: Int, fracBits f: Int, in iv: Interval) -> [Int32] {
        let e = Int64(1) << f
        let reach = Int64(max(h, w) + 2) * e
        let near = G.interval(max(iv.lo, -reach), min(iv.hi, reach))
        let scales = G.interval(max(iv.lo, -e), min(iv.hi, Int64(s + 1) * e))
        var v: [Int32] = []
        for axis in 0..<3 { v += G.values(&rng, count: h * w, in: axis == 2 ? scales : near) }
        for (k, end) in [iv.lo, iv.hi, iv.lo, iv.hi, iv.hi, iv.lo].enumerated() where k < v.count {
            v[(k * (h * w + 1)) % v.count] = Int32(end)
        }
        return v
    }

    /// One warp node and its two inputs, appended to `b`.
    struct Spec {
        var c: Int, s: Int, h: Int, w: Int, f: Int
        var volume: Interval, volumeStorage: Storage
        var flow: Interval, flowStorage: Storage
        var output: Storage? = nil
    }

    static func add(_ b: inout GraphBuilder, _ sp: Spec, _ rng: inout SplitMix64, suffix: String,
                    inputs: inout [TensorValue]) throws -> Int {
        let v = b.input("volume\(suffix)", Shape(sp.s * sp.c, sp.h, sp.w), storage: sp.volumeStorage, interval: sp.volume)
        let fl = b.input("flow\(suffix)", Shape(3, sp.h, sp.w), storage: sp.flowStorage, interval: sp.flow)
        inputs.append(TensorValue(shape: Shape(sp.s * sp.c, sp.h, sp.w),
                                  values: volumeValues(&rng, channels: sp.s * sp.c, h: sp.h, w: sp.w, in: sp.volume)))
        inputs.append(TensorValue(shape: Shape(3, sp.h, sp.w),
                                  values: flowValues(&rng, s: sp.s, h: sp.h, w: sp.w, fracBits: sp.f, in: sp.flow)))
        return try b.warp(v, fl, WarpParams(scales: sp.s, fracBits: sp.f), storage: sp.output, name: "y\(suffix)")
    }

    static func single(_ name: String, _ sp: Spec, seed: UInt64) throws -> ProbeCase {
        var rng = SplitMix64(seed: seed)
        var b = GraphBuilder()
        var inputs: [TensorValue] = []
        let y = try add(&b, sp, &rng, suffix: "", inputs: &inputs)
        return try G.finish(b, last: y, name: name, inputs: inputs)
    }

    /// `arithmetic`: a wide volume at the widest interval at F = 0, 2, 6 (F = 0: all of
    /// int32) and a wide flow from INT32_MIN to the largest coordinate bound, random shapes.
    static func arithmetic() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: 0x5741_5250_4C49_4D49)
        return try [0, 2, 6].map { f in
            let c = rng.int(1...3), s = rng.int(1...4), h = rng.int(2...9), w = rng.int(2...9)
            let sp = Spec(c: c, s: s, h: h, w: w, f: f,
                          volume: widestVolume(fracBits: f, narrow: false), volumeStorage: .wide,
                          flow: widestFlow(fracBits: f, h: h, w: w, narrow: false), flowStorage: .wide)
            return try single("warp_int32_limits_f\(f)", sp, seed: rng.next())
        }
    }

    /// `widths`: `warp_edge_narrow` — a narrow volume holding −32768 and 32767 at every F the
    /// certificate allows for it (0…5), narrow flow at its ends, narrow output;
    /// `warp_edge_wide` — wide volumes at the widest interval for F = 0, 3, 7, 10, wide
    /// outputs, and both mixes (narrow volume with wide flow, wide volume with narrow flow).
    static func widths() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: 0x5741_5250_5749_4454)
        let (c, s, h, w) = (2, 3, 4, 7)
        var narrow = GraphBuilder(), narrowInputs: [TensorValue] = []
        var last = -1
        for f in 0...5 {
            last = try add(&narrow, Spec(c: c, s: s, h: h, w: w, f: f,
                                         volume: widestVolume(fracBits: f, narrow: true), volumeStorage: .narrow,
                                         flow: widestFlow(fracBits: f, h: h, w: w, narrow: true), flowStorage: .narrow),
                           &rng, suffix: "_f\(f)", inputs: &narrowInputs)
        }
        let narrowCase = try G.finish(narrow, last: last, name: "warp_edge_narrow", inputs: narrowInputs)
        var wide = GraphBuilder(), wideInputs: [TensorValue] = []
        for f in [0, 3, 7, 10] {
            last = try add(&wide, Spec(c: c, s: s, h: h, w: w, f: f,
                                       volume: widestVolume(fracBits: f, narrow: false), volumeStorage: .wide,
                                       flow: widestFlow(fracBits: f, h: h, w: w, narrow: false), flowStorage: .wide,
                                       output: .wide),
                           &rng, suffix: "_f\(f)", inputs: &wideInputs)
        }
        last = try add(&wide, Spec(c: c, s: s, h: h, w: w, f: 5,
                                   volume: widestVolume(fracBits: 5, narrow: true), volumeStorage: .narrow,
                                   flow: widestFlow(fracBits: 5, h: h, w: w, narrow: false), flowStorage: .wide,
                                   output: .wide),
                       &rng, suffix: "_narrow_volume", inputs: &wideInputs)
        last = try add(&wide, Spec(c: c, s: s, h: h, w: w, f: 6,
                                   volume: widestVolume(fracBits: 6, narrow: false), volumeStorage: .wide,
                                   flow: widestFlow(fracBits: 6, h: h, w: w, narrow: true), flowStorage: .narrow,
                                   output: .wide),
                       &rng, suffix: "_narrow_flow", inputs: &wideInputs)
        return [narrowCase, try G.finish(wide, last: last, name: "warp_edge_wide", inputs: wideInputs)]
    }

    /// `channels`: C across SIMD widths and tiles, odd ones among them, with S = 1 and
    /// larger S (the volume has S·C channels), on a 3×11 plane (a partial vector per row).
    static let channelCounts = [1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 129]
    static let channelScales = [1, 3, 2, 5, 4]
    static let repeated: Set<String> = ["warp_c33_s4", "warp_wide_strip"]

    static func channels() throws -> [ProbeCase] {
        var cases = try channelCounts.enumerated().map { k, c in
            let s = channelScales[k % channelScales.count]
            let (h, w, f) = (3, 11, 4)
            return try single("warp_c\(c)_s\(s)",
                              Spec(c: c, s: s, h: h, w: w, f: f, volume: G.interval(-2048, 2047), volumeStorage: .narrow,
                                   flow: G.interval(-Int64(w + 2) << f, Int64(w + 2) << f), flowStorage: .narrow),
                              seed: 0x5741_5250_4348_0000 &+ UInt64(c))
        }
        for i in cases.indices where repeated.contains(cases[i].name) { cases[i].repeated = true }
        return cases
    }

    /// `scale`: a 3×4103 and a 4103×3 strip (past 64, 256 and 4096 samples along one axis,
    /// a partial tile of 7), C = 3, S = 4, F = 5, flow reaching across the whole strip.
    static func scale() throws -> [ProbeCase] {
        var cases = try [("warp_wide_strip", 3, 4103), ("warp_tall_strip", 4103, 3)].map { name, h, w in
            let f = 5
            let reach = Int64(max(h, w) + 8) << f
            return try single(name, Spec(c: 3, s: 4, h: h, w: w, f: f,
                                         volume: widestVolume(fracBits: f, narrow: true), volumeStorage: .narrow,
                                         flow: G.interval(-reach, reach), flowStorage: .wide),
                              seed: 0x5741_5250_5354_5250 &+ UInt64(h))
        }
        for i in cases.indices where repeated.contains(cases[i].name) { cases[i].repeated = true }
        return cases
    }
}
