/// Stage `semantics`: hand-picked graphs at the places integer semantics go wrong on real
/// drivers — floor shifts of negatives at every count, rounding ties of both signs, the
/// int32 ends, sign extension of narrow storage, lookup index clamping, isqrt at perfect
/// squares and next to them (docs/probe.md).
enum SemanticsCases {
    typealias G = ProbeGraphs

    static func all() throws -> [ProbeCase] {
        var cases: [ProbeCase] = []
        for s in 0...31 { cases.append(try requantizeShift(s)) }
        cases.append(try requantizeMultipliers())
        cases.append(try requantizeClamp())
        cases.append(try clampInt32())
        cases.append(try addInt32Edges())
        cases.append(try narrowSignExtension())
        cases.append(try narrowInputs())
        cases.append(contentsOf: try lookupClamping())
        cases.append(try isqrtSquares())
        cases.append(try isqrtHigh())
        cases.append(try gdnTie(r: 3, shift: 1))
        cases.append(try gdnTie(r: 2, shift: 2))
        return cases
    }

    /// rnd(x, s) for m = 1 over the widest input interval the certificate allows at this s,
    /// with values at the int32 ends and at/around every tie of both signs.
    static func requantizeShift(_ s: Int) throws -> ProbeCase {
        let half: Int64 = s == 0 ? 0 : Int64(1) << (s - 1)
        let one = Int64(1) << s
        let iv = G.interval(G.int32Min, G.int32Max - half)
        var candidates: [Int64] = [iv.lo, iv.lo + 1, iv.lo + 2, iv.hi, iv.hi - 1, iv.hi - 2,
                                   -1, 0, 1, -2, 2, -3, 3, one, -one, one - 1, -one + 1, one + 1, -one - 1]
        if s >= 1 {
            candidates += [half, -half, half - 1, -half - 1, half + 1, -half + 1,
                           3 * half, -3 * half, 5 * half, -5 * half, -7 * half,
                           iv.lo + half, iv.lo + half - 1, iv.hi - half + 1]
        }
        var seen = Set<Int64>()
        let values = candidates.filter { iv.contains($0) && seen.insert($0).inserted }.map { Int32($0) }
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: iv)
        let y = try b.requantize(x, RequantizeParams(multiplier: [1], shift: [Int32(s)], lo: Int32.min, hi: Int32.max),
                                 storage: .wide, name: "y")
        return try G.finish(b, last: y, name: "requantize_shift_\(s)", inputs: [G.row(values)])
    }

    /// Per-channel multipliers and shifts: channel c shifts by c.
    static func requantizeMultipliers() throws -> ProbeCase {
        var rng = SplitMix64(seed: 0x5345_4D41_4E54_4943)
        let iv = G.interval(-65536, 65535)
        let width = 16
        var m: [Int32] = [], sh: [Int32] = [], values: [Int32] = []
        for c in 0..<32 {
            m.append(c == 0 ? 1 : rng.int32(1, 16383))
            sh.append(Int32(c))
            var row: [Int32] = [-65536, 65535, -1, 0]
            while row.count < width { row.append(Int32(rng.int(iv.lo, iv.hi))) }
            values += row
        }
        var b = GraphBuilder()
        let x = b.input("x", Shape(32, 1, width), storage: .wide, interval: iv)
        let y = try b.requantize(x, RequantizeParams(multiplier: m, shift: sh, lo: Int32.min, hi: Int32.max), name: "y")
        return try G.finish(b, last: y, name: "requantize_multipliers",
                            inputs: [TensorValue(shape: Shape(32, 1, width), values: values)])
    }

    /// The requantize clamp, both inside the range and at the int32 ends.
    static func requantizeClamp() throws -> ProbeCase {
        let values: [Int32] = [-1000, -999, -467, -466, -465, -1, 0, 1, 433, 434, 435, 999, 1000]
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(-1000, 1000))
        _ = try b.requantize(x, RequantizeParams(multiplier: [3], shift: [1], lo: -700, hi: 650), name: "clamped")
        let x2 = b.input("x2", Shape(1, 1, 6), storage: .wide, interval: G.interval(G.int32Min, G.int32Max))
        let y2 = try b.requantize(x2, RequantizeParams(multiplier: [1], shift: [0], lo: Int32.min + 1, hi: Int32.max - 1),
                                  name: "clamped_ends")
        let ends: [Int32] = [Int32.min, Int32.min + 1, Int32.min + 2, Int32.max - 2, Int32.max - 1, Int32.max]
        return try G.finish(b, last: y2, name: "requantize_clamp", inputs: [G.row(values), G.row(ends)])
    }

    /// clamp with bounds at and near the int32 ends.
    static func clampInt32() throws -> ProbeCase {
        let values: [Int32] = [Int32.min, Int32.min + 1, -8, -7, -6, -1, 0, 1, 4, 5, 6, Int32.max - 1, Int32.max]
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(G.int32Min, G.int32Max))
        _ = try b.clamp(x, lo: Int32.min, hi: Int32.max, name: "full")
        _ = try b.clamp(x, lo: Int32.min, hi: -7, name: "upper")
        _ = try b.clamp(x, lo: 5, hi: Int32.max, name: "lower")
        let last = try b.clamp(x, lo: 0, hi: 0, name: "point")
        return try G.finish(b, last: last, name: "clamp_int32", inputs: [G.row(values)])
    }

    /// Sums that land exactly on INT32_MIN and next to INT32_MAX.
    static func addInt32Edges() throws -> ProbeCase {
        let q: Int32 = 1 << 30
        let a: [Int32] = [-q, q - 1, -1, -q, 0, 12345]
        let bv: [Int32] = [-q, q - 1, 0, q - 1, -q, -12346]
        let c: [Int32] = [Int32.min, Int32.min, -1, Int32.min + 1, 0, -5]
        let d: [Int32] = [Int32.max, 0, 0, Int32.max, Int32.max, 4]
        var b = GraphBuilder()
        let ta = b.input("a", Shape(1, 1, a.count), storage: .wide, interval: G.interval(-(1 << 30), (1 << 30) - 1))
        let tb = b.input("b", Shape(1, 1, a.count), storage: .wide, interval: G.interval(-(1 << 30), (1 << 30) - 1))
        let tc = b.input("c", Shape(1, 1, a.count), storage: .wide, interval: G.interval(G.int32Min, 0))
        let td = b.input("d", Shape(1, 1, a.count), storage: .wide, interval: G.interval(0, G.int32Max))
        _ = try b.add(ta, tb, name: "a_plus_b")
        let last = try b.add(tc, td, name: "c_plus_d")
        return try G.finish(b, last: last, name: "add_int32_edges", inputs: [G.row(a), G.row(bv), G.row(c), G.row(d)])
    }

    /// -32768 and -1 stored narrow, then read by every kind of op: a backend that
    /// zero-extends (or truncates) a narrow load differs here.
    static func narrowSignExtension() throws -> ProbeCase {
        let values: [Int32] = [-40000, -32769, -32768, -32767, -256, -255, -2, -1, 0, 1, 255, 32766, 32767, 32768, 40000]
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(-40000, 40000))
        let n = try b.clamp(x, lo: -32768, hi: 32767, storage: .narrow, name: "narrow")
        _ = try b.add(n, n, name: "add_narrow")
        _ = try b.requantize(n, RequantizeParams(multiplier: [3], shift: [1], lo: Int32.min, hi: Int32.max),
                             storage: .wide, name: "requantize_wide")
        _ = try b.requantize(n, RequantizeParams(multiplier: [1], shift: [4], lo: -32768, hi: 32767), name: "requantize_narrow")
        _ = try b.conv2d(n, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [-1], bias: [0]), name: "negate")
        _ = try b.lookup(n, LookupParams(table: [-9, -5, -3, -1, 1, 3, 5, 9], offset: -4), name: "lookup_narrow")
        _ = try b.concat([n, x], name: "concat_narrow_wide")
        _ = try b.concat([n, n], name: "concat_narrow")
        let last = try b.inverseGDN(n, InverseGDNParams(beta: [1], gamma: [1], squareShift: 15, outShift: 8), name: "gdn_narrow")
        return try G.finish(b, last: last, name: "narrow_sign_extension", inputs: [G.row(values)])
    }

    /// A narrow graph input holding -32768 and -1, moved by the permuting ops.
    static func narrowInputs() throws -> ProbeCase {
        let a: [Int32] = [-32768, -1, 32767, -2,
                          -32767, 0, 1, -32768,
                          -1, -1, 32767, -256,
                          7, -32768, -1, 32766]
        let w: [Int32] = [5, -5, 70000, -70000, 0, 1, -1, Int32.max, Int32.min, 123, -123, 9, -9, 2, -2, 100000]
        var b = GraphBuilder()
        let ta = b.input("a", Shape(4, 2, 2), storage: .narrow, interval: G.interval(-32768, 32767))
        let tw = b.input("w", Shape(1, 4, 4), storage: .wide, interval: G.interval(G.int32Min, G.int32Max))
        let d = try b.depthToSpace(ta, block: 2, name: "d2s_narrow")
        _ = try b.add(d, d, name: "add_d2s")
        _ = try b.concat([ta, ta], name: "concat_narrow")
        _ = try b.clamp(ta, lo: -1, hi: 0, name: "clamp_narrow")
        let last = try b.concat([d, tw], storage: .wide, name: "concat_wide")
        return try G.finish(b, last: last, name: "narrow_inputs",
                            inputs: [TensorValue(shape: Shape(4, 2, 2), values: a),
                                     TensorValue(shape: Shape(1, 4, 4), values: w)])
    }

    /// Indices below 0 and beyond the end, including x − offset near the int32 ends.
    static func lookupClamping() throws -> [ProbeCase] {
        var cases: [ProbeCase] = []
        do {
            let table = (0..<16).map { Int32(37 * $0 - 300) }
            let values: [Int32] = [-1000, -22, -6, -5, -4, 0, 9, 10, 11, 12, 500, 1000]
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(-1000, 1000))
            let y = try b.lookup(x, LookupParams(table: table, offset: -5), name: "y")
            cases.append(try G.finish(b, last: y, name: "lookup_clamp_small", inputs: [G.row(values)]))
        }
        do {
            // x − offset spans nearly all of int32: signed comparisons or bust.
            let offset = Int32.max - 20
            let table: [Int32] = [-7, 11, -13, 17, -19, 23, -29, 31]
            let values: [Int32] = [-10, -1, 0, 1, Int32.max - 21, Int32.max - 20, Int32.max - 19,
                                   Int32.max - 14, Int32.max - 13, Int32.max - 12, Int32.max - 10]
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(-10, G.int32Max - 10))
            let y = try b.lookup(x, LookupParams(table: table, offset: offset), name: "y")
            cases.append(try G.finish(b, last: y, name: "lookup_clamp_high_offset", inputs: [G.row(values)]))
        }
        do {
            let offset = Int32.min + 20
            let table: [Int32] = [Int32.min, -1, 0, Int32.max]
            let values: [Int32] = [-10, -1, 0, 1, 18, 19]
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(-10, 19))
            let y = try b.lookup(x, LookupParams(table: table, offset: offset), name: "y")
            cases.append(try G.finish(b, last: y, name: "lookup_clamp_low_offset", inputs: [G.row(values)]))
        }
        do {
            let values: [Int32] = [Int32.min, -1, 0, 1, Int32.max]
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(G.int32Min, G.int32Max))
            let y = try b.lookup(x, LookupParams(table: [-42], offset: 0), name: "y")
            cases.append(try G.finish(b, last: y, name: "lookup_single_entry", inputs: [G.row(values)]))
        }
        return cases
    }

    /// isqrt(n) for n = k²−1, k², k²+1 for k up to 32768. Channel 0's n is
    /// 1 + x1² + x2² + x3² + x4² (four squares reach every n), and x0 = ±1 makes
    /// y0 = ±isqrt(n) visible directly.
    static func isqrtSquares() throws -> ProbeCase {
        let limit: Int64 = 23170
        var targets: [Int64] = [1, 2, 3, 5, 6, 7, 8, 9, 10]
        for k: Int64 in [2, 3, 4, 7, 8, 15, 16, 31, 181, 255, 256, 1023, 4095, 4096, 16383, 16384, 23170, 32767, 32768] {
            targets += [k * k - 1, k * k, k * k + 1]
        }
        var columns: [[Int32]] = []
        for (i, n) in targets.enumerated() {
            guard let sq = fourSquares(n - 1, limit: limit) else {
                throw ProbeSuiteError(stage: .semantics, graph: "isqrt_squares",
                                      underlying: "no four squares ≤ \(limit) sum to \(n - 1)")
            }
            columns.append([i % 3 == 2 ? -1 : 1] + sq.map { Int32($0) })
        }
        let width = columns.count
        var values = [Int32](repeating: 0, count: 5 * width)
        for (j, col) in columns.enumerated() {
            for c in 0..<5 { values[c * width + j] = col[c] }
        }
        var gamma = [Int32](repeating: 0, count: 25)
        for k in 1..<5 { gamma[k] = 1 }
        var b = GraphBuilder()
        let x = b.input("x", Shape(5, 1, width), storage: .wide, interval: G.interval(-limit, limit))
        let y = try b.inverseGDN(x, InverseGDNParams(beta: [1, 1, 1, 1, 1], gamma: gamma, squareShift: 0, outShift: 0), name: "y")
        return try G.finish(b, last: y, name: "isqrt_squares",
                            inputs: [TensorValue(shape: Shape(5, 1, width), values: values)])
    }

    /// isqrt at the top of int32: n_c = beta[c] + a², with a (channel 4) up to 46340 and
    /// betas 0, 1, 2·44024−2 and 2·30001−2, so n reaches k², k²+1 up to 46340²+1,
    /// 44024²−1 and 30001²−1, and 2^31−2 (beta 88046 + 46340²).
    static func isqrtHigh() throws -> ProbeCase {
        let a: [Int32] = [46340, 46339, 46338, 44023, 30000, 32768, 32767, 23170, 0, 1, 2, 3, 44024, 30001]
        let width = a.count
        var values: [Int32] = []
        for c in 0..<4 { values += (0..<width).map { ($0 + c) % 4 == 3 ? -1 : 1 } }
        values += a
        var gamma = [Int32](repeating: 0, count: 25)
        for c in 0..<4 { gamma[c * 5 + 4] = 1 }
        var b = GraphBuilder()
        let x = b.input("x", Shape(5, 1, width), storage: .wide, interval: G.interval(-46340, 46340))
        let y = try b.inverseGDN(x, InverseGDNParams(beta: [0, 1, 88046, 60000, 1], gamma: gamma, squareShift: 0, outShift: 0),
                                 name: "y")
        return try G.finish(b, last: y, name: "isqrt_high",
                            inputs: [TensorValue(shape: Shape(5, 1, width), values: values)])
    }

    /// Four non-negative integers ≤ limit whose squares sum to n (Lagrange), by a small
    /// deterministic search from the largest candidates down.
    static func fourSquares(_ n: Int64, limit: Int64) -> [Int64]? {
        // n = 4m forces every square to be even when m ≡ 7 (mod 8) or m ≡ 0 (mod 4), and
        // 2·(a representation of m) is always one of n: recurse rather than search.
        if n > 0 && n % 4 == 0, let half = fourSquares(n / 4, limit: limit / 2) { return half.map { 2 * $0 } }
        func search(_ rem: Int64, _ left: Int) -> [Int64]? {
            let top = min(isqrt(rem), limit)
            if left == 1 { return top * top == rem ? [top] : nil }
            var a = top
            var tries = 0
            while a >= 0 && tries < 64 {
                let r = rem - a * a
                // The rest must fit in (left − 1) squares of at most `limit` each.
                if r <= Int64(left - 1) * limit * limit, let tail = search(r, left - 1) { return [a] + tail }
                a -= 1; tries += 1
            }
            return nil
        }
        return search(n, 4)
    }

    static func isqrt(_ n: Int64) -> Int64 {
        guard n > 0 else { return 0 }
        var r = Int64(Double(n).squareRoot())
        while r * r > n { r -= 1 }
        while (r + 1) * (r + 1) <= n { r += 1 }
        return r
    }

    /// inverse_gdn's final rounding at ties: n = r² (γ = 0) so y = rnd(r·x, s).
    static func gdnTie(r: Int32, shift: Int32) throws -> ProbeCase {
        let values: [Int32] = [-1000, -999, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 999, 1000]
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, values.count), storage: .wide, interval: G.interval(-1000, 1000))
        let y = try b.inverseGDN(x, InverseGDNParams(beta: [r * r], gamma: [0], squareShift: 0, outShift: shift), name: "y")
        return try G.finish(b, last: y, name: "inverse_gdn_ties_r\(r)_s\(shift)", inputs: [G.row(values)])
    }
}
