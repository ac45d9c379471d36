// One function per op of docs/integer-ops.md §4, written from the formulas. Every
// intermediate is formed in Int64 and checked against int32 before it is used, so a wrong
// certificate shows up as ReferenceError.overflow, never as a wrapped value or a trap.
// Loops run over contiguous planes through buffer pointers, and the innermost ones are
// plain while loops, only so that a whole synthesis graph finishes in seconds (and a debug
// build is not hopeless); the index arithmetic is the formulas' own.
//
// The accumulating loops use wrapping operators (&+, &*) because they provably cannot wrap,
// and Swift's overflow traps would otherwise dominate their cost: an accumulator holds an
// int32 value before each tap pass (checked after every pass), a pass adds one term of at
// most 2^15·2^31 = 2^46 (conv) or 2^31·2^31 = 2^62 (inverse_gdn, where n ≥ 0 and the term
// ≥ 0) to it, and indices stay below 2^28 (validated shapes). So no sum leaves Int64, and the
// check after the pass sees every partial sum that left int32.

struct ReferenceSite {
    var node: Int
    var op: String
    var tensor: Int
    var name: String

    func overflow(_ intermediate: String, index: Int, value: Int64) -> ReferenceError {
        .overflow(node: node, op: op, tensor: tensor, name: name, index: index, intermediate: intermediate, value: value)
    }

    @inline(__always)
    func int32(_ v: Int64, _ intermediate: @autoclosure () -> String, index: Int) throws -> Int64 {
        guard IntegerMath.fitsInt32(v) else { throw overflow(intermediate(), index: index, value: v) }
        return v
    }
}

enum ReferenceKernels {
    /// Indices k in 0..<count with 0 ≤ k·stride + offset < limit: a contiguous run, because
    /// k·stride + offset grows with k.
    static func validRange(count: Int, stride: Int, offset: Int, limit: Int) -> Range<Int> {
        var lo = 0
        while lo < count && lo * stride + offset < 0 { lo += 1 }
        var hi = count
        while hi > lo && (hi - 1) * stride + offset >= limit { hi -= 1 }
        return lo..<hi
    }

    /// After one tap pass, which adds at most one term to each accumulator, a value that
    /// left int32 is still in the plane: find it for the error.
    static func planeOverflow(_ acc: UnsafeMutableBufferPointer<Int64>, base: Int, site: ReferenceSite,
                              _ intermediate: String) -> ReferenceError {
        let k = acc.firstIndex(where: { !IntegerMath.fitsInt32($0) }) ?? 0
        return site.overflow(intermediate, index: base + k, value: acc[k])
    }

    /// §4.1 y[o][i][j] = b[o] + Σ_{c,u,v} w[o][c][u][v] · x[c][i·stride − pad + u][j·stride − pad + v].
    static func conv2d(_ xs: [Int32], _ xShape: Shape, _ p: ConvParams, _ yShape: Shape, site: ReferenceSite) throws -> [Int32] {
        let (cin, h, w) = (xShape.channels, xShape.height, xShape.width)
        let (cout, ho, wo) = (yShape.channels, yShape.height, yShape.width)
        let (kh, kw, s, pad) = (p.kernelH, p.kernelW, p.stride, p.pad)
        let plane = ho * wo
        var y = [Int32](repeating: 0, count: cout * plane)
        var accStore = [Int64](repeating: 0, count: plane)
        try xs.withUnsafeBufferPointer { x in
            try p.weights.withUnsafeBufferPointer { weights in
                try accStore.withUnsafeMutableBufferPointer { acc in
                    for o in 0..<cout {
                        for k in 0..<plane { acc[k] = Int64(p.bias[o]) }
                        for c in 0..<cin {
                            for u in 0..<kh {
                                for v in 0..<kw {
                                    let wt = Int64(weights[((o * cin + c) * kh + u) * kw + v])
                                    if wt == 0 { continue }
                                    let cols = validRange(count: wo, stride: s, offset: v - pad, limit: w)
                                    var lo = Int64.max, hi = Int64.min
                                    for i in 0..<ho {
                                        let r = i * s - pad + u
                                        if r < 0 || r >= h { continue }
                                        let xRow = (c * h + r) * w + v - pad
                                        let yRow = i * wo
                                        var j = cols.lowerBound
                                        while j < cols.upperBound {
                                            let sum = acc[yRow &+ j] &+ wt &* Int64(x[xRow &+ j &* s])
                                            acc[yRow &+ j] = sum
                                            if sum < lo { lo = sum }
                                            if sum > hi { hi = sum }
                                            j &+= 1
                                        }
                                    }
                                    if lo < Int64(Int32.min) || hi > Int64(Int32.max) {
                                        throw planeOverflow(acc, base: o * plane, site: site, "partial sum")
                                    }
                                }
                            }
                        }
                        for k in 0..<plane { y[o * plane + k] = Int32(acc[k]) }
                    }
                }
            }
        }
        return y
    }

    /// §4.2 y[o][i][j] = b[o] + Σ { w[c][o][u][v] · x[c][a][bb] : a·stride − pad + u = i,
    /// bb·stride − pad + v = j }: each input element is scattered to the outputs it feeds.
    static func convTranspose2d(_ xs: [Int32], _ xShape: Shape, _ p: ConvParams, _ yShape: Shape,
                                site: ReferenceSite) throws -> [Int32] {
        let (cin, h, w) = (xShape.channels, xShape.height, xShape.width)
        let (cout, ho, wo) = (yShape.channels, yShape.height, yShape.width)
        let (kh, kw, s, pad) = (p.kernelH, p.kernelW, p.stride, p.pad)
        let plane = ho * wo
        var y = [Int32](repeating: 0, count: cout * plane)
        var accStore = [Int64](repeating: 0, count: plane)
        try xs.withUnsafeBufferPointer { x in
            try p.weights.withUnsafeBufferPointer { weights in
                try accStore.withUnsafeMutableBufferPointer { acc in
                    for o in 0..<cout {
                        for k in 0..<plane { acc[k] = Int64(p.bias[o]) }
                        for c in 0..<cin {
                            for u in 0..<kh {
                                for v in 0..<kw {
                                    let wt = Int64(weights[((c * cout + o) * kh + u) * kw + v])
                                    if wt == 0 { continue }
                                    let cols = validRange(count: w, stride: s, offset: v - pad, limit: wo)
                                    var lo = Int64.max, hi = Int64.min
                                    for a in 0..<h {
                                        let i = a * s - pad + u
                                        if i < 0 || i >= ho { continue }
                                        let xRow = (c * h + a) * w
                                        let yRow = i * wo + v - pad
                                        var bb = cols.lowerBound
                                        while bb < cols.upperBound {
                                            let k = yRow &+ bb &* s
                                            let sum = acc[k] &+ wt &* Int64(x[xRow &+ bb])
                                            acc[k] = sum
                                            if sum < lo { lo = sum }
                                            if sum > hi { hi = sum }
                                            bb &+= 1
                                        }
                                    }
                                    if lo < Int64(Int32.min) || hi > Int64(Int32.max) {
                                        throw planeOverflow(acc, base: o * plane, site: site, "partial sum")
                                    }
                                }
                            }
                        }
                        for k in 0..<plane { y[o * plane + k] = Int32(acc[k]) }
                    }
                }
            }
        }
        return y
    }

    /// §4.3 y = clamp(rnd(x·m[c], s[c]), lo, hi).
    static func requantize(_ x: [Int32], _ shape: Shape, _ p: RequantizeParams, site: ReferenceSite) throws -> [Int32] {
        let plane = shape.height * shape.width
        var y = [Int32](repeating: 0, count: x.count)
        for c in 0..<shape.channels {
            let m = Int64(p.multiplier[c]), s = Int64(p.shift[c])
            let bias = IntegerMath.roundingBias(s)
            for k in c * plane..<(c + 1) * plane {
                let prod = try site.int32(Int64(x[k]) * m, "x·m", index: k)
                _ = try site.int32(prod + bias, "x·m + 2^(s−1)", index: k)
                y[k] = Int32(IntegerMath.clamp(IntegerMath.rnd(prod, s), Int64(p.lo), Int64(p.hi)))
            }
        }
        return y
    }

    /// §4.4 y = a + b.
    static func add(_ a: [Int32], _ b: [Int32], site: ReferenceSite) throws -> [Int32] {
        var y = [Int32](repeating: 0, count: a.count)
        for k in 0..<a.count {
            y[k] = Int32(try site.int32(Int64(a[k]) + Int64(b[k]), "a + b", index: k))
        }
        return y
    }

    /// §4.5 y = clamp(x, lo, hi).
    static func clamp(_ x: [Int32], lo: Int32, hi: Int32) -> [Int32] {
        x.map { Int32(IntegerMath.clamp(Int64($0), Int64(lo), Int64(hi))) }
    }

    /// §4.6 y[c][i·r + u][j·r + v] = x[c·r² + u·r + v][i][j].
    static func depthToSpace(_ x: [Int32], _ xShape: Shape, block r: Int) -> [Int32] {
        let (h, w) = (xShape.height, xShape.width)
        let (yc, yh, yw) = (xShape.channels / (r * r), h * r, w * r)
        var y = [Int32](repeating: 0, count: x.count)
        for c in 0..<yc {
            for i in 0..<h {
                for j in 0..<w {
                    for u in 0..<r {
                        for v in 0..<r {
                            y[(c * yh + i * r + u) * yw + j * r + v] = x[((c * r * r + u * r + v) * h + i) * w + j]
                        }
                    }
                }
            }
        }
        return y
    }

    /// §4.7 the inputs' channels in input order; CHW makes that plain concatenation.
    static func concat(_ xs: [[Int32]]) -> [Int32] {
        var y: [Int32] = []
        y.reserveCapacity(xs.reduce(0) { $0 + $1.count })
        for x in xs { y.append(contentsOf: x) }
        return y
    }

    /// §4.8 y = t[clamp(x − offset, 0, L − 1)].
    static func lookup(_ x: [Int32], _ p: LookupParams, site: ReferenceSite) throws -> [Int32] {
        let last = Int64(p.table.count - 1)
        var y = [Int32](repeating: 0, count: x.count)
        for k in 0..<x.count {
            let d = try site.int32(Int64(x[k]) - Int64(p.offset), "x − offset", index: k)
            y[k] = p.table[Int(IntegerMath.clamp(d, 0, last))]
        }
        return y
    }

    /// §4.9 sq[k] = (x[k]·x[k]) >> q; n[c] = beta[c] + Σ_k gamma[c][k]·sq[k];
    /// y[c] = rnd(x[c]·isqrt(n[c]), s), at every position independently.
    static func inverseGDN(_ xs: [Int32], _ shape: Shape, _ p: InverseGDNParams, site: ReferenceSite) throws -> [Int32] {
        let (channels, plane) = (shape.channels, shape.height * shape.width)
        let q = Int64(p.squareShift), s = Int64(p.outShift)
        let bias = IntegerMath.roundingBias(s)
        var sq = [Int32](repeating: 0, count: xs.count)
        for k in 0..<xs.count {
            let xx = try site.int32(Int64(xs[k]) * Int64(xs[k]), "x·x", index: k)
            sq[k] = Int32(IntegerMath.floorShift(xx, q))
        }
        var y = [Int32](repeating: 0, count: xs.count)
        var nStore = [Int64](repeating: 0, count: plane)
        try sq.withUnsafeBufferPointer { sqp in
            try nStore.withUnsafeMutableBufferPointer { n in
                for c in 0..<channels {
                    for k in 0..<plane { n[k] = Int64(p.beta[c]) }
                    for k in 0..<channels {
                        let g = Int64(p.gamma[c * channels + k])
                        if g == 0 { continue }
                        var lo = Int64.max, hi = Int64.min
                        let base = k * plane
                        for pos in 0..<plane {
                            let sum = n[pos] &+ g &* Int64(sqp[base &+ pos])
                            n[pos] = sum
                            if sum < lo { lo = sum }
                            if sum > hi { hi = sum }
                        }
                        if lo < Int64(Int32.min) || hi > Int64(Int32.max) {
                            throw planeOverflow(n, base: c * plane, site: site, "partial sum of n")
                        }
                    }
                    for pos in 0..<plane {
                        let index = c * plane + pos
                        // n ≥ 0 here: beta, gamma and sq are all ≥ 0 (structure check, §4.9).
                        let r = IntegerMath.isqrt(n[pos])
                        let xr = try site.int32(Int64(xs[index]) * r, "x·isqrt(n)", index: index)
                        _ = try site.int32(xr + bias, "x·isqrt(n) + 2^(s−1)", index: index)
                        y[index] = Int32(IntegerMath.rnd(xr, s))
                    }
                }
            }
        }
        return y
    }
}
