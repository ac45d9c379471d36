/// Stage `arithmetic`: every op alone at random small shapes, parameters and inputs from a
/// fixed seed, once with narrow storage wherever the intervals allow and once all wide.
enum ArithmeticCases {
    typealias G = ProbeGraphs
    static let seed: UInt64 = 0x5741_4948_4152_4954

    /// Transposed-conv geometries that trip up padding and output_pad handling:
    /// (kernel, stride, pad, output_pad).
    static let transposedGeometries: [(Int, Int, Int, Int)] = [
        (5, 2, 2, 1), (3, 2, 1, 1), (3, 1, 1, 0), (4, 2, 1, 0), (5, 3, 0, 2),
        (2, 2, 0, 0), (3, 3, 2, 1), (5, 2, 0, 1), (5, 2, 4, 0), (1, 2, 0, 1),
    ]

    static func all() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: seed)
        var cases: [ProbeCase] = []
        for width in [Storage.narrow, .wide] {
            let w = width == .narrow ? "narrow" : "wide"
            for i in 0..<8 { cases.append(try conv(&rng, width, name: "conv2d_\(w)_\(i)", transposed: false, geometry: nil)) }
            for i in 0..<8 { cases.append(try conv(&rng, width, name: "conv_transpose2d_\(w)_\(i)", transposed: true, geometry: nil)) }
            for (i, g) in transposedGeometries.enumerated() {
                cases.append(try conv(&rng, width, name: "conv_transpose2d_\(w)_k\(g.0)s\(g.1)p\(g.2)op\(g.3)_\(i)",
                                      transposed: true, geometry: g))
            }
            for i in 0..<10 { cases.append(try requantize(&rng, width, name: "requantize_\(w)_\(i)")) }
            for i in 0..<6 { cases.append(try add(&rng, width, name: "add_\(w)_\(i)")) }
            for i in 0..<6 { cases.append(try clamp(&rng, width, name: "clamp_\(w)_\(i)")) }
            for i in 0..<6 { cases.append(try depthToSpace(&rng, width, name: "depth_to_space_\(w)_\(i)")) }
            for i in 0..<6 { cases.append(try concat(&rng, width, name: "concat_\(w)_\(i)")) }
            for i in 0..<8 { cases.append(try lookup(&rng, width, name: "lookup_\(w)_\(i)")) }
            for i in 0..<10 { cases.append(try inverseGDN(&rng, width, name: "inverse_gdn_\(w)_\(i)")) }
        }
        return cases
    }

    // MARK: - intervals and retries

    /// A random interval within [-magnitude, magnitude] (narrow: down to -32768 when the
    /// magnitude is the whole narrow range): straddling zero, all positive or all negative.
    static func randomInterval(_ rng: inout SplitMix64, magnitude: Int64, narrow: Bool) -> Interval {
        var m = rng.pick([7, 255, 4095, magnitude])
        m = min(m, magnitude)
        let floor: Int64 = narrow && magnitude >= 32767 ? -32768 : -magnitude
        let lo: Int64, hi: Int64
        switch rng.int(0...3) {
        case 0: lo = rng.int(0, m); hi = rng.int(lo, m)
        case 1: hi = -rng.int(0, m); lo = max(floor, hi - rng.int(0, m))
        default: lo = max(floor, -rng.int(0, m) - (rng.bool() ? 1 : 0)); hi = rng.int(0, m)
        }
        return Interval(lo: lo, hi: hi)
    }

    /// Certificates reject parameter draws whose intermediates could leave int32; such a
    /// draw is retried with smaller magnitudes (attempt 1, 2, … shrinks by 4^attempt).
    static func retrying(_ make: (Int) throws -> ProbeCase) throws -> ProbeCase {
        var lastError: Error?
        for attempt in 0..<12 {
            do { return try make(attempt) } catch let e as GraphError { lastError = e }
        }
        throw lastError!
    }

    static func storage(_ width: Storage, _ interval: Interval) -> Storage {
        width == .narrow && Storage.narrow.range.contains(interval) ? .narrow : .wide
    }

    static func outStorage(_ width: Storage) -> Storage? { width == .wide ? .wide : nil }

    // MARK: - ops

    static func conv(_ rng: inout SplitMix64, _ width: Storage, name: String, transposed: Bool,
                     geometry: (Int, Int, Int, Int)?) throws -> ProbeCase {
        let cin = rng.int(1...4), cout = rng.int(1...4)
        let kh: Int, kw: Int, stride: Int, pad: Int, outputPad: Int
        if let g = geometry {
            (kh, kw, stride, pad, outputPad) = (g.0, g.0, g.1, g.2, g.3)
        } else {
            kh = rng.int(1...5); kw = rng.int(1...5); stride = rng.int(1...3)
            pad = rng.int(0...(min(kh, kw) - 1))
            outputPad = transposed ? rng.int(0...(stride - 1)) : 0
        }
        var h = rng.int(1...8), w = rng.int(1...8)
        func fits(_ n: Int, _ k: Int) -> Bool {
            transposed ? (n - 1) * stride - 2 * pad + k + outputPad >= 1 : n + 2 * pad >= k
        }
        while !fits(h, kh) { h += 1 }
        while !fits(w, kw) { w += 1 }
        let weightMag = rng.pick([3, 127, 32767] as [Int64])
        let wideMag: Int64 = 1 << 20
        let baseInterval = randomInterval(&rng, magnitude: width == .narrow ? 32767 : wideMag, narrow: width == .narrow)
        let weights0 = (0..<(cin * cout * kh * kw)).map { _ in rng.int(-weightMag - 1, weightMag) }
        let bias = (0..<cout).map { _ in rng.int32(-(1 << 20), 1 << 20) }
        let seed = rng.next()
        return try retrying { attempt in
            let shrink = Int64(2 * attempt)
            let iv = Interval(lo: baseInterval.lo >> shrink, hi: baseInterval.hi >> shrink)
            let weights = weights0.map { Int16(clamping: $0 >> shrink) }
            var b = GraphBuilder()
            let x = b.input("x", Shape(cin, h, w), storage: storage(width, iv), interval: iv)
            let p = ConvParams(kernelH: kh, kernelW: kw, stride: stride, pad: pad, outputPad: outputPad,
                               weights: weights, bias: bias)
            let y = transposed ? try b.convTranspose2d(x, p, storage: outStorage(width), name: "y")
                               : try b.conv2d(x, p, storage: outStorage(width), name: "y")
            var r = SplitMix64(seed: seed)
            let v = G.values(&r, count: cin * h * w, in: iv)
            return try G.finish(b, last: y, name: name, inputs: [TensorValue(shape: Shape(cin, h, w), values: v)])
        }
    }

    static func requantize(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let c = rng.int(1...4)
        let m = (0..<c).map { _ in Int32(clamping: max(1, rng.int(1, Int64(1) << rng.int(0...30)))) }
        let s = (0..<c).map { _ in Int32(rng.int(0...31)) }
        var bound = Int64(Int32.max)
        for k in 0..<c {
            let half: Int64 = s[k] == 0 ? 0 : Int64(1) << (s[k] - 1)
            bound = min(bound, (Int64(Int32.max) - half) / Int64(m[k]))
        }
        // -32768 only when the multipliers leave room for it.
        let iv = randomInterval(&rng, magnitude: width == .narrow ? min(bound, 32767) : bound,
                                narrow: width == .narrow && bound >= 32768)
        var lo = Int32.min, hi = Int32.max
        if rng.bool() {
            let a = rng.int32(-100_000, 100_000), b2 = rng.int32(-100_000, 100_000)
            (lo, hi) = (min(a, b2), max(a, b2))
        }
        let shape = Shape(c, rng.int(1...4), rng.int(1...6))
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: storage(width, iv), interval: iv)
        let y = try b.requantize(x, RequantizeParams(multiplier: m, shift: s, lo: lo, hi: hi),
                                 storage: outStorage(width), name: "y")
        return try G.finish(b, last: y, name: name, inputs: [TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: iv))])
    }

    static func add(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let mag: Int64 = width == .narrow ? 16383 : 1 << 30
        let ia = randomInterval(&rng, magnitude: mag, narrow: width == .narrow)
        let ib = randomInterval(&rng, magnitude: mag, narrow: width == .narrow)
        let shape = Shape(rng.int(1...3), rng.int(1...5), rng.int(1...5))
        var b = GraphBuilder()
        let a = b.input("a", shape, storage: storage(width, ia), interval: ia)
        let c = b.input("b", shape, storage: storage(width, ib), interval: ib)
        let y = try b.add(a, c, storage: outStorage(width), name: "y")
        return try G.finish(b, last: y, name: name, inputs: [
            TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: ia)),
            TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: ib)),
        ])
    }

    static func clamp(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let iv = randomInterval(&rng, magnitude: width == .narrow ? 32767 : Int64(Int32.max), narrow: width == .narrow)
        let a = Int32(rng.int(iv.lo - 10, iv.hi + 10).clamped(to: G.int32Min...G.int32Max))
        let c = Int32(rng.int(iv.lo - 10, iv.hi + 10).clamped(to: G.int32Min...G.int32Max))
        let shape = Shape(rng.int(1...3), rng.int(1...5), rng.int(1...5))
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: storage(width, iv), interval: iv)
        let y = try b.clamp(x, lo: min(a, c), hi: max(a, c), storage: outStorage(width), name: "y")
        return try G.finish(b, last: y, name: name, inputs: [TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: iv))])
    }

    static func depthToSpace(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let r = rng.int(2...3)
        let shape = Shape(rng.int(1...3) * r * r, rng.int(1...4), rng.int(1...4))
        let iv = randomInterval(&rng, magnitude: width == .narrow ? 32767 : Int64(Int32.max), narrow: width == .narrow)
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: storage(width, iv), interval: iv)
        let y = try b.depthToSpace(x, block: r, storage: outStorage(width), name: "y")
        // Distinct values where the interval allows, so a wrong permutation always shows.
        var v = G.values(&rng, count: shape.count, in: iv)
        if iv.hi - iv.lo + 1 >= Int64(shape.count) {
            let start = rng.int(iv.lo, iv.hi - Int64(shape.count) + 1)
            v = (0..<shape.count).map { Int32(start + Int64($0)) }
            for i in stride(from: v.count - 1, to: 0, by: -1) { v.swapAt(i, rng.int(0...i)) }
        }
        return try G.finish(b, last: y, name: name, inputs: [TensorValue(shape: shape, values: v)])
    }

    static func concat(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let n = rng.int(1...4), h = rng.int(1...4), w = rng.int(1...4)
        var b = GraphBuilder()
        var ids: [Int] = [], inputs: [TensorValue] = []
        for k in 0..<n {
            let iv = randomInterval(&rng, magnitude: width == .narrow ? 32767 : Int64(Int32.max), narrow: width == .narrow)
            let st: Storage = width == .narrow ? storage(.narrow, iv) : (rng.bool() ? storage(.narrow, iv) : .wide)
            let shape = Shape(rng.int(1...3), h, w)
            ids.append(b.input("x\(k)", shape, storage: st, interval: iv))
            inputs.append(TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: iv)))
        }
        let y = try b.concat(ids, storage: outStorage(width), name: "y")
        return try G.finish(b, last: y, name: name, inputs: inputs)
    }

    static func lookup(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let len = rng.pick([1, 2, 17, 256, 1000])
        let tableMag: Int64 = width == .narrow ? 32767 : Int64(Int32.max)
        let table = (0..<len).map { _ in Int32(rng.int(-tableMag - 1, tableMag)) }
        let iv = randomInterval(&rng, magnitude: width == .narrow ? 32767 : 1 << 30, narrow: width == .narrow)
        // Offsets around the interval, so indices fall below, inside and beyond the table.
        let offset = Int32(rng.int(iv.lo - Int64(len), iv.hi))
        let shape = Shape(rng.int(1...3), rng.int(1...5), rng.int(1...5))
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: storage(width, iv), interval: iv)
        let y = try b.lookup(x, LookupParams(table: table, offset: offset), storage: outStorage(width), name: "y")
        return try G.finish(b, last: y, name: name, inputs: [TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: iv))])
    }

    static func inverseGDN(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let c = rng.int(1...4)
        let gammaMag = rng.pick([1, 64, 4096] as [Int64])
        let beta = (0..<c).map { _ in rng.bool() ? Int32(rng.int(0, 1 << 16)) : Int32(rng.int(0, 4)) }
        let gamma = (0..<(c * c)).map { _ in rng.int(0...3) == 0 ? Int32(0) : Int32(rng.int(0, gammaMag)) }
        let q = Int32(rng.int(0...12)), s = Int32(rng.int(0...16))
        let start = rng.pick([46340, 4095, 255] as [Int64])
        let shape = Shape(c, rng.int(1...4), rng.int(1...4))
        let seed = rng.next()
        let mode = rng.int(0...2)
        return try retrying { attempt in
            let mag = max(1, start >> Int64(attempt))
            let lim = width == .narrow ? min(mag, 32767) : mag
            let iv: Interval
            switch mode {
            case 0: iv = Interval(lo: -lim, hi: lim)
            case 1: iv = Interval(lo: 0, hi: lim)
            default: iv = Interval(lo: -lim, hi: -1)
            }
            var b = GraphBuilder()
            let x = b.input("x", shape, storage: storage(width, iv), interval: iv)
            let y = try b.inverseGDN(x, InverseGDNParams(beta: beta, gamma: gamma, squareShift: q, outShift: s),
                                     storage: outStorage(width), name: "y")
            var r = SplitMix64(seed: seed)
            return try G.finish(b, last: y, name: name, inputs: [TensorValue(shape: shape, values: G.values(&r, count: shape.count, in: iv))])
        }
    }
}

fileprivate extension Comparable {
    func clamped(to r: ClosedRange<Self>) -> Self { min(max(self, r.lowerBound), r.upperBound) }
}
