/// The closed-loop encoder of `wai.video.int_cond` (docs/capabilities/video_int_cond.md §7):
/// intra frames by `IntHyperEncoder` (and decoded by `IntHyperDecoder` for the next reference),
/// P-frames by cond_g_a and cond_h_a with the decoder's own cond_context, cond_prior and
/// cond_synth, so each next reference is exactly the frame the decoder will have.
extension VideoIntCondCodec {
    public typealias Encoded = PredictiveVideoEncoded

    /// cond_g_a and cond_h_a at the sequence's size.
    struct AnalysisPlan {
        var latent: IntegerGraph
        var hyper: IntegerGraph

        init(_ set: CondModelSet, plan: Plan) throws {
            guard let a = set.analysis else {
                throw ModelSetError(file: CondManifest.fileName, location: "$.files",
                                    problem: "the model set was loaded without its encoder files; encoding needs them")
            }
            let g = plan.geometry
            do {
                latent = try GraphResizing.resized(a.latent, sizes: [(g.paddedHeight, g.paddedWidth), (g.contextHeight, g.contextWidth)])
                hyper = try GraphResizing.resized(a.hyper, height: g.latentHeight, width: g.latentWidth)
            } catch let e as GraphError {
                throw VideoIntCondPayloadError.tooLarge(width: g.width, height: g.height, reason: "cond_g_a or cond_h_a: \(e)")
            }
        }
    }

    public static func encode(count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int,
                              frameRate: Rational, aspect: Rational, gop: Int, intraSet: IntHyperModelSet, condSet: CondModelSet,
                              runner: GraphRunner, envelope: Bool = true) throws -> Encoded {
        try PredictiveVideoEncoding.encode(VideoIntCondPayload.self, capability: capability, count: count, frame: frame, chroma: chroma,
                                           width: width, height: height, frameRate: frameRate, aspect: aspect, gop: gop, intraSet: intraSet,
                                           predictedModelSetID: condSet.id, runner: runner, envelope: envelope, requireEncoderFiles: {
            guard intraSet.analysis != nil else {
                throw ModelSetError(file: IntHyperManifest.fileName, location: "$.files",
                                    problem: "the intra model set was loaded without its encoder files; encoding needs them")
            }
        }) {
            let plan = try Plan(condSet, width: width, height: height)
            let analysis = try AnalysisPlan(condSet, plan: plan)
            return { current, reference in
                try predictedFrame(current, reference: reference, plan: plan, analysis: analysis, set: condSet, runner: runner)
            }
        }
    }

    /// §7 P-frame steps 1–5.
    static func predictedFrame(_ current: RGB8Image, reference: RGB8Image, plan: Plan, analysis: AnalysisPlan, set: CondModelSet,
                               runner: GraphRunner) throws -> PredictiveVideoEncoding.PredictedFrame {
        let g = plan.geometry
        // 1. the context, as the decoder computes it.
        let (c, _) = try context(reference, plan: plan, set: set, runner: runner)
        // 2. y from (current, C), z from y.
        let cur = IntHyperEncoder.paddedPlanes(current, height: g.paddedHeight, width: g.paddedWidth)
        let (ys, _) = try runner.run(analysis.latent, inputs: [cur, c], model: ModelGraphID(set, graph: "cond_g_a"))
        guard let y = ys.first, y.shape == plan.yShape else {
            throw TilingError.badOutput(graph: "cond_g_a", reason: "the unit returned no \(plan.yShape) latent")
        }
        let (zs, _) = try runner.run(analysis.hyper, inputs: [y], model: ModelGraphID(set, graph: "cond_h_a"))
        guard let z = zs.first, z.shape == plan.zShape else {
            throw TilingError.badOutput(graph: "cond_h_a", reason: "the unit returned no \(plan.zShape) hyper-latent")
        }
        // 3. y's tables from the decoder's cond_prior.
        let (scales, _) = try scaleIndices(c, z: z, plan: plan, set: set, runner: runner)
        // 4. the two streams.
        let zPlane = plan.zShape.height * plan.zShape.width
        let zStream = IntHyperEncoder.stream(z.values, version: .v2) { set.entropy.zTables[$0 / zPlane] }
        let yStream = IntHyperEncoder.stream(y.values, version: .v2) { set.entropy.yTables[Int(scales[$0])] }
        let body = VideoIntCondPFrame(streams: [.init(count: z.values.count, bytes: zStream), .init(count: y.values.count, bytes: yStream)])
        // 5. the decoder's frame: the next reference.
        let (out, report) = try runner.run(plan.synthesis, inputs: [c, y], model: ModelGraphID(set, graph: "cond_synth"))
        return (body.serialized(), try VideoIntMotionCodec.frameImage(out, width: current.width, height: current.height, graph: "cond_synth"), report)
    }
}
