/// The closed-loop encoder of `wai.video.int_motion` (docs/capabilities/video_int_motion.md
/// §7): intra frames by `IntHyperEncoder` (and decoded by `IntHyperDecoder` for the next
/// reference), P-frames by the analysis graphs, predict and the decoder's own h_s and
/// p_synth, so each next reference is exactly the frame the decoder will have.
extension VideoIntMotionCodec {
    public typealias Encoded = PredictiveVideoEncoded

    public static func encode(count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int,
                              frameRate: Rational, aspect: Rational, gop: Int, intraSet: IntHyperModelSet, motionSet: MotionModelSet,
                              runner: GraphRunner, envelope: Bool = true) throws -> Encoded {
        try PredictiveVideoEncoding.encode(VideoIntMotionPayload.self, capability: capability, count: count, frame: frame, chroma: chroma,
                                           width: width, height: height, frameRate: frameRate, aspect: aspect, gop: gop, intraSet: intraSet,
                                           predictedModelSetID: motionSet.id, runner: runner, envelope: envelope, requireEncoderFiles: {
            guard motionSet.canEncode, intraSet.analysis != nil else {
                throw ModelSetError(file: MotionManifest.fileName, location: "$.files",
                                    problem: "a model set was loaded without its encoder files; encoding needs them")
            }
        }) {
            let plan = try Plan(motionSet, width: width, height: height)
            return { current, reference in try predictedFrame(current, reference: reference, plan: plan, set: motionSet, runner: runner) }
        }
    }

    /// §7 P-frame steps 1–6.
    static func predictedFrame(_ current: RGB8Image, reference: RGB8Image, plan: Plan, set: MotionModelSet,
                               runner: GraphRunner) throws -> PredictiveVideoEncoding.PredictedFrame {
        let g = plan.geometry
        let (hp, wp) = (g.paddedHeight, g.paddedWidth)
        let cur = IntHyperEncoder.paddedPlanes(current, height: hp, width: wp)
        let ref = IntHyperEncoder.paddedPlanes(reference, height: hp, width: wp)
        guard let predict = set.predict else {
            throw ModelSetError(file: "predict.whm", problem: "not loaded; encoding needs the encoder files")
        }
        let predictGraph: IntegerGraph
        do {
            predictGraph = try GraphResizing.resized(predict, sizes: [(hp, wp), (g.latentHeight, g.latentWidth)])
        } catch let e as GraphError {
            throw VideoIntMotionPayloadError.tooLarge(width: current.width, height: current.height, reason: "predict: \(e)")
        }

        // 1. motion latents from (current, ref).
        let pair = TensorValue(shape: Shape(6, hp, wp), values: cur.values + ref.values)
        let search = set.motionSearch
        let vectors = search?.vectors(current: cur, reference: ref, contract: set.latentContract(.motion)) ?? []
        let (ym, motionStreams) = try analyse(pair, part: .motion, plan: plan, set: set, runner: runner) { analysed, shift in
            // §7.1: the searched vectors replace the flow channels of g_a's output (at its 2^k steps).
            guard let s = search else { return analysed }
            var a = analysed
            let plane = a.shape.height * a.shape.width
            for (k, v) in vectors.enumerated() {
                a.values[s.dxChannel * plane + k] = Int32(v.dx * s.stepsPerPixel) << Int32(shift)
                a.values[s.dyChannel * plane + k] = Int32(v.dy * s.stepsPerPixel) << Int32(shift)
            }
            return a
        }
        // 2–3. the prediction and the residual, in host integers: inside [−255, 255].
        let (predicted, _) = try runner.run(predictGraph, inputs: [ref, ym], model: ModelGraphID(set, graph: "predict"))
        guard let prediction = predicted.first, prediction.shape == cur.shape else {
            throw TilingError.badOutput(graph: "predict", reason: "the unit returned no \(cur.shape) prediction")
        }
        let residual = TensorValue(shape: cur.shape, values: zip(cur.values, prediction.values).map { $0 - $1 })
        // 4–5. residual latents and the four streams.
        let (yr, residualStreams) = try analyse(residual, part: .residual, plan: plan, set: set, runner: runner)
        let body = VideoIntMotionPFrame(streams: motionStreams + residualStreams).serialized()
        // 6. the decoder's frame: the next reference.
        let (out, report) = try runner.run(plan.pSynth, inputs: [ref, ym, yr], model: ModelGraphID(set, graph: "p_synth"))
        return (body, try frameImage(out, width: current.width, height: current.height), report)
    }

    /// One sub-codec's analysis (int_hyper.md §6): g_a, the coded y, h_a, the decoder's h_s for
    /// the tables, and the z and y lane streams.
    static func analyse(_ input: TensorValue, part: MotionModelSet.Part, plan: Plan, set: MotionModelSet, runner: GraphRunner,
                        refine: (TensorValue, Int) -> TensorValue = { a, _ in a }) throws -> (TensorValue, [VideoIntMotionPFrame.Stream]) {
        let s = set.part(part)
        guard let a = s.analysis else {
            throw ModelSetError(file: "\(part)_g_a.whm", problem: "not loaded; encoding needs the encoder files")
        }
        let g = plan.geometry
        let ga: TiledGraph, ha: TiledGraph
        do {
            ga = try TiledGraph(a.latent, input: Extent(height: g.paddedHeight, width: g.paddedWidth))
            ha = try TiledGraph(a.hyper, input: Extent(height: g.latentHeight, width: g.latentWidth))
        } catch let e as TilingError {
            throw ModelSetError(file: "\(part)_g_a.whm/\(part)_h_a.whm", problem: "the graphs do not analyse a \(g.width)×\(g.height) frame (\(e))")
        }
        let analysed = refine(try IntHyperEncoder.whole(ga, shape: plan.y(part), runner: runner, budget: .standard, name: "\(part)_g_a",
                                                        model: ModelGraphID(set, graph: "\(part)_g_a")) { input.window($0) }, a.latentShift)
        let z = try IntHyperEncoder.whole(ha, shape: plan.z(part), runner: runner, budget: .standard, name: "\(part)_h_a",
                                          model: ModelGraphID(set, graph: "\(part)_h_a")) { analysed.window($0) }
        let y = IntHyperEncoder.codedLatent(analysed, shift: a.latentShift)
        let (scales, _) = try IntHyperDecoder.scaleIndices(plan.hs(part), z: z, yShape: plan.y(part), tables: s.entropy.yTables.count,
                                                           model: ModelGraphID(set, graph: "\(part)_h_s"), runner: runner, budget: .standard)
        let zPlane = plan.z(part).height * plan.z(part).width
        let zStream = IntHyperEncoder.stream(z.values, version: .v2) { s.entropy.zTables[$0 / zPlane] }
        let yStream = IntHyperEncoder.stream(y.values, version: .v2) { s.entropy.yTables[Int(scales[$0])] }
        return (y, [.init(count: z.values.count, bytes: zStream), .init(count: y.values.count, bytes: yStream)])
    }
}
