/// A seeded generator of int_hyper model sets (docs/capabilities/int_hyper.md §7): the same
/// seed, N and M always give the same bytes. Not a trained codec, but not noise either:
/// three "carrier" channels in every layer carry a blurred, 16× downsampled copy of the
/// picture through g_a (binomial low-pass filters) and back through g_s (B-spline
/// upsampling), with exact power-of-two gains, so a decoded picture is a soft version of
/// the original. Every other channel has seeded random weights, inverse GDN with random
/// coefficients, and gains calibrated on a synthetic picture, so every op and every
/// channel is exercised at realistic magnitudes with narrow (int16) activations.
public enum SampleModelGenerator {
    public static let scaleCount = 64
    public static let precision = 16
    /// y values (g_s's input contract): carriers are (pixel − 128) / 2.
    public static let latentContract = Interval(lo: -128, hi: 127)
    /// z values (h_s's input contract).
    public static let hyperContract = Interval(lo: -32, hi: 31)
    public static let channelRange = 4...512
    /// Standard deviation of the Gaussian-conditional table of scale index i: 2^(i/6 − 3),
    /// 0.125 … 181.
    public static func scale(ofIndex i: Int) -> Double { DeterministicMath.twoToThe(sixths: i) / 8 }

    static let carriers = 3
    static let activation: (lo: Int32, hi: Int32) = (-2048, 2047)
    static let reluActivation: (lo: Int32, hi: Int32) = (0, 2047)
    static let innerRMS = 512.0
    static let latentRMS = 1.5
    static let hyperRMS = 2.0
    static let calibrationSize = 128
    static let binomial: [Int16] = [1, 4, 6, 4, 1]

    public static func defaultName(seed: UInt64, n: Int, m: Int) -> String { "int-hyper-s\(seed)-n\(n)-m\(m)" }

    public static func generate(seed: UInt64, n: Int, m: Int, name: String? = nil, version: String = "1") throws -> IntHyperModelSet {
        guard channelRange.contains(n), channelRange.contains(m) else {
            throw GeneratorError(message: "N = \(n) and M = \(m) must each be in \(channelRange.lowerBound)…\(channelRange.upperBound)")
        }
        var rng = SplitMix64(seed: seed)
        let picture = try SamplePicture.make(width: calibrationSize, height: calibrationSize)
        let planes = IntHyperEncoder.paddedPlanes(picture, height: calibrationSize, width: calibrationSize)

        // g_a: 4 × (conv 5×5 stride 2), inverse GDN between; y clamped to its contract.
        var ga: [ModelLayer] = []
        var x = planes, xi = IntHyperModelSet.pictureInterval
        for k in 0..<4 {
            let cin = k == 0 ? 3 : n, cout = k == 3 ? m : n
            var l = ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: cin, cout: cout)
            fillCarriersAndRandom(&l, &rng)
            // Carriers: layer 0 takes pixels to 16·(p − 128) (filter sum 256 → shift 4, bias
            // centres); inner layers keep the scale (shift 8); the last gives (p − 128) / 2.
            if k == 0 { for c in 0..<carriers { l.bias[c] = -128 * 256 } }
            let carrierShift: Int32 = k == 0 ? 4 : (k == 3 ? 13 : 8)
            let gains = (0..<cout).map { o -> ChannelGain in
                o < carriers ? .fixed(multiplier: 1, shift: carrierShift) : .target(rms: k == 3 ? latentRMS : innerRMS)
            }
            let clamp = k == 3 ? (Int32(latentContract.lo), Int32(latentContract.hi)) : activation
            let gdn = k == 3 ? nil : inverseGDN(channels: cout, &rng)
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: gdn,
                                                                 input: x, interval: xi)
            ga.append(done); x = out; xi = iv
        }
        let yCalibration = x

        let (ha, hs, zCalibration) = try hyperprior(yCalibration: yCalibration, latentContract: latentContract,
                                                    n: n, m: m, rng: &rng)

        // g_s: 4 × (transposed 5×5 stride 2, output_pad 1), inverse GDN between, RGB 0…255.
        var gs: [ModelLayer] = []
        var g = yCalibration, gi = latentContract
        for k in 0..<4 {
            let cin = k == 0 ? m : n, cout = k == 3 ? 3 : n
            var l = ModelLayer(transposed: true, kernel: 5, stride: 2, pad: 2, cin: cin, cout: cout)
            let gains: [ChannelGain]
            let clamp: (Int32, Int32)
            if k < 3 {
                fillCarriersAndRandom(&l, &rng)
                // The upsampling filter's gain is 64: y·64 → 16·(p − 128) = 32·y, then 64·x → x.
                let shift: Int32 = k == 0 ? 1 : 6
                gains = (0..<cout).map { o in o < carriers ? .fixed(multiplier: 1, shift: shift) : .target(rms: innerRMS) }
                clamp = activation
            } else {
                fillCarriers(&l)
                // A faint contribution of the other channels: about 8 sparse ±1 taps per output.
                let taps = (n - carriers) * 25
                let permille = min(1000, 8_000 / max(taps, 1))
                for o in 0..<3 { for c in carriers..<n { for u in 0..<5 { for v in 0..<5 where rng.int(0...999) < permille {
                    l.weights[l.index(o, c, u, v)] = rng.bool() ? 1 : -1
                } } } }
                for o in 0..<3 { l.bias[o] = 128 << 10 }
                gains = Array(repeating: .fixed(multiplier: 1, shift: 10), count: 3)
                clamp = (0, 255)
            }
            let gdn = k == 3 ? nil : inverseGDN(channels: cout, &rng)
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: gdn,
                                                                 input: g, interval: gi)
            gs.append(done); g = out; gi = iv
        }

        let entropy = try tables(zCalibration: zCalibration, n: n, latentContract: latentContract)

        let analysis = IntHyperModelSet.Analysis(
            latent: try graph(ga, input: "picture", Shape(3, 16, 16), IntHyperModelSet.pictureInterval, prefix: "g_a"),
            hyper: try graph(ha, input: "y", Shape(m, 4, 4), latentContract, prefix: "h_a"))
        return try IntHyperModelSet(
            name: name ?? defaultName(seed: seed, n: n, m: m), version: version, entropy: entropy,
            hyperSynthesis: try graph(hs, input: "z", Shape(n, 1, 1), hyperContract, prefix: "h_s"),
            synthesis: try graph(gs, input: "y", Shape(m, 1, 1), latentContract, prefix: "g_s"),
            analysis: analysis)
    }

    /// h_a and h_s of a scale hyperprior over the latents `yCalibration` (§7), calibrated on
    /// them; shared with the video generator (docs/capabilities/video_int_motion.md §8).
    static func hyperprior(yCalibration: TensorValue, latentContract: Interval, n: Int, m: Int,
                           rng: inout SplitMix64) throws -> (ha: [ModelLayer], hs: [ModelLayer], zCalibration: TensorValue) {
        // h_a: conv 3×3, ReLU, 2 × (conv 5×5 stride 2), ReLU between; z clamped to its contract.
        var ha: [ModelLayer] = []
        var h = yCalibration, hi = latentContract
        for k in 0..<3 {
            var l = k == 0 ? ModelLayer(transposed: false, kernel: 3, stride: 1, pad: 1, cin: m, cout: n)
                           : ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: n, cout: n)
            fillRandom(&l, &rng)
            let last = k == 2
            let clamp = last ? (Int32(hyperContract.lo), Int32(hyperContract.hi)) : reluActivation
            let gains = Array(repeating: ChannelGain.target(rms: last ? hyperRMS : innerRMS), count: l.cout)
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: nil,
                                                                 input: h, interval: hi)
            ha.append(done); h = out; hi = iv
        }
        let zCalibration = h

        // h_s: 2 × (transposed 5×5 stride 2), ReLU, conv 3×3 → scale index per y element,
        // centred on the index whose table fits that y channel's spread in calibration.
        let yPlane = yCalibration.shape.height * yCalibration.shape.width
        let base = (0..<m).map { c -> Double in
            var sq = 0.0
            for k in 0..<yPlane { let v = Double(yCalibration.values[c * yPlane + k]); sq += v * v }
            return Double(nearestScaleIndex((sq / Double(yPlane)).squareRoot()))
        }
        var hs: [ModelLayer] = []
        var s = zCalibration, si = hyperContract
        for k in 0..<3 {
            var l = k < 2 ? ModelLayer(transposed: true, kernel: 5, stride: 2, pad: 2, cin: n, cout: n)
                          : ModelLayer(transposed: false, kernel: 3, stride: 1, pad: 1, cin: n, cout: m)
            fillRandom(&l, &rng)
            let last = k == 2
            let gains = last ? base.map { ChannelGain.scaleIndex(base: $0, spread: 1) }
                             : Array(repeating: ChannelGain.target(rms: innerRMS), count: l.cout)
            let clamp = last ? (Int32(0), Int32(scaleCount - 1)) : reluActivation
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: nil,
                                                                 input: s, interval: si)
            hs.append(done); s = out; si = iv
        }
        return (ha, hs, zCalibration)
    }

    /// The tables of §7: z per channel from its calibrated spread; y per scale index over
    /// `latentContract`.
    static func tables(zCalibration: TensorValue, n: Int, latentContract: Interval) throws -> IntHyperEntropyModel {
        // Tables: z per channel from its calibrated spread; y per scale index.
        let zPlane = zCalibration.shape.height * zCalibration.shape.width
        let zRange = Int(hyperContract.lo)...Int(hyperContract.hi)
        let zTables = try (0..<n).map { c -> FrequencyTable in
            var sq = 0.0
            for k in 0..<zPlane { let v = Double(zCalibration.values[c * zPlane + k]); sq += v * v }
            let sigma = min(8, max(0.5, (sq / Double(zPlane)).squareRoot()))
            return try DiscreteGaussian.table(sigma: sigma, contract: zRange, precision: precision)
        }
        let yRange = Int(latentContract.lo)...Int(latentContract.hi)
        let yTables = try (0..<scaleCount).map {
            try DiscreteGaussian.table(sigma: scale(ofIndex: $0), contract: yRange, precision: precision)
        }
        return try IntHyperEntropyModel(precision: precision, zTables: zTables, yTables: yTables)
    }

    /// The scale index whose σ is nearest to `sigma` on a log scale.
    static func nearestScaleIndex(_ sigma: Double) -> Int {
        var best = 0
        for i in 1..<scaleCount where (scale(ofIndex: i) / sigma).distanceFromOne < (scale(ofIndex: best) / sigma).distanceFromOne {
            best = i
        }
        return best
    }

    static func graph(_ layers: [ModelLayer], input: String, _ shape: Shape, _ contract: Interval, prefix: String) throws -> IntegerGraph {
        var b = GraphBuilder()
        var x = b.input(input, shape, storage: LayerCalibration.storage(contract), interval: contract)
        for (k, l) in layers.enumerated() { x = try l.add(to: &b, x, name: "\(prefix)_\(k)") }
        return try b.build(outputs: [x])
    }

    /// Carriers: channel c < 3 reads only channel c through the separable binomial filter
    /// [1 4 6 4 1]⊗[1 4 6 4 1] (sum 256; as a stride-2 transposed filter, 64 per output).
    static func fillCarriers(_ l: inout ModelLayer) {
        for c in 0..<carriers where c < l.cout && c < l.cin {
            for u in 0..<5 { for v in 0..<5 { l.weights[l.index(c, c, u, v)] = binomial[u] * binomial[v] } }
        }
    }

    /// Carriers as above; every other output channel reads every input with random weights.
    static func fillCarriersAndRandom(_ l: inout ModelLayer, _ rng: inout SplitMix64) {
        fillCarriers(&l)
        for o in carriers..<l.cout { fillRandomChannel(&l, o, &rng) }
    }

    static func fillRandom(_ l: inout ModelLayer, _ rng: inout SplitMix64) {
        for o in 0..<l.cout { fillRandomChannel(&l, o, &rng) }
    }

    static func fillRandomChannel(_ l: inout ModelLayer, _ o: Int, _ rng: inout SplitMix64) {
        for c in 0..<l.cin { for u in 0..<l.kernel { for v in 0..<l.kernel {
            l.weights[l.index(o, c, u, v)] = rng.int16(-127, 127)
        } } }
    }

    /// Inverse GDN that is exactly the identity on the carriers (β = 2^20, γ row 0:
    /// isqrt = 1024, out_shift 10) and a mild random expansion elsewhere; γ rows sum to
    /// about 1024, which keeps the output narrow for inputs in ±2048. `identity` channels from
    /// the first are the identity (the carriers; int_cond's context has 48, video_int_cond.md §8).
    static func inverseGDN(channels c: Int, identity: Int = carriers, _ rng: inout SplitMix64) -> InverseGDNParams {
        let gmax = max(1, 2048 / c)
        var beta = [Int32](repeating: 1 << 20, count: c)
        var gamma = [Int32](repeating: 0, count: c * c)
        for o in min(identity, c)..<c {
            beta[o] = Int32(rng.int(1 << 19, 1 << 21))
            for k in 0..<c { gamma[o * c + k] = Int32(rng.int(0, Int64(gmax))) }
        }
        return InverseGDNParams(beta: beta, gamma: gamma, squareShift: 8, outShift: 10)
    }
}

private extension Double {
    /// max(x, 1/x): orders ratios like |log x| does, without calling log.
    var distanceFromOne: Double { self >= 1 ? self : 1 / self }
}
