/// A seeded generator of int_cond model sets (docs/capabilities/video_int_cond.md §8): the
/// same seed, N and M give the same bytes. Built like int_hyper's generator
/// (SampleModelGenerator: carriers with exact gains, calibrated random channels, its h_a and
/// tables): the context's 48 carriers are the reference frame itself, 4×4 pixels to a
/// position (a space-to-depth by convolution), the latent's 3 carriers a low-passed
/// (current − reference) / 2, and the synthesis adds the one to the other, so a P-frame is the
/// previous frame plus a soft copy of what changed.
public enum CondModelGenerator {
    typealias G = SampleModelGenerator
    /// The context carriers: one per colour and position in a 4×4 block (§4.1).
    public static let contextCarriers = 48
    /// cond_synth's y contract: carriers are the low-passed temporal difference / 2.
    public static let latentContract = Interval(lo: -128, hi: 127)

    public static func defaultName(seed: UInt64, n: Int, m: Int) -> String { "int-cond-s\(seed)-n\(n)-m\(m)" }
    /// K of a seeded set: the 48 carriers and N feature channels.
    public static func contextChannels(n: Int) -> Int { contextCarriers + n }

    public static func generate(seed: UInt64, n: Int, m: Int, name: String? = nil, version: String = "1") throws -> CondModelSet {
        let (ref, current) = try G.predictiveCalibration(n: n, m: m)
        var rng = SplitMix64(seed: seed)
        let pic = IntHyperModelSet.pictureInterval
        let k = contextChannels(n: n)

        // cond_context (§4.1): a 4×4 stride-4 patch embedding, then 1×1 with inverse GDN.
        var l = ModelLayer(transposed: false, kernel: 4, stride: 4, pad: 0, cin: 3, cout: k)
        for o in 0..<contextCarriers { l.weights[l.index(o, o / 16, (o % 16) / 4, o % 4)] = 1 }
        for o in contextCarriers..<k { G.fillRandomChannel(&l, o, &rng) }
        let (context0, c0, c0i) = try LayerCalibration.calibrate(l, gains: gains(k, carriers: contextCarriers, shift: 0), lo: G.activation.lo,
                                                                 hi: G.activation.hi, gdn: nil, input: ref, interval: pic)
        l = ModelLayer(transposed: false, kernel: 1, stride: 1, pad: 0, cin: k, cout: k)
        for o in 0..<contextCarriers { l.weights[l.index(o, o, 0, 0)] = 1 }
        for o in contextCarriers..<k { G.fillRandomChannel(&l, o, &rng) }
        let (context1, context, contextInterval) = try LayerCalibration.calibrate(
            l, gains: gains(k, carriers: contextCarriers, shift: 0), lo: G.activation.lo, hi: G.activation.hi,
            gdn: G.inverseGDN(channels: k, identity: contextCarriers, &rng), input: c0, interval: c0i)

        // cond_g_a (§4.4): patch means of the current frame, then their difference with the
        // context's carriers, low-passed, down to y.
        l = ModelLayer(transposed: false, kernel: 4, stride: 4, pad: 0, cin: 3, cout: n)
        for o in 0..<G.carriers { for u in 0..<4 { for v in 0..<4 { l.weights[l.index(o, o, u, v)] = 1 } } }
        for o in G.carriers..<n { G.fillRandomChannel(&l, o, &rng) }
        let (ga0, x1, x1i) = try LayerCalibration.calibrate(l, gains: gains(n, carriers: G.carriers, shift: 1), lo: G.activation.lo,
                                                            hi: G.activation.hi, gdn: G.inverseGDN(channels: n, &rng), input: current, interval: pic)
        l = ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: n + k, cout: n)
        for o in 0..<G.carriers { for u in 0..<5 { for v in 0..<5 {
            let b = G.binomial[u] * G.binomial[v]
            l.weights[l.index(o, o, u, v)] = 2 * b
            for s in 0..<16 { l.weights[l.index(o, n + o * 16 + s, u, v)] = -b }
        } } }
        for o in G.carriers..<n { G.fillRandomChannel(&l, o, &rng) }
        let (ga1, a1, a1i) = try LayerCalibration.calibrate(l, gains: gains(n, carriers: G.carriers, shift: 9), lo: G.activation.lo,
                                                            hi: G.activation.hi, gdn: G.inverseGDN(channels: n, &rng),
                                                            input: concat(x1, context), interval: x1i.hull(contextInterval))
        l = ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: n, cout: m)
        G.fillCarriersAndRandom(&l, &rng)
        let latentGains = (0..<m).map { o -> ChannelGain in o < G.carriers ? .fixed(multiplier: 1, shift: 12) : .target(rms: G.latentRMS) }
        let (ga2, y, _) = try LayerCalibration.calibrate(l, gains: latentGains, lo: Int32(latentContract.lo), hi: Int32(latentContract.hi),
                                                         gdn: nil, input: a1, interval: a1i)

        // cond_h_a and the hyper path of cond_prior: int_hyper's h_a and h_s (§7) but h_s's
        // last layer, which here reads the temporal prior as well.
        let (ha, hs, zCalibration) = try G.hyperprior(yCalibration: y, latentContract: latentContract, n: n, m: m, rng: &rng)
        let entropy = try G.tables(zCalibration: zCalibration, n: n, latentContract: latentContract)
        var hyper = zCalibration, hyperInterval = G.hyperContract
        for layer in hs.prefix(2) { (hyper, hyperInterval) = try LayerCalibration.run(layer, stopAtAccumulator: false, input: hyper, interval: hyperInterval) }

        // cond_prior's temporal prior (§4.2): C down 4× to y's size.
        var temporal: [ModelLayer] = []
        var t = context, ti = contextInterval
        for j in 0..<2 {
            var tl = ModelLayer(transposed: false, kernel: 5, stride: 2, pad: 2, cin: j == 0 ? k : n, cout: n)
            G.fillRandom(&tl, &rng)
            let (done, out, iv) = try LayerCalibration.calibrate(tl, gains: Array(repeating: .target(rms: G.innerRMS), count: n),
                                                                 lo: G.reluActivation.lo, hi: G.reluActivation.hi, gdn: nil, input: t, interval: ti)
            temporal.append(done); t = out; ti = iv
        }
        // The scale indices from both, centred on the index whose table fits each y channel's spread.
        let yPlane = y.shape.height * y.shape.width
        let base = (0..<m).map { c -> Double in
            var sq = 0.0
            for q in 0..<yPlane { let v = Double(y.values[c * yPlane + q]); sq += v * v }
            return Double(G.nearestScaleIndex((sq / Double(yPlane)).squareRoot()))
        }
        l = ModelLayer(transposed: false, kernel: 3, stride: 1, pad: 1, cin: 2 * n, cout: m)
        G.fillRandom(&l, &rng)
        let (scales, _, _) = try LayerCalibration.calibrate(l, gains: base.map { .scaleIndex(base: $0, spread: 1) }, lo: 0,
                                                            hi: Int32(G.scaleCount - 1), gdn: nil, input: concat(hyper, t),
                                                            interval: hyperInterval.hull(ti))

        // cond_synth (§4.3): y up to C's size, with C, then back to pixels, 4×4 a position.
        var synth: [ModelLayer] = []
        var s = y, si = latentContract
        for j in 0..<2 {
            var sl = ModelLayer(transposed: true, kernel: 5, stride: 2, pad: 2, cin: j == 0 ? m : n, cout: n)
            G.fillCarriersAndRandom(&sl, &rng)
            // The upsampling filter's gain is 64: d/2 → 64·d/2 >> 1 = 16·d, kept; then 64·16·d >> 6.
            let (done, out, iv) = try LayerCalibration.calibrate(sl, gains: gains(n, carriers: G.carriers, shift: j == 0 ? 1 : 6),
                                                                 lo: G.activation.lo, hi: G.activation.hi,
                                                                 gdn: G.inverseGDN(channels: n, &rng), input: s, interval: si)
            synth.append(done); s = out; si = iv
        }
        l = ModelLayer(transposed: false, kernel: 3, stride: 1, pad: 1, cin: n + k, cout: n)
        for o in 0..<G.carriers { l.weights[l.index(o, o, 1, 1)] = 1 }
        for o in G.carriers..<n { G.fillRandomChannel(&l, o, &rng) }
        let (sy2, v, vi) = try LayerCalibration.calibrate(l, gains: gains(n, carriers: G.carriers, shift: 0), lo: G.activation.lo,
                                                          hi: G.activation.hi, gdn: G.inverseGDN(channels: n, &rng),
                                                          input: concat(s, context), interval: si.hull(contextInterval))
        synth.append(sy2)
        // Pixel (c, 4i + u, 4j + v) = ref + 16·d / 16 + a faint contribution of the feature
        // channels (about 8 sparse ±1 taps, each about ±0.5 after the shift).
        l = ModelLayer(transposed: false, kernel: 1, stride: 1, pad: 0, cin: n + k, cout: contextCarriers)
        let permille = min(1000, 8_000 / max(n - G.carriers, 1))
        for o in 0..<contextCarriers {
            l.weights[l.index(o, n + o, 0, 0)] = 1024
            l.weights[l.index(o, o / 16, 0, 0)] = 64
            for c in G.carriers..<n where rng.int(0...999) < permille { l.weights[l.index(o, c, 0, 0)] = rng.bool() ? 1 : -1 }
        }
        let (sy3, _, _) = try LayerCalibration.calibrate(l, gains: Array(repeating: .fixed(multiplier: 1, shift: 10), count: contextCarriers),
                                                         lo: 0, hi: 255, gdn: nil, input: concat(v, context), interval: vi.hull(contextInterval))
        synth.append(sy3)

        let contextSpec = (shape: Shape(k, 16, 16), interval: contextInterval)
        let set = try CondModelSet(
            name: name ?? defaultName(seed: seed, n: n, m: m), version: version, entropy: entropy,
            context: try contextGraph([context0, context1]),
            prior: try priorGraph(hs: Array(hs.prefix(2)), temporal: temporal, scales: scales, context: contextSpec, n: n),
            synthesis: try synthesisGraph(synth, context: contextSpec, m: m),
            analysis: CondModelSet.Analysis(latent: try analysisGraph([ga0, ga1, ga2], context: contextSpec),
                                            hyper: try G.graph(ha, input: "y", Shape(m, 4, 4), latentContract, prefix: "cond_h_a")))
        return set
    }

    /// Carriers at exactly 2^−shift, every other channel calibrated to the inner RMS.
    static func gains(_ count: Int, carriers: Int, shift: Int32) -> [ChannelGain] {
        (0..<count).map { $0 < carriers ? .fixed(multiplier: 1, shift: shift) : .target(rms: G.innerRMS) }
    }

    static func concat(_ a: TensorValue, _ b: TensorValue) -> TensorValue {
        TensorValue(shape: Shape(a.shape.channels + b.shape.channels, a.shape.height, a.shape.width), values: a.values + b.values)
    }

    static func contextInput(_ b: inout GraphBuilder, _ c: (shape: Shape, interval: Interval)) -> Int {
        b.input("context", c.shape, storage: LayerCalibration.storage(c.interval), interval: c.interval)
    }

    static func contextGraph(_ layers: [ModelLayer]) throws -> IntegerGraph {
        try G.graph(layers, input: "ref", Shape(3, 64, 64), IntHyperModelSet.pictureInterval, prefix: "cond_context")
    }

    /// §4.2: hyper path (z up 4×) and temporal path (C down 4×), concatenated, to scale indices.
    static func priorGraph(hs: [ModelLayer], temporal: [ModelLayer], scales: ModelLayer, context: (shape: Shape, interval: Interval),
                           n: Int) throws -> IntegerGraph {
        var b = GraphBuilder()
        let c = contextInput(&b, context)
        var h = b.input("z", Shape(n, 1, 1), storage: LayerCalibration.storage(G.hyperContract), interval: G.hyperContract)
        for (j, l) in hs.enumerated() { h = try l.add(to: &b, h, name: "cond_prior_hyper_\(j)") }
        var t = c
        for (j, l) in temporal.enumerated() { t = try l.add(to: &b, t, name: "cond_prior_temporal_\(j)") }
        let both = try b.concat([h, t], name: "cond_prior_hyper_temporal")
        let out = try scales.add(to: &b, both, name: "cond_prior_scales")
        return try b.build(outputs: [out])
    }

    /// §4.3: two transposed convolutions, concat with C, a 3×3 and a 1×1 over concat with C
    /// again, then depth-to-space.
    static func synthesisGraph(_ layers: [ModelLayer], context: (shape: Shape, interval: Interval), m: Int) throws -> IntegerGraph {
        var b = GraphBuilder()
        let c = contextInput(&b, context)
        var x = b.input("y", Shape(m, 4, 4), storage: LayerCalibration.storage(latentContract), interval: latentContract)
        for j in 0..<2 { x = try layers[j].add(to: &b, x, name: "cond_synth_\(j)") }
        for j in 2..<4 {
            let joined = try b.concat([x, c], name: "cond_synth_with_context_\(j)")
            x = try layers[j].add(to: &b, joined, name: "cond_synth_\(j)")
        }
        let frame = try b.depthToSpace(x, block: 4, name: "frame")
        return try b.build(outputs: [frame])
    }

    /// §4.4: patch embedding of the current frame, concat with C, two stride-2 convolutions.
    static func analysisGraph(_ layers: [ModelLayer], context: (shape: Shape, interval: Interval)) throws -> IntegerGraph {
        var b = GraphBuilder()
        var x = b.input("current", Shape(3, 64, 64), storage: LayerCalibration.storage(IntHyperModelSet.pictureInterval),
                        interval: IntHyperModelSet.pictureInterval)
        let c = contextInput(&b, context)
        x = try layers[0].add(to: &b, x, name: "cond_g_a_0")
        let joined = try b.concat([x, c], name: "cond_g_a_with_context")
        x = try layers[1].add(to: &b, joined, name: "cond_g_a_1")
        let y = try layers[2].add(to: &b, x, name: "cond_g_a_2")
        return try b.build(outputs: [y])
    }
}
