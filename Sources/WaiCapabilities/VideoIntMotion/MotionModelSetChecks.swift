/// That an int_motion model set's files fit together (docs/capabilities/video_int_motion.md
/// §2.2–§2.3): channel counts, tables, intervals and spatial maps. Each check names the file.
enum MotionModelSetChecks {
    typealias Checks = IntHyperModelSetChecks

    static func check(_ set: MotionModelSet) throws {
        for p in MotionModelSet.Part.allCases { try checkHyperSynthesis(set.part(p), p) }
        let ps = set.pSynth
        try synthesis(ps, "p_synth.whm", set: set, latents: [.motion, .residual])
        guard let predict = set.predict else { return }
        try synthesis(predict, "predict.whm", set: set, latents: [.motion])
        for (k, input) in predict.inputs.enumerated() where predict.tensors[input].interval != ps.tensors[ps.inputs[k]].interval {
            throw ModelSetError(file: "predict.whm", location: "input tensor '\(predict.tensors[input].name)'",
                                problem: "has contract \(predict.tensors[input].interval), p_synth.whm's input \(k) \(ps.tensors[ps.inputs[k]].interval); they must be equal")
        }
        if let s = set.motionSearch {
            let m = set.motion.latentChannels
            guard s.dxChannel < m, s.dyChannel < m else {
                throw ModelSetError(file: MotionManifest.fileName, location: "$.motion_search",
                                    problem: "names channels \(s.dxChannel) and \(s.dyChannel); y_m has \(m)")
            }
        }
        for p in MotionModelSet.Part.allCases {
            try checkAnalysis(set, p, channels: p == .motion ? 6 : 3,
                              accepts: p == .motion ? IntHyperModelSet.pictureInterval : MotionModelSet.residualInterval)
        }
    }

    static func checkHyperSynthesis(_ s: MotionModelSet.SubCodec, _ p: MotionModelSet.Part) throws {
        let file = "\(p)_h_s.whm"
        let hs = s.hyperSynthesis
        try Checks.oneInOneOut(hs, file)
        try Checks.scaleIndexGraph(hs, file, zInput: 0, entropy: s.entropy, entropyFile: "\(p)_entropy.json")
        try Checks.factor(hs, file, from: [(1, 1), (2, 3)], scale: IntHyperGeometry.hyperFactor)
    }

    /// p_synth (latents y_m, y_r) or predict (y_m): ref first, 3 channels in exactly [0, 255];
    /// the latents with their h_s's channel counts; 3 channels inside [0, 255] out; ×16.
    static func synthesis(_ g: IntegerGraph, _ file: String, set: MotionModelSet, latents: [MotionModelSet.Part]) throws {
        guard g.inputs.count == 1 + latents.count, g.outputs.count == 1 else {
            throw ModelSetError(file: file, problem: "has \(g.inputs.count) inputs and \(g.outputs.count) outputs; "
                + "\(1 + latents.count) inputs (ref, \(latents.map { "y_\($0.rawValue.prefix(1))" }.joined(separator: ", "))) and one output required")
        }
        let ref = g.tensors[g.inputs[0]]
        guard ref.shape.channels == 3, ref.interval == IntHyperModelSet.pictureInterval else {
            throw ModelSetError(file: file, location: "input tensor '\(ref.name)'",
                                problem: "is \(ref.shape.channels) channels with contract \(ref.interval); the reference frame is 3 channels in exactly [0, 255]")
        }
        for (k, p) in latents.enumerated() {
            let y = g.tensors[g.inputs[1 + k]]
            guard y.shape.channels == set.part(p).latentChannels else {
                throw ModelSetError(file: file, location: "input tensor '\(y.name)'",
                                    problem: "has \(y.shape.channels) channels, \(p)_h_s.whm gives \(set.part(p).latentChannels) scale indices per position")
            }
        }
        let out = g.tensors[g.outputs[0]]
        guard out.shape.channels == 3, IntHyperModelSet.pictureInterval.contains(out.interval) else {
            throw ModelSetError(file: file, location: "output tensor '\(out.name)'",
                                problem: "is \(out.shape.channels) channels in \(out.interval); 3 channels inside [0, 255] required")
        }
        for (h, w) in [(1, 1), (2, 3)] {
            let r = try resized(g, file, height: h, width: w)
            guard let s = GraphResizing.outputShape(r), s.height == 16 * h, s.width == 16 * w else {
                throw ModelSetError(file: file, problem: "maps latents \(h)×\(w) to \(GraphResizing.outputShape(r).map { "\($0.height)×\($0.width)" } ?? "nothing"); "
                    + "\(16 * h)×\(16 * w) required (docs/capabilities/video_int_motion.md §2.3)")
            }
        }
    }

    /// `g` at latent size h × w: ref (input 0) at 16h × 16w, every other input h × w.
    static func resized(_ g: IntegerGraph, _ file: String, height h: Int, width w: Int) throws -> IntegerGraph {
        let sizes = g.inputs.indices.map { $0 == 0 ? (height: 16 * h, width: 16 * w) : (height: h, width: w) }
        do { return try GraphResizing.resized(g, sizes: sizes) } catch {
            throw ModelSetError(file: file, problem: "cannot run at latent size \(h)×\(w): \(error)")
        }
    }

    static func checkAnalysis(_ set: MotionModelSet, _ p: MotionModelSet.Part, channels: Int, accepts: Interval) throws {
        guard let a = set.part(p).analysis else {
            throw ModelSetError(file: "\(p)_g_a.whm", problem: "missing: predict.whm is there, so every encoder file must be")
        }
        let (gaFile, haFile) = ("\(p)_g_a.whm", "\(p)_h_a.whm")
        try Checks.oneInOneOut(a.latent, gaFile)
        try Checks.oneInOneOut(a.hyper, haFile)
        let input = a.latent.tensors[a.latent.inputs[0]]
        guard input.shape.channels == channels, input.interval.contains(accepts) else {
            throw ModelSetError(file: gaFile, location: "input tensor '\(input.name)'",
                                problem: "is \(input.shape.channels) channels with contract \(input.interval); \(channels) channels accepting \(accepts) required")
        }
        let m = set.part(p).latentChannels, n = set.part(p).hyperChannels
        let contract = set.latentContract(p)
        let y = a.latent.tensors[a.latent.outputs[0]]
        let coded = IntHyperEncoder.codedLatentInterval(y.interval, shift: a.latentShift)
        guard y.shape.channels == m, contract.contains(coded) else {
            throw ModelSetError(file: gaFile, location: "output tensor '\(y.name)'",
                                problem: "is \(y.shape.channels) channels in \(y.interval) (\(coded) after the analysis shift); p_synth.whm takes \(m) channels in \(contract)")
        }
        let yIn = a.hyper.tensors[a.hyper.inputs[0]]
        guard yIn.shape.channels == m, yIn.interval.contains(y.interval) else {
            throw ModelSetError(file: haFile, location: "input tensor '\(yIn.name)'",
                                problem: "is \(yIn.shape.channels) channels with contract \(yIn.interval); \(gaFile)'s output is \(m) channels in \(y.interval)")
        }
        let z = a.hyper.tensors[a.hyper.outputs[0]]
        guard z.shape.channels == n, set.part(p).hyperContract.contains(z.interval) else {
            throw ModelSetError(file: haFile, location: "output tensor '\(z.name)'",
                                problem: "is \(z.shape.channels) channels in \(z.interval); \(p)_h_s.whm takes \(n) channels in \(set.part(p).hyperContract)")
        }
        for (h, w) in [(1, 1), (2, 3)] { try Checks.maps(a.latent, gaFile, (h * 16, w * 16), to: (h, w)) }
        for (h, w) in [(4, 4), (5, 9)] { try Checks.maps(a.hyper, haFile, (h, w), to: ((h + 3) / 4, (w + 3) / 4)) }
    }
}
