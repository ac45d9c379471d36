/// Stage `scale`: every op where kernels tile, chunk and index: rows past 64, 256 and 4096
/// columns and columns past 4096 rows (strips, so the reference stays cheap), a plane past
/// 2^16 elements, a tensor past 2^20 elements, and a plane past 2^24 elements — every size
/// leaving a partial tile on every axis and none a multiple of 2^16.
enum ScaleCases {
    static let seed: UInt64 = 0x5343_414C_4553_3234

    /// (tag, channels, height, width): 3×4103 and 4103×3 strips, a 259×263 plane
    /// (68117 elements), a 1031×1033 plane (1065023 elements, more than 2^20).
    static let shapes: [(String, Int, Int, Int)] = [
        ("wide_strip", 2, 3, 4103), ("tall_strip", 2, 4103, 3), ("plane_2e16", 2, 259, 263), ("plane_2e20", 1, 1031, 1033),
    ]
    /// The plane past 2^24 elements: 4099×4097 = 16793603.
    static let hugeShape = (height: 4099, width: 4097)

    /// Run again by the repetition stage: the convs and inverse GDNs on large planes.
    static let repeated: Set<String> = ["conv2d_3x3_wide_strip", "conv2d_3x3_plane_2e16", "inverse_gdn_plane_2e16",
                                        "inverse_gdn_wide_strip", "conv_transpose2d_plane_2e16", "add_plane_2e16"]

    static func all() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: seed)
        var cases: [ProbeCase] = []
        for (tag, c, h, w) in shapes {
            // Past 2^20 elements only the flat elementwise ops, which chunk whole tensors;
            // the others index planes, which the 2^16 plane and the strips already cover,
            // and would double the stage on a slow unit.
            let large = h * w > 1 << 20
            if !large {
                cases.append(try OpGraphs.conv2d(&rng, name: "conv2d_3x3_\(tag)", cin: c, cout: c, h: h, w: w,
                                                 kernel: 3, stride: 1, pad: 1))
                cases.append(try OpGraphs.conv2d(&rng, name: "conv2d_5x5_s2_\(tag)", cin: c, cout: 3, h: h, w: w,
                                                 kernel: 5, stride: 2, pad: 2))
                cases.append(try OpGraphs.convTranspose(&rng, name: "conv_transpose2d_\(tag)", cin: c, cout: c, outH: h, outW: w))
                cases.append(try OpGraphs.inverseGDN(&rng, name: "inverse_gdn_\(tag)", channels: c, h: h, w: w))
                cases.append(try OpGraphs.concat(&rng, name: "concat_\(tag)", c1: c, c2: 1, h: h, w: w))
                cases.append(try OpGraphs.depthToSpace(&rng, name: "depth_to_space_\(tag)", channels: 1,
                                                       h: max(1, h / 2), w: max(1, w / 2)))
            }
            for op in ["requantize", "clamp", "add", "lookup"] {
                cases.append(try OpGraphs.single(&rng, op, name: "\(op)_\(tag)", shape: Shape(c, h, w)))
            }
        }
        cases.append(try huge(&rng))
        for i in cases.indices where repeated.contains(cases[i].name) { cases[i].repeated = true }
        return cases
    }

    /// requantize on a plane past 2^24 elements: the cheapest op that still indexes the
    /// whole plane with per-channel parameters and writes every element (docs/probe.md
    /// `scale`: the other ops index such planes the same way, and would triple the stage).
    static func huge(_ rng: inout SplitMix64) throws -> ProbeCase {
        let (h, w) = hugeShape
        var b = GraphBuilder()
        let iv = Interval(lo: -100_000, hi: 100_000)
        let shape = Shape(1, h, w)
        let x = b.input("x", shape, storage: .wide, interval: iv)
        let y = try b.requantize(x, RequantizeParams(multiplier: [3], shift: [2], lo: -60_000, hi: 60_000),
                                 storage: .wide, name: "y")
        // Inputs drawn from the shape-independent generator would take most of the stage's
        // time; an affine sequence through the interval, with both ends, is as good here.
        var v = [Int32](repeating: 0, count: shape.count)
        let span = iv.hi - iv.lo + 1
        var s = Int64(rng.int(0, span - 1))
        let step = Int64(rng.int(1, 9973)) * 2 + 1
        v.withUnsafeMutableBufferPointer { p in
            for i in 0..<p.count {
                p[i] = Int32(truncatingIfNeeded: iv.lo &+ s)
                s &+= step
                if s >= span { s &-= span }
            }
        }
        v[0] = Int32(iv.lo)
        v[v.count - 1] = Int32(iv.hi)
        return try ProbeGraphs.finish(b, last: y, name: "requantize_plane_2e24",
                                      inputs: [TensorValue(shape: shape, values: v)])
    }
}
