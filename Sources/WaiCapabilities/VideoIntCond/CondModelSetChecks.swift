/// That an int_cond model set's files fit together (docs/capabilities/video_int_cond.md
/// §2.2–§2.3): channel counts, tables, intervals and spatial maps. Each check names the file.
enum CondModelSetChecks {
    typealias Checks = IntHyperModelSetChecks
    /// The z sizes the maps are checked at (§2.3).
    static let hyperSizes = [(1, 1), (2, 3)]

    static func check(_ set: CondModelSet) throws {
        try checkContext(set)
        try checkPrior(set)
        try checkSynthesis(set)
        if set.analysis != nil { try checkAnalysis(set) }
    }

    static func checkContext(_ set: CondModelSet) throws {
        let file = "cond_context.whm", g = set.context
        try Checks.oneInOneOut(g, file)
        let ref = g.tensors[g.inputs[0]]
        guard ref.shape.channels == 3, ref.interval == IntHyperModelSet.pictureInterval else {
            throw ModelSetError(file: file, location: "input tensor '\(ref.name)'",
                                problem: "is \(ref.shape.channels) channels with contract \(ref.interval); the reference frame is 3 channels in exactly [0, 255]")
        }
        try maps(g, file, sizes: { h, w in [(64 * h, 64 * w)] }, to: { h, w in (16 * h, 16 * w) })
    }

    /// An input that takes the context: K channels, a contract holding cond_context's output.
    static func checkContextInput(_ g: IntegerGraph, _ file: String, _ set: CondModelSet, input k: Int) throws {
        let c = g.tensors[g.inputs[k]]
        guard c.shape.channels == set.contextChannels, c.interval.contains(set.contextInterval) else {
            throw ModelSetError(file: file, location: "input tensor '\(c.name)'",
                                problem: "is \(c.shape.channels) channels with contract \(c.interval); cond_context.whm gives \(set.contextChannels) channels in \(set.contextInterval)")
        }
    }

    static func twoInOneOut(_ g: IntegerGraph, _ file: String, _ names: String) throws {
        guard g.inputs.count == 2, g.outputs.count == 1 else {
            throw ModelSetError(file: file, problem: "has \(g.inputs.count) inputs and \(g.outputs.count) outputs; 2 inputs (\(names)) and one output required")
        }
    }

    static func checkPrior(_ set: CondModelSet) throws {
        let file = "cond_prior.whm", g = set.prior
        try twoInOneOut(g, file, "C, z")
        try checkContextInput(g, file, set, input: 0)
        try Checks.scaleIndexGraph(g, file, zInput: 1, entropy: set.entropy, entropyFile: "cond_entropy.json")
        try maps(g, file, sizes: { h, w in [(16 * h, 16 * w), (h, w)] }, to: { h, w in (4 * h, 4 * w) })
    }

    static func checkSynthesis(_ set: CondModelSet) throws {
        let file = "cond_synth.whm", g = set.synthesis
        try twoInOneOut(g, file, "C, y")
        try checkContextInput(g, file, set, input: 0)
        let y = g.tensors[g.inputs[1]]
        let m = set.prior.tensors[set.prior.outputs[0]].shape.channels
        guard y.shape.channels == m else {
            throw ModelSetError(file: file, location: "input tensor '\(y.name)'",
                                problem: "has \(y.shape.channels) channels, cond_prior.whm gives \(m) scale indices per position")
        }
        let out = g.tensors[g.outputs[0]]
        guard out.shape.channels == 3, IntHyperModelSet.pictureInterval.contains(out.interval) else {
            throw ModelSetError(file: file, location: "output tensor '\(out.name)'",
                                problem: "is \(out.shape.channels) channels in \(out.interval); 3 channels inside [0, 255] required")
        }
        try maps(g, file, sizes: { h, w in [(16 * h, 16 * w), (4 * h, 4 * w)] }, to: { h, w in (64 * h, 64 * w) })
    }

    static func checkAnalysis(_ set: CondModelSet) throws {
        guard let a = set.analysis else { return }
        let (gaFile, haFile) = ("cond_g_a.whm", "cond_h_a.whm")
        try twoInOneOut(a.latent, gaFile, "current, C")
        let x = a.latent.tensors[a.latent.inputs[0]]
        guard x.shape.channels == 3, x.interval.contains(IntHyperModelSet.pictureInterval) else {
            throw ModelSetError(file: gaFile, location: "input tensor '\(x.name)'",
                                problem: "is \(x.shape.channels) channels with contract \(x.interval); 3 channels accepting [0, 255] required")
        }
        try checkContextInput(a.latent, gaFile, set, input: 1)
        let y = a.latent.tensors[a.latent.outputs[0]]
        guard y.shape.channels == set.latentChannels, set.latentContract.contains(y.interval) else {
            throw ModelSetError(file: gaFile, location: "output tensor '\(y.name)'",
                                problem: "is \(y.shape.channels) channels in \(y.interval); cond_synth.whm takes \(set.latentChannels) channels in \(set.latentContract)")
        }
        try maps(a.latent, gaFile, sizes: { h, w in [(64 * h, 64 * w), (16 * h, 16 * w)] }, to: { h, w in (4 * h, 4 * w) })
        try Checks.oneInOneOut(a.hyper, haFile)
        let yIn = a.hyper.tensors[a.hyper.inputs[0]]
        guard yIn.shape.channels == set.latentChannels, yIn.interval.contains(y.interval) else {
            throw ModelSetError(file: haFile, location: "input tensor '\(yIn.name)'",
                                problem: "is \(yIn.shape.channels) channels with contract \(yIn.interval); \(gaFile)'s output is \(set.latentChannels) channels in \(y.interval)")
        }
        let z = a.hyper.tensors[a.hyper.outputs[0]]
        guard z.shape.channels == set.hyperChannels, set.hyperContract.contains(z.interval) else {
            throw ModelSetError(file: haFile, location: "output tensor '\(z.name)'",
                                problem: "is \(z.shape.channels) channels in \(z.interval); cond_prior.whm takes \(set.hyperChannels) channels in \(set.hyperContract)")
        }
        for (h, w) in hyperSizes { try Checks.maps(a.hyper, haFile, (4 * h, 4 * w), to: (h, w)) }
    }

    /// `g` with its inputs at `sizes(zh, zw)` maps to `expected(zh, zw)`, for each checked z size.
    static func maps(_ g: IntegerGraph, _ file: String, sizes: (Int, Int) -> [(Int, Int)], to expected: (Int, Int) -> (Int, Int)) throws {
        for (h, w) in hyperSizes {
            let s = sizes(h, w), e = expected(h, w)
            let r: IntegerGraph
            do { r = try resized(g, s) } catch {
                throw ModelSetError(file: file, problem: "cannot run with inputs \(text(s)): \(error)")
            }
            guard let out = GraphResizing.outputShape(r), out.height == e.0, out.width == e.1 else {
                throw ModelSetError(file: file, problem: "maps inputs \(text(s)) to \(GraphResizing.outputShape(r).map { "\($0.height)×\($0.width)" } ?? "nothing"); "
                    + "\(e.0)×\(e.1) required (docs/capabilities/video_int_cond.md §2.3)")
            }
        }
    }

    static func resized(_ g: IntegerGraph, _ sizes: [(Int, Int)]) throws -> IntegerGraph {
        sizes.count == 1 ? try GraphResizing.resized(g, height: sizes[0].0, width: sizes[0].1)
                         : try GraphResizing.resized(g, sizes: sizes.map { (height: $0.0, width: $0.1) })
    }

    static func text(_ sizes: [(Int, Int)]) -> String { sizes.map { "\($0.0)×\($0.1)" }.joined(separator: " and ") }
}
