/// Stage `parameters`: requantize multipliers from 2^24 − 1 up to 2^31 − 1 at every shift,
/// each on inputs that reach both ends of the widest interval the certificate allows for
/// that multiplier and shift (x·m and x·m + 2^(s−1) within int32), where a kernel that
/// multiplies in float, in 24 bits or with a pre-shifted multiplier loses low bits.
enum ParameterCases {
    typealias G = ProbeGraphs
    static let seed: UInt64 = 0x5041_5241_4D53_3234

    /// Multipliers around 2^24 (where 24-bit multipliers and float mantissas end), with low
    /// bits set, near 2^30 and 2^31, and a few drawn above 2^24; small ones for contrast.
    static func multipliers(_ rng: inout SplitMix64) -> [Int64] {
        let fixed: [Int64] = [3, 65537, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, (1 << 24) + 0xFF, 0x0123_4567,
                              0x00FF_FFFF + 0x1_0101, (1 << 30) - 1, (1 << 30) + 1, 0x7FFF_FF01, Int64(Int32.max)]
        return fixed + (0..<4).map { _ in rng.int(1 << 24, Int64(Int32.max)) | 1 }
    }

    static func all() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: seed)
        let ms = multipliers(&rng)
        var cases: [ProbeCase] = []
        for s in 0...31 {
            var b = GraphBuilder()
            var inputs: [TensorValue] = []
            var last = 0
            let bias = IntegerMath.roundingBias(Int64(s))
            for (k, m) in ms.enumerated() {
                // The certificate's edge for this m and s: x·m ≥ INT32_MIN, x·m + 2^(s−1) ≤ INT32_MAX.
                let hi = (Int64(Int32.max) - bias) / m
                let lo = -((Int64(1) << 31) / m)
                let iv = Interval(lo: lo, hi: hi)
                let width = 16
                var v = G.values(&rng, count: width, in: iv)
                // Both ends, their neighbours, and the values around zero.
                let specials = [lo, hi, min(lo + 1, hi), max(hi - 1, lo), 0, 1, -1].filter { iv.contains($0) }
                for (j, x) in specials.enumerated() { v[j] = Int32(x) }
                let x = b.input("x\(k)", Shape(1, 1, width), storage: .wide, interval: iv)
                inputs.append(TensorValue(shape: Shape(1, 1, width), values: v))
                last = try b.requantize(x, RequantizeParams(multiplier: [Int32(m)], shift: [Int32(s)],
                                                            lo: Int32.min, hi: Int32.max),
                                        storage: .wide, name: "y\(k)_m\(m)")
            }
            cases.append(try G.finish(b, last: last, name: "requantize_multiplier_edges_shift_\(s)", inputs: inputs))
        }
        return cases
    }
}
