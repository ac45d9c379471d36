/// Stage `decode`: one whole built-in decode, a small bmshj2018-style synthesis transform
/// (Ballé et al. 2018) in integer form — four 5×5 stride-2 transposed convs, requantized
/// to narrow between them, inverse GDN after the first three, a final lookup to 0…255 and
/// clamp — with a fixed seeded latent. The calibration graph is the same architecture,
/// larger. (Issue 3 replaces the built-in vector with a real int_hyper decode.)
enum DecodeVector {
    static let seed: UInt64 = 0x4445_434F_4445_5631
    static let calibrationSeed: UInt64 = 0x4341_4C49_4252_4154

    static func builtIn() throws -> ProbeCase {
        try synthesis(name: "bmshj2018_synthesis_small", seed: seed, latentChannels: 8, channels: 8, latentSize: 4)
    }

    /// The synthesis up to its last requantize: the convs, requantizes and inverse GDNs that
    /// take a decode's time, without the final lookup and clamp, so a unit accepted without
    /// lookup (per-op acceptance) is timed on the same graph as every other.
    static func calibration() throws -> ProbeCase {
        var c = try synthesis(name: "bmshj2018_synthesis_calibration", seed: calibrationSeed,
                              latentChannels: 32, channels: 32, latentSize: 8)
        var g = c.graph
        // The lookup and clamp are the last two nodes and write the last two tensors.
        let kept = g.nodes.count - 2
        precondition(g.nodes[kept].op.name == "lookup" && g.nodes[kept + 1].op.name == "clamp")
        g.outputs = [g.nodes[kept - 1].output]
        g.nodes.removeLast(2)
        g.tensors.removeLast(2)
        try CertificateVerifier.verify(g)
        c.graph = g
        return c
    }

    /// Root-mean-square value each inner requantize aims its output at (clamped to ±4096),
    /// and the final one (clamped to ±128 before the shift to 0…255).
    static let innerTarget: Double = 1000
    static let finalTarget: Double = 48
    static let calibrationLatentSize = 4

    struct Layer {
        var conv: ConvParams
        var requantize: RequantizeParams?
        var gdn: InverseGDNParams?
    }

    static func synthesis(name: String, seed: UInt64, latentChannels: Int, channels: Int, latentSize: Int) throws -> ProbeCase {
        var rng = SplitMix64(seed: seed)
        var layers: [Layer] = []
        var cin = latentChannels
        for layer in 0..<4 {
            let cout = layer == 3 ? 3 : channels
            let weights = (0..<(cin * cout * 25)).map { _ in Int16(rng.int(-127, 127)) }
            let bias = (0..<cout).map { _ in rng.int32(-1024, 1024) }
            var l = Layer(conv: ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1, weights: weights, bias: bias))
            if layer < 3 {
                // Inverse GDN with beta ≈ 1 in the squared fixed point and a dominant diagonal.
                let beta = (0..<cout).map { _ in Int32(rng.int(1 << 10, 1 << 12)) }
                let gamma = (0..<(cout * cout)).map { i -> Int32 in
                    i / cout == i % cout ? Int32(rng.int(16, 32)) : Int32(rng.int(0, 4))
                }
                l.gdn = InverseGDNParams(beta: beta, gamma: gamma, squareShift: 8, outShift: 10)
            }
            layers.append(l)
            cin = cout
        }
        // Requantize gains are set from the data: each layer is run on a small latent by
        // the reference interpreter and scaled to its target. Intervals do not depend on
        // the spatial size, so the parameters carry over to the full-size graph.
        var small = SplitMix64(seed: seed ^ 0x5EED)
        let smallLatent = latent(&small, Shape(latentChannels, calibrationLatentSize, calibrationLatentSize))
        for k in 0..<4 {
            let (g, acc) = try build(layers, latentShape: smallLatent.shape, through: k)
            let values = try ReferenceInterpreter.run(g, inputs: [smallLatent])[0].values
            let rms = max(1, (values.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(values.count)).squareRoot())
            let target = k == 3 ? finalTarget : innerTarget
            let clampTo: Int32 = k == 3 ? 127 : 4095
            let (m, s) = requantizeParams(interval: g.tensors[acc].interval, channels: layers[k].conv.bias.count, gain: target / rms)
            layers[k].requantize = RequantizeParams(multiplier: m, shift: s, lo: -clampTo - 1, hi: clampTo)
        }
        var full = SplitMix64(seed: seed ^ 0x1A7E)
        let input = latent(&full, Shape(latentChannels, latentSize, latentSize))
        let (g, _) = try build(layers, latentShape: input.shape, through: nil)
        return ProbeCase(name: name, graph: g, inputs: [input])
    }

    /// A latent is mostly small with rare large values.
    static func latent(_ rng: inout SplitMix64, _ shape: Shape) -> TensorValue {
        TensorValue(shape: shape, values: (0..<shape.count).map { _ in
            rng.int(0...15) == 0 ? Int32(rng.int(-64, 63)) : Int32(rng.int(-8, 8))
        })
    }

    /// The graph up to layer `through`'s transposed conv (its output is the graph output),
    /// or the whole synthesis when `through` is nil.
    static func build(_ layers: [Layer], latentShape: Shape, through: Int?) throws -> (IntegerGraph, Int) {
        var b = GraphBuilder()
        var x = b.input("latent", latentShape, storage: .narrow, interval: Interval(lo: -64, hi: 63))
        for (k, l) in layers.enumerated() {
            let acc = try b.convTranspose2d(x, l.conv, name: "synthesis_\(k)")
            if k == through { return (try b.build(outputs: [acc]), acc) }
            guard let rq = l.requantize else { preconditionFailure("requantize of layer \(k) is set before it is built") }
            let narrow = try b.requantize(acc, rq, name: "requantize_\(k)")
            if let gdn = l.gdn {
                x = try b.inverseGDN(narrow, gdn, name: "inverse_gdn_\(k)")
            } else {
                let pixels = try b.lookup(narrow, LookupParams(table: (0..<256).map { Int32($0) }, offset: -128), name: "to_pixels")
                let out = try b.clamp(pixels, lo: 0, hi: 255, name: "rgb")
                return (try b.build(outputs: [out]), out)
            }
        }
        preconditionFailure("the last layer has no inverse GDN")
    }

    /// Multiplier and shift per channel for a requantize with the given gain, the
    /// multiplier as large as the accumulator's certified interval allows (x·m + 2^(s−1)
    /// must stay in int32, docs/integer-ops.md §5).
    static func requantizeParams(interval iv: Interval, channels: Int, gain: Double) -> (m: [Int32], s: [Int32]) {
        let bound = max(1, max(-iv.lo, iv.hi))
        let mMax = max(1, (Int64(Int32.max) / 2) / bound)
        var s = 0
        while s < 31, gain * Double(Int64(1) << (s + 1)) <= Double(mMax) { s += 1 }
        let m = max(1, min(mMax, Int64((gain * Double(Int64(1) << s)).rounded())))
        // Slightly different multipliers per channel where that changes the gain by < 5%.
        return ((0..<channels).map { Int32(m >= 64 ? m - Int64($0 % 3) : m) }, Array(repeating: Int32(s), count: channels))
    }
}
