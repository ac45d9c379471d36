/// Single-op probe graphs at a given shape, for the `channels` and `scale` stages: inputs
/// narrow in [-2048, 2047] with both ends present, small weights, so every certificate
/// holds at any channel count of the stages and the reference stays cheap (few MACs per
/// output). Each graph observes every tensor.
enum OpGraphs {
    typealias G = ProbeGraphs
    static let input = Interval(lo: -2048, hi: 2047)

    static func tensor(_ rng: inout SplitMix64, _ shape: Shape, _ iv: Interval = input) -> TensorValue {
        TensorValue(shape: shape, values: G.values(&rng, count: shape.count, in: iv))
    }

    static func weights(_ rng: inout SplitMix64, _ count: Int, magnitude: Int64 = 31) -> [Int16] {
        (0..<count).map { _ in Int16(rng.int(-magnitude, magnitude)) }
    }

    static func bias(_ rng: inout SplitMix64, _ count: Int) -> [Int32] {
        (0..<count).map { _ in rng.int32(-4096, 4096) }
    }

    /// conv2d of `cin` → `cout` channels on an h×w input.
    static func conv2d(_ rng: inout SplitMix64, name: String, cin: Int, cout: Int, h: Int, w: Int,
                       kernel: Int, stride: Int, pad: Int) throws -> ProbeCase {
        var b = GraphBuilder()
        let x = b.input("x", Shape(cin, h, w), storage: .narrow, interval: input)
        let p = ConvParams(kernelH: kernel, kernelW: kernel, stride: stride, pad: pad,
                           weights: weights(&rng, cout * cin * kernel * kernel), bias: bias(&rng, cout))
        let y = try b.conv2d(x, p, name: "y")
        return try G.finish(b, last: y, name: name, inputs: [tensor(&rng, Shape(cin, h, w))])
    }

    /// conv_transpose2d 5×5, stride 2, pad 2 (the synthesis transforms' geometry) whose
    /// output is exactly outH×outW: input ⌈out/2⌉, output_pad 1 for even sizes.
    static func convTranspose(_ rng: inout SplitMix64, name: String, cin: Int, cout: Int,
                              outH: Int, outW: Int) throws -> ProbeCase {
        let h = (outH + 1) / 2, w = (outW + 1) / 2
        let op = outH - (2 * h - 1)
        precondition(op == outW - (2 * w - 1), "both sizes even or both odd")
        var b = GraphBuilder()
        let x = b.input("x", Shape(cin, h, w), storage: .narrow, interval: input)
        let p = ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: op,
                           weights: weights(&rng, cin * cout * 25), bias: bias(&rng, cout))
        let y = try b.convTranspose2d(x, p, name: "y")
        return try G.finish(b, last: y, name: name, inputs: [tensor(&rng, Shape(cin, h, w))])
    }

    /// Inverse GDN with beta ≈ 1 in the squared fixed point (q = 8) and a dominant
    /// diagonal, as in the synthesis transforms.
    static func inverseGDN(_ rng: inout SplitMix64, name: String, channels c: Int, h: Int, w: Int) throws -> ProbeCase {
        let beta = (0..<c).map { _ in Int32(rng.int(1 << 10, 1 << 12)) }
        let gamma = (0..<(c * c)).map { i -> Int32 in i / c == i % c ? Int32(rng.int(16, 32)) : Int32(rng.int(0, 4)) }
        var b = GraphBuilder()
        let x = b.input("x", Shape(c, h, w), storage: .narrow, interval: input)
        let y = try b.inverseGDN(x, InverseGDNParams(beta: beta, gamma: gamma, squareShift: 8, outShift: 10), name: "y")
        return try G.finish(b, last: y, name: name, inputs: [tensor(&rng, Shape(c, h, w))])
    }

    /// requantize (per-channel multipliers and shifts) → clamp → lookup, and add of the
    /// requantized tensor and the input: every elementwise op on one shape.
    static func elementwise(_ rng: inout SplitMix64, name: String, channels c: Int, h: Int, w: Int) throws -> ProbeCase {
        var b = GraphBuilder()
        let shape = Shape(c, h, w)
        let x = b.input("x", shape, storage: .narrow, interval: input)
        let m = (0..<c).map { _ in Int32(rng.int(1, 1 << 14)) }
        let s = (0..<c).map { _ in Int32(rng.int(0...12)) }
        let rq = try b.requantize(x, RequantizeParams(multiplier: m, shift: s, lo: -30000, hi: 30000), name: "requantized")
        let cl = try b.clamp(rq, lo: -1500, hi: 2500, name: "clamped")
        let table = (0..<4096).map { _ in rng.int32(-30000, 30000) }
        _ = try b.lookup(cl, LookupParams(table: table, offset: -2048), name: "looked_up")
        let sum = try b.add(rq, x, name: "sum")
        return try G.finish(b, last: sum, name: name, inputs: [tensor(&rng, shape)])
    }

    /// One elementwise op alone (`requantize`, `clamp`, `add`, `lookup`) on a large shape.
    static func single(_ rng: inout SplitMix64, _ op: String, name: String, shape: Shape) throws -> ProbeCase {
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: .narrow, interval: input)
        var inputs = [tensor(&rng, shape)]
        let y: Int
        switch op {
        case "requantize":
            let m = (0..<shape.channels).map { _ in Int32(rng.int(1, 1 << 14)) }
            let s = (0..<shape.channels).map { _ in Int32(rng.int(0...12)) }
            y = try b.requantize(x, RequantizeParams(multiplier: m, shift: s, lo: -30000, hi: 30000), name: "y")
        case "clamp":
            y = try b.clamp(x, lo: -1500, hi: 1900, name: "y")
        case "add":
            let x2 = b.input("x2", shape, storage: .narrow, interval: input)
            inputs.append(tensor(&rng, shape))
            y = try b.add(x, x2, name: "y")
        default:
            let table = (0..<4096).map { _ in rng.int32(-30000, 30000) }
            y = try b.lookup(x, LookupParams(table: table, offset: -2048), name: "y")
        }
        return try G.finish(b, last: y, name: name, inputs: inputs)
    }

    /// concat of a `c1`- and a `c2`-channel tensor.
    static func concat(_ rng: inout SplitMix64, name: String, c1: Int, c2: Int, h: Int, w: Int) throws -> ProbeCase {
        var b = GraphBuilder()
        let a = b.input("a", Shape(c1, h, w), storage: .narrow, interval: input)
        let wideIV = Interval(lo: -100_000, hi: 100_000)
        let c = b.input("b", Shape(c2, h, w), storage: .wide, interval: wideIV)
        let y = try b.concat([a, c], name: "y")
        return try G.finish(b, last: y, name: name,
                            inputs: [tensor(&rng, Shape(c1, h, w)), tensor(&rng, Shape(c2, h, w), wideIV)])
    }

    /// depth_to_space with block 2 from 4·`c` channels of h×w.
    static func depthToSpace(_ rng: inout SplitMix64, name: String, channels c: Int, h: Int, w: Int) throws -> ProbeCase {
        var b = GraphBuilder()
        let shape = Shape(4 * c, h, w)
        let x = b.input("x", shape, storage: .narrow, interval: input)
        let y = try b.depthToSpace(x, block: 2, name: "y")
        return try G.finish(b, last: y, name: name, inputs: [tensor(&rng, shape)])
    }
}
