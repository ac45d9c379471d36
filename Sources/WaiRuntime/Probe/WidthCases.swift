/// Stage `widths`: every op once with narrow storage and once with wide, with narrow
/// tensors reaching exactly -32768 and 32767 (the edge of the narrow kernels' bound) and
/// conv accumulators a few thousand short of the int32 ends.
enum WidthCases {
    typealias G = ProbeGraphs
    static let seed: UInt64 = 0x5749_4454_4853_3136
    static let narrowFull = Interval(lo: -32768, hi: 32767)

    static func all() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: seed)
        var cases: [ProbeCase] = []
        for width in [Storage.narrow, .wide] {
            let w = width == .narrow ? "narrow" : "wide"
            cases.append(try convIdentity(&rng, width, name: "conv2d_edge_\(w)", transposed: false))
            cases.append(try convIdentity(&rng, width, name: "conv_transpose2d_edge_\(w)", transposed: true))
            cases.append(try requantizeEdges(&rng, width, name: "requantize_edge_\(w)"))
            cases.append(try addEdges(&rng, width, name: "add_edge_\(w)"))
            cases.append(try clampEdges(&rng, width, name: "clamp_edge_\(w)"))
            cases.append(try depthToSpaceEdges(&rng, width, name: "depth_to_space_edge_\(w)"))
            cases.append(try concatEdges(&rng, width, name: "concat_edge_\(w)"))
            cases.append(try lookupEdges(width, name: "lookup_edge_\(w)"))
            cases.append(try gdnEdges(&rng, width, name: "inverse_gdn_edge_\(w)"))
        }
        cases.append(try convAccumulators1x1())
        cases.append(try convAccumulators3x3(transposed: false))
        cases.append(try convAccumulators3x3(transposed: true))
        return cases
    }

    /// Values of a narrow-range tensor: both ends and their neighbours first, then random.
    static func edgeValues(_ rng: inout SplitMix64, count: Int) -> [Int32] {
        let ends: [Int32] = [-32768, 32767, -32767, 32766, -1, 0, 1, -32768, 32767]
        return (0..<count).map { $0 < ends.count ? ends[$0] : Int32(rng.int(-32768, 32767)) }
    }

    static func input(_ b: inout GraphBuilder, _ name: String, _ shape: Shape, _ width: Storage,
                      _ iv: Interval = narrowFull) -> Int {
        b.input(name, shape, storage: width, interval: iv)
    }

    /// Output storage: narrow variants let the builder pick (narrow when the interval
    /// fits), wide variants force wide.
    static func out(_ width: Storage) -> Storage? { width == .wide ? .wide : nil }

    static func convIdentity(_ rng: inout SplitMix64, _ width: Storage, name: String, transposed: Bool) throws -> ProbeCase {
        let shape = Shape(2, 3, 4)
        var b = GraphBuilder()
        let x = input(&b, "x", shape, width)
        // 1×1 identity per channel keeps [-32768, 32767] exactly; the sign flip makes 32768.
        let ident = ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [1, 0, 0, 1], bias: [0, 0])
        let y = transposed ? try b.convTranspose2d(x, ident, storage: out(width), name: "identity")
                           : try b.conv2d(x, ident, storage: out(width), name: "identity")
        let flip = ConvParams(kernelH: 2, kernelW: 2, stride: 2, pad: 0, weights: [-1, 0, 0, 1, 0, 1, -1, 0], bias: [0])
        let last: Int
        if transposed {
            // [cin][cout][kh][kw] with cout = 1, stride = kernel: one tap per input channel.
            last = try b.convTranspose2d(y, ConvParams(kernelH: 2, kernelW: 2, stride: 2, pad: 0,
                                                       weights: [-1, 1, 1, -1, 1, -1, -1, 1], bias: [0]),
                                         name: "one_tap")
        } else {
            last = try b.conv2d(y, flip, name: "mixed")
        }
        return try G.finish(b, last: last, name: name,
                            inputs: [TensorValue(shape: shape, values: edgeValues(&rng, count: shape.count))])
    }

    static func requantizeEdges(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let shape = Shape(2, 2, 6)
        var b = GraphBuilder()
        let x = input(&b, "x", shape, width)
        _ = try b.requantize(x, RequantizeParams(multiplier: [1, 1], shift: [0, 0], lo: Int32.min, hi: Int32.max),
                             storage: out(width), name: "identity")
        _ = try b.requantize(x, RequantizeParams(multiplier: [3, 5], shift: [1, 2], lo: -32768, hi: 32767),
                             storage: out(width), name: "saturating")
        let last = try b.requantize(x, RequantizeParams(multiplier: [65535, 65535], shift: [0, 0], lo: Int32.min, hi: Int32.max),
                                    name: "to_wide")
        return try G.finish(b, last: last, name: name,
                            inputs: [TensorValue(shape: shape, values: edgeValues(&rng, count: shape.count))])
    }

    static func addEdges(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let shape = Shape(1, 2, 5)
        let half = Interval(lo: -16384, hi: 16383)
        let a: [Int32] = [-16384, 16383, -16384, 16383, -1, 0, 1, -16384, 7, -9]
        let c: [Int32] = [-16384, 16383, 16383, -16384, -1, 0, 0, -1, -7, 9]
        var b = GraphBuilder()
        let ta = input(&b, "a", shape, width, half)
        let tb = input(&b, "b", shape, width, half)
        let tf = input(&b, "full", shape, width)
        _ = try b.add(ta, tb, storage: out(width), name: "edge_sum")
        let last = try b.add(tf, tf, name: "double")
        return try G.finish(b, last: last, name: name, inputs: [
            TensorValue(shape: shape, values: a), TensorValue(shape: shape, values: c),
            TensorValue(shape: shape, values: edgeValues(&rng, count: shape.count)),
        ])
    }

    static func clampEdges(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let shape = Shape(1, 3, 4)
        var b = GraphBuilder()
        let x = input(&b, "x", shape, width)
        _ = try b.clamp(x, lo: -32768, hi: 32767, storage: out(width), name: "full")
        let last = try b.clamp(x, lo: -32767, hi: 32766, storage: out(width), name: "inner")
        return try G.finish(b, last: last, name: name,
                            inputs: [TensorValue(shape: shape, values: edgeValues(&rng, count: shape.count))])
    }

    static func depthToSpaceEdges(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let shape = Shape(8, 2, 3)
        var b = GraphBuilder()
        let x = input(&b, "x", shape, width)
        let last = try b.depthToSpace(x, block: 2, storage: out(width), name: "y")
        return try G.finish(b, last: last, name: name,
                            inputs: [TensorValue(shape: shape, values: edgeValues(&rng, count: shape.count))])
    }

    static func concatEdges(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let sa = Shape(2, 2, 3), sb = Shape(1, 2, 3)
        var b = GraphBuilder()
        let a = input(&b, "a", sa, width)
        let c = input(&b, "b", sb, width)
        let wide = b.input("w", sb, storage: .wide, interval: Interval(lo: G.int32Min, hi: G.int32Max))
        _ = try b.concat([a, c, a], storage: out(width), name: "same_width")
        let last = try b.concat([c, wide, a], name: "mixed")
        return try G.finish(b, last: last, name: name, inputs: [
            TensorValue(shape: sa, values: edgeValues(&rng, count: sa.count)),
            TensorValue(shape: sb, values: edgeValues(&rng, count: sb.count)),
            TensorValue(shape: sb, values: [Int32.min, Int32.max, -32769, 32768, -1, 0]),
        ])
    }

    /// The largest table (65536 entries) addressed by the whole narrow range.
    static func lookupEdges(_ width: Storage, name: String) throws -> ProbeCase {
        let shape = Shape(1, 2, 6)
        var b = GraphBuilder()
        let x = input(&b, "x", shape, width)
        let reverse = (0..<65536).map { Int32(32767 - $0) }
        let scaled = (0..<65536).map { Int32(($0 - 32768) * 65535) }
        _ = try b.lookup(x, LookupParams(table: reverse, offset: -32768), storage: out(width), name: "reverse")
        let last = try b.lookup(x, LookupParams(table: scaled, offset: -32768), name: "scaled")
        let v: [Int32] = [-32768, 32767, -32767, 32766, -1, 0, 1, 255, -256, 12345, -12345, 32767]
        return try G.finish(b, last: last, name: name, inputs: [TensorValue(shape: shape, values: v)])
    }

    /// n = x² reaches 2^30 and y = rnd(x·|x|, 15) reaches exactly -32768 and 32767.
    static func gdnEdges(_ rng: inout SplitMix64, _ width: Storage, name: String) throws -> ProbeCase {
        let shape = Shape(2, 2, 5)
        var b = GraphBuilder()
        let x = input(&b, "x", shape, width)
        _ = try b.inverseGDN(x, InverseGDNParams(beta: [0, 0], gamma: [1, 0, 0, 1], squareShift: 0, outShift: 15),
                             storage: out(width), name: "square_scaled")
        let last = try b.inverseGDN(x, InverseGDNParams(beta: [0, 7], gamma: [1, 1, 1, 1], squareShift: 1, outShift: 0),
                                    name: "mixed_to_wide")
        return try G.finish(b, last: last, name: name,
                            inputs: [TensorValue(shape: shape, values: edgeValues(&rng, count: shape.count))])
    }

    /// Two 1×1 taps of ±32767 on full-range narrow inputs, biases using up the remaining
    /// room: accumulators reach within 31070 of INT32_MAX and 5070 of INT32_MIN.
    static func convAccumulators1x1() throws -> ProbeCase {
        let shape = Shape(2, 1, 6)
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: .narrow, interval: narrowFull)
        let y = try b.conv2d(x, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0,
                                           weights: [32767, 32767, -32767, -32767], bias: [100_000, -60_000]),
                             name: "accumulators")
        let v: [Int32] = [-32768, 32767, -32768, 32767, 0, -1,
                          -32768, 32767, 32767, -32768, 0, -1]
        return try G.finish(b, last: y, name: "conv2d_accumulator_edge_1x1", inputs: [TensorValue(shape: shape, values: v)])
    }

    /// A 3×3 kernel of ±7281 (9·7281·32768 = 2147254272 ≤ INT32_MAX) fed the input
    /// pattern that drives one output to the top of its interval and one to the bottom.
    static func convAccumulators3x3(transposed: Bool) throws -> ProbeCase {
        let weights: [Int16] = (0..<9).map { ($0 / 3 + $0 % 3) % 2 == 0 ? 7281 : -7281 }
        // conv2d, stride 3: output (0, j) reads input block j directly. Transposed, stride
        // 1, pad 1, 3×3 input: output (1, 1) reads x[2−u][2−v] with weight w[u][v].
        func tap(_ u: Int, _ v: Int) -> Int { transposed ? (2 - u) * 3 + (2 - v) : u * 6 + v }
        let shape = transposed ? Shape(1, 3, 3) : Shape(1, 3, 6)
        var high = [Int32](repeating: 0, count: shape.count)
        var low = [Int32](repeating: 0, count: shape.count)
        for u in 0..<3 {
            for v in 0..<3 {
                let positive = weights[u * 3 + v] > 0
                high[tap(u, v)] = positive ? 32767 : -32768
                low[tap(u, v)] = positive ? -32768 : 32767
                if !transposed { low[tap(u, v) + 3] = low[tap(u, v)]; high[tap(u, v) + 3] = 0 }
            }
        }
        var b = GraphBuilder()
        var inputs: [TensorValue] = []
        let y: Int
        if transposed {
            let x = b.input("x_high", shape, storage: .narrow, interval: narrowFull)
            let x2 = b.input("x_low", shape, storage: .narrow, interval: narrowFull)
            let p = ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1, weights: weights, bias: [0])
            _ = try b.convTranspose2d(x, p, name: "accumulators_high")
            y = try b.convTranspose2d(x2, p, name: "accumulators_low")
            inputs = [TensorValue(shape: shape, values: high), TensorValue(shape: shape, values: low)]
        } else {
            var v = high
            for i in 0..<v.count where i % 6 >= 3 { v[i] = low[i] }
            let x = b.input("x", shape, storage: .narrow, interval: narrowFull)
            y = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 3, pad: 0, weights: weights, bias: [0]),
                             name: "accumulators")
            inputs = [TensorValue(shape: shape, values: v)]
        }
        return try G.finish(b, last: y, name: transposed ? "conv_transpose2d_accumulator_edge_3x3" : "conv2d_accumulator_edge_3x3",
                            inputs: inputs)
    }
}
