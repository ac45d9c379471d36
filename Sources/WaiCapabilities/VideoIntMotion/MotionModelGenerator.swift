/// A seeded generator of int_motion model sets (docs/capabilities/video_int_motion.md §8):
/// the same seed, N and M give the same bytes. Built like int_hyper's generator
/// (SampleModelGenerator: carriers with exact gains, calibrated random channels, its h_a, h_s
/// and tables), so a decoded clip looks like its source: the flow carriers take the encoder's
/// searched block vectors (§7.1; zero latents give zero flow) and the residual carriers add
/// back a soft copy of what the prediction missed.
public enum MotionModelGenerator {
    typealias G = SampleModelGenerator
    /// p_synth's y_m contract (§8): carriers are (current − ref) / 16.
    public static let motionContract = Interval(lo: -32, hi: 31)
    /// p_synth's y_r contract: carriers are the residual / 2.
    public static let residualContract = Interval(lo: -128, hi: 127)
    /// The scale-space volume's levels and the flow's fractional bits (§4).
    public static let scaleLevels = 4
    public static let flowFracBits = 4
    static let flowClamp: (lo: Int32, hi: Int32) = (-128, 128)
    /// The encoder's search (§7.1): y_m carriers 0 and 1 are dx and dy at 4 steps a pixel.
    public static let motionSearch = MotionSearch(dxChannel: 0, dyChannel: 1, stepsPerPixel: 4, range: 8)
    static let binomial: [Int16] = [1, 4, 6, 4, 1]

    public static func defaultName(seed: UInt64, n: Int, m: Int) -> String { "int-motion-s\(seed)-n\(n)-m\(m)" }

    public static func generate(seed: UInt64, n: Int, m: Int, name: String? = nil, version: String = "1") throws -> MotionModelSet {
        let (ref, current) = try G.predictiveCalibration(n: n, m: m)
        var rng = SplitMix64(seed: seed)
        let size = G.calibrationSize

        // motion_g_a: 4 × conv 5×5 stride 2 over (current, ref); carriers: the temporal difference / 16.
        var motionGa: [ModelLayer] = []
        var x = TensorValue(shape: Shape(6, size, size), values: current.values + ref.values)
        var xi = IntHyperModelSet.pictureInterval
        for k in 0..<4 {
            let cin = k == 0 ? 6 : n, cout = k == 3 ? m : n
            var l = ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: cin, cout: cout)
            // The carriers are zero (weights and bias): g_a says "no motion"; the encoder's search
            // (§7.1) writes dx and dy, ds stays 0.
            for o in G.carriers..<cout { G.fillRandomChannel(&l, o, &rng) }
            let shift: Int32 = 0
            let gains = (0..<cout).map { o -> ChannelGain in
                o < G.carriers ? .fixed(multiplier: 1, shift: shift) : .target(rms: k == 3 ? G.latentRMS : G.innerRMS)
            }
            let clamp = k == 3 ? (Int32(motionContract.lo), Int32(motionContract.hi)) : G.activation
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: nil, input: x, interval: xi)
            motionGa.append(done); x = out; xi = iv
        }
        // What the encoder's search writes for the calibration pair (moved 2 columns, 1 row):
        // so h_a, h_s and the tables see the flow channels as they will be coded.
        var ym = x
        let yPlane = ym.shape.height * ym.shape.width
        for k in 0..<yPlane {
            ym.values[motionSearch.dxChannel * yPlane + k] = Int32(2 * motionSearch.stepsPerPixel)
            ym.values[motionSearch.dyChannel * yPlane + k] = Int32(1 * motionSearch.stepsPerPixel)
        }
        let (motionHa, motionHs, zm) = try G.hyperprior(yCalibration: ym, latentContract: motionContract, n: n, m: m, rng: &rng)
        let motionEntropy = try G.tables(zCalibration: zm, n: n, latentContract: motionContract)

        // The motion decoder: 4 × transposed 5×5 stride 2; only the carriers reach the flow.
        var motionDecoder: [ModelLayer] = []
        var f = ym, fi = motionContract
        for k in 0..<4 {
            let cin = k == 0 ? m : n, cout = k == 3 ? 3 : n
            var l = ModelLayer(transposed: true, kernel: 5, stride: 2, pad: 2, cin: cin, cout: cout)
            let gains: [ChannelGain]
            let clamp: (Int32, Int32)
            if k < 3 {
                G.fillCarriersAndRandom(&l, &rng)
                // The upsampling filter's gain is 64: y → 64·y, kept, then 64·64·y >> 10 = 4·y.
                let shift: Int32 = k == 0 ? 0 : 6
                gains = (0..<cout).map { o in o < G.carriers ? .fixed(multiplier: 1, shift: shift) : .target(rms: G.innerRMS) }
                clamp = G.activation
            } else {
                G.fillCarriers(&l)
                gains = Array(repeating: .fixed(multiplier: 1, shift: 10), count: 3)
                clamp = flowClamp
            }
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: nil, input: f, interval: fi)
            motionDecoder.append(done); f = out; fi = iv
        }

        let predict = try predictGraph(motionDecoder, m: m)
        let resizedPredict = try GraphResizing.resized(predict, sizes: [(size, size), (ym.shape.height, ym.shape.width)])
        let prediction = try ReferenceInterpreter.run(resizedPredict, inputs: [ref, ym])[0]
        let residual = TensorValue(shape: ref.shape, values: zip(current.values, prediction.values).map { $0 - $1 })

        // residual_g_a: as int_hyper's g_a; carriers: the residual / 2.
        var residualGa: [ModelLayer] = []
        var r = residual, ri = MotionModelSet.residualInterval
        for k in 0..<4 {
            let cin = k == 0 ? 3 : n, cout = k == 3 ? m : n
            var l = ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: cin, cout: cout)
            G.fillCarriersAndRandom(&l, &rng)
            let shift: Int32 = k == 0 ? 5 : (k == 3 ? 12 : 8)
            let gains = (0..<cout).map { o -> ChannelGain in
                o < G.carriers ? .fixed(multiplier: 1, shift: shift) : .target(rms: k == 3 ? G.latentRMS : G.innerRMS)
            }
            let clamp = k == 3 ? (Int32(residualContract.lo), Int32(residualContract.hi)) : G.activation
            let gdn = k == 3 ? nil : G.inverseGDN(channels: cout, &rng)
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: gdn, input: r, interval: ri)
            residualGa.append(done); r = out; ri = iv
        }
        let yr = r
        let (residualHa, residualHs, zr) = try G.hyperprior(yCalibration: yr, latentContract: residualContract, n: n, m: m, rng: &rng)
        let residualEntropy = try G.tables(zCalibration: zr, n: n, latentContract: residualContract)

        // The residual decoder over concat(y_r, y_m): carriers from y_r back to the residual.
        var residualDecoder: [ModelLayer] = []
        var d = TensorValue(shape: Shape(2 * m, yr.shape.height, yr.shape.width), values: yr.values + ym.values)
        var di = Interval(lo: min(residualContract.lo, motionContract.lo), hi: max(residualContract.hi, motionContract.hi))
        for k in 0..<4 {
            let cin = k == 0 ? 2 * m : n, cout = k == 3 ? 3 : n
            var l = ModelLayer(transposed: true, kernel: 5, stride: 2, pad: 2, cin: cin, cout: cout)
            let gains: [ChannelGain]
            let clamp: (Int32, Int32)
            if k < 3 {
                G.fillCarriersAndRandom(&l, &rng)
                // y_r = D/2 → 64·y_r >> 2 = 8·D, kept; the last 64·8·D >> 9 = D.
                let shift: Int32 = k == 0 ? 2 : 6
                gains = (0..<cout).map { o in o < G.carriers ? .fixed(multiplier: 1, shift: shift) : .target(rms: G.innerRMS) }
                clamp = G.activation
            } else {
                G.fillCarriers(&l)
                let taps = (n - G.carriers) * 25
                let permille = min(1000, 8_000 / max(taps, 1))
                for o in 0..<3 { for c in G.carriers..<n { for u in 0..<5 { for v in 0..<5 where rng.int(0...999) < permille {
                    l.weights[l.index(o, c, u, v)] = rng.bool() ? 1 : -1
                } } } }
                gains = Array(repeating: .fixed(multiplier: 1, shift: 9), count: 3)
                clamp = (Int32(MotionModelSet.residualInterval.lo), Int32(MotionModelSet.residualInterval.hi))
            }
            let gdn = k == 3 ? nil : G.inverseGDN(channels: cout, &rng)
            let (done, out, iv) = try LayerCalibration.calibrate(l, gains: gains, lo: clamp.0, hi: clamp.1, gdn: gdn, input: d, interval: di)
            residualDecoder.append(done); d = out; di = iv
        }

        let pSynth = try pSynthGraph(motionDecoder, residualDecoder, m: m)
        let motion = MotionModelSet.SubCodec(
            entropy: motionEntropy, hyperSynthesis: try G.graph(motionHs, input: "z_m", Shape(n, 1, 1), G.hyperContract, prefix: "motion_h_s"),
            analysis: IntHyperModelSet.Analysis(
                latent: try G.graph(motionGa, input: "current_ref", Shape(6, 16, 16), IntHyperModelSet.pictureInterval, prefix: "motion_g_a"),
                hyper: try G.graph(motionHa, input: "y_m", Shape(m, 4, 4), motionContract, prefix: "motion_h_a")))
        let residualCodec = MotionModelSet.SubCodec(
            entropy: residualEntropy, hyperSynthesis: try G.graph(residualHs, input: "z_r", Shape(n, 1, 1), G.hyperContract, prefix: "residual_h_s"),
            analysis: IntHyperModelSet.Analysis(
                latent: try G.graph(residualGa, input: "residual", Shape(3, 16, 16), MotionModelSet.residualInterval, prefix: "residual_g_a"),
                hyper: try G.graph(residualHa, input: "y_r", Shape(m, 4, 4), residualContract, prefix: "residual_h_a")))
        return try MotionModelSet(name: name ?? defaultName(seed: seed, n: n, m: m), version: version, motion: motion,
                                  residual: residualCodec, pSynth: pSynth, predict: predict, motionSearch: motionSearch)
    }

    /// §4 steps 1–3: the flow from y_m, the scale-space volume of ref, the warp.
    static func prediction(_ b: inout GraphBuilder, ref: Int, ym: Int, motionDecoder: [ModelLayer]) throws -> Int {
        var flow = ym
        for (k, l) in motionDecoder.enumerated() { flow = try l.add(to: &b, flow, name: "motion_decoder_\(k)") }
        var levels = [ref]
        var level = ref
        for k in 1..<scaleLevels {
            for t in 0..<(1 << (k - 1)) { level = try blur(&b, level, name: "scale_\(k)_blur_\(t)") }
            levels.append(level)
        }
        let volume = try b.concat(levels, name: "scale_space_volume")
        return try b.warp(volume, flow, WarpParams(scales: scaleLevels, fracBits: flowFracBits), name: "prediction")
    }

    /// One blur of §4 step 2: [1 4 6 4 1]⊗[1 4 6 4 1] per channel, zero padding, rnd(·, 8).
    static func blur(_ b: inout GraphBuilder, _ x: Int, name: String) throws -> Int {
        var w = [Int16](repeating: 0, count: 3 * 3 * 25)
        for c in 0..<3 { for u in 0..<5 { for v in 0..<5 { w[((c * 3 + c) * 5 + u) * 5 + v] = binomial[u] * binomial[v] } } }
        let acc = try b.conv2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 1, pad: 2, weights: w, bias: [0, 0, 0]), name: name + "_conv")
        return try b.requantize(acc, RequantizeParams(multiplier: [1, 1, 1], shift: [8, 8, 8], lo: 0, hi: 255), name: name)
    }

    static func inputs(_ b: inout GraphBuilder, m: Int) -> (ref: Int, ym: Int) {
        let pic = IntHyperModelSet.pictureInterval
        return (b.input("ref", Shape(3, 16, 16), storage: LayerCalibration.storage(pic), interval: pic),
                b.input("y_m", Shape(m, 1, 1), storage: LayerCalibration.storage(motionContract), interval: motionContract))
    }

    static func predictGraph(_ motionDecoder: [ModelLayer], m: Int) throws -> IntegerGraph {
        var b = GraphBuilder()
        let (ref, ym) = inputs(&b, m: m)
        let predicted = try prediction(&b, ref: ref, ym: ym, motionDecoder: motionDecoder)
        return try b.build(outputs: [predicted])
    }

    /// §4: prediction + residual decoder(concat(y_r, y_m)), clamped to 0…255.
    static func pSynthGraph(_ motionDecoder: [ModelLayer], _ residualDecoder: [ModelLayer], m: Int) throws -> IntegerGraph {
        var b = GraphBuilder()
        let (ref, ym) = inputs(&b, m: m)
        let yr = b.input("y_r", Shape(m, 1, 1), storage: LayerCalibration.storage(residualContract), interval: residualContract)
        let predicted = try prediction(&b, ref: ref, ym: ym, motionDecoder: motionDecoder)
        var residual = try b.concat([yr, ym], name: "residual_decoder_input")
        for (k, l) in residualDecoder.enumerated() { residual = try l.add(to: &b, residual, name: "residual_decoder_\(k)") }
        let sum = try b.add(predicted, residual, name: "prediction_plus_residual")
        let frame = try b.clamp(sum, lo: 0, hi: 255, name: "frame")
        return try b.build(outputs: [frame])
    }
}
