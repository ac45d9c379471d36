/// Stage `decode`: a small built-in scale-space prediction as `wai.video.int_motion` makes
/// it (Agustsson et al., CVPR 2020; docs/integer-ops.md §4.10) — the previous frame and two
/// copies blurred by a fixed 5×5 binomial conv (requantized back to 0…255) concatenated
/// into a 3-scale volume, a flow computed by a conv from a seeded motion feature and
/// requantized to 4 fractional bits, the warp, a seeded residual added, and the clamp to
/// 0…255. Compared whole (only the picture observed, as a decode would); on a difference
/// the session runs it again observing every tensor to name the op.
enum WarpDecodeVector {
    static let seed: UInt64 = 0x5353_4650_5245_4431
    static let (height, width) = (30, 44)
    static let scales = 3
    static let fracBits = 4

    /// The 5×5 binomial kernel (1 4 6 4 1)ᵀ(1 4 6 4 1), whose taps sum to 256, applied to
    /// each of 3 channels alone (zero weights across channels), pad 2.
    static func binomialBlur() -> ConvParams {
        let taps: [Int16] = [1, 4, 6, 4, 1]
        var weights: [Int16] = []
        for o in 0..<3 {
            for c in 0..<3 {
                for u in 0..<5 { for v in 0..<5 { weights.append(o == c ? taps[u] * taps[v] : 0) } }
            }
        }
        return ConvParams(kernelH: 5, kernelW: 5, stride: 1, pad: 2, weights: weights, bias: [0, 0, 0])
    }

    static func builtIn() throws -> ProbeCase {
        var rng = SplitMix64(seed: seed)
        let (h, w) = (height, width)
        var b = GraphBuilder()
        let frame = b.input("previous_frame", Shape(3, h, w), storage: .narrow, interval: Interval(lo: 0, hi: 255))
        let motion = b.input("motion_feature", Shape(4, h, w), storage: .narrow, interval: Interval(lo: -64, hi: 63))
        let residual = b.input("residual", Shape(3, h, w), storage: .narrow, interval: Interval(lo: -32, hi: 31))

        // Scale s + 1 is scale s blurred again: (sum of 256 taps) >> 8 keeps 0…255.
        let toPixels = RequantizeParams(multiplier: [1, 1, 1], shift: [8, 8, 8], lo: 0, hi: 255)
        var blurred = frame
        var volume = [frame]
        for s in 1..<scales {
            let acc = try b.conv2d(blurred, binomialBlur(), name: "blur_\(s)")
            blurred = try b.requantize(acc, toPixels, name: "scale_\(s)")
            volume.append(blurred)
        }
        let v = try b.concat(volume, name: "volume")

        // The flow: dx, dy about ±4 columns, rows; ds centred on scale 1, reaching below 0
        // and past scale 2 (both clamp). Bias 512 >> 5 = 16 = one scale step at F = 4.
        let weights = (0..<(3 * 4 * 9)).map { _ in Int16(rng.int(-8, 8)) }
        let flowConv = ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1, weights: weights, bias: [0, 0, 512])
        let flowAcc = try b.conv2d(motion, flowConv, name: "flow_conv")
        let flow = try b.requantize(flowAcc, RequantizeParams(multiplier: [1, 1, 1], shift: [4, 4, 5], lo: -128, hi: 127),
                                    name: "flow")
        let predicted = try b.warp(v, flow, WarpParams(scales: scales, fracBits: fracBits), name: "prediction")
        let sum = try b.add(predicted, residual, name: "reconstruction")
        let out = try b.clamp(sum, lo: 0, hi: 255, name: "frame")
        let graph = try b.build(outputs: [out])

        // A frame with structure at every scale: diagonal ramps plus noise, both ends present.
        var pixels = (0..<(3 * h * w)).map { k -> Int32 in
            let (c, i, j) = (k / (h * w), (k / w) % h, k % w)
            return Int32((i * 9 + j * 5 + c * 70 + rng.int(0...40)) % 256)
        }
        pixels[0] = 0; pixels[pixels.count - 1] = 255
        let feature = ProbeGraphs.values(&rng, count: 4 * h * w, in: Interval(lo: -64, hi: 63))
        let residualValues = ProbeGraphs.values(&rng, count: 3 * h * w, in: Interval(lo: -32, hi: 31))
        var c = ProbeCase(name: "ssf_prediction_small", graph: graph,
                          inputs: [TensorValue(shape: Shape(3, h, w), values: pixels),
                                   TensorValue(shape: Shape(4, h, w), values: feature),
                                   TensorValue(shape: Shape(3, h, w), values: residualValues)])
        c.repeated = true
        return c
    }
}
