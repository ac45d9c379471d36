/// `wai.video.int_cond` (docs/capabilities/video_int_cond.md): intra frames are int_hyper
/// pictures decoded by `IntHyperDecoder`; a P-frame runs cond_context on the previous
/// reconstruction, decodes z, runs cond_prior on (C, z) for y's tables, decodes y and runs
/// cond_synth on (C, y). Frames are handed out as `VideoIntHyperCodec.Frame`s, so the report
/// and the Y4M writer are VIH's.
public enum VideoIntCondCodec {
    public static let capability = CondModelSet.capability
    public static let defaultGOP = VideoIntMotionCodec.defaultGOP

    public typealias Opened = PredictiveVideoOpened<VideoIntCondPayload>

    public static func open(_ bytes: [UInt8]) throws -> Opened {
        try PredictiveVideoDecoding.open(bytes, capability: capability)
    }

    public static func isVideo(_ bytes: [UInt8]) -> Bool {
        (try? CapabilityRegistry.open(bytes))?.capability == capability
    }

    public typealias Frame = PredictiveVideoFrame

    /// One sequence's graphs at its frame size (§3): instantiated and verified once.
    struct Plan {
        var geometry: CondGeometry
        var context: IntegerGraph
        var prior: IntegerGraph
        var synthesis: IntegerGraph
        var contextShape: Shape
        var zShape: Shape
        var yShape: Shape

        init(_ set: CondModelSet, width: Int, height: Int) throws {
            let g = CondGeometry(width: width, height: height)
            geometry = g
            let c = (height: g.contextHeight, width: g.contextWidth)
            func resized(_ graph: IntegerGraph, _ name: String, _ sizes: [(height: Int, width: Int)]) throws -> IntegerGraph {
                do {
                    return sizes.count == 1 ? try GraphResizing.resized(graph, height: sizes[0].height, width: sizes[0].width)
                                            : try GraphResizing.resized(graph, sizes: sizes)
                } catch let e as GraphError {
                    throw VideoIntCondPayloadError.tooLarge(width: width, height: height, reason: "\(name): \(e)")
                }
            }
            context = try resized(set.context, "cond_context", [(g.paddedHeight, g.paddedWidth)])
            prior = try resized(set.prior, "cond_prior", [c, (g.hyperHeight, g.hyperWidth)])
            synthesis = try resized(set.synthesis, "cond_synth", [c, (g.latentHeight, g.latentWidth)])
            contextShape = Shape(set.contextChannels, g.contextHeight, g.contextWidth)
            zShape = Shape(set.hyperChannels, g.hyperHeight, g.hyperWidth)
            yShape = Shape(set.latentChannels, g.latentHeight, g.latentWidth)
            // The graphs are not tiled (§3): each whole instance and the frame's arrays must fit the bound.
            let graphBytes = [context, prior, synthesis].map { $0.tensors.reduce(0) { $0 + $1.shape.count } * 4 }.max() ?? 0
            let arrays = width * height * 3 * 2 + 4 * (contextShape.count + zShape.count) + 8 * yShape.count
            guard graphBytes + arrays <= MemoryBound.bytes else {
                throw VideoIntCondPayloadError.tooLarge(width: width, height: height,
                                                        reason: "its P-frame graphs need about \((graphBytes + arrays) >> 20) MiB whole (they are not tiled), more than the memory bound of \(MemoryBound.bytes >> 20) MiB (WAIHOST_MEMORY_LIMIT_MIB raises it)")
            }
        }
    }

    /// Decodes frames `range` (default all) in order, from the intra frame at or before its
    /// first (§6), handing each asked-for frame to `each` as soon as it is decoded.
    public static func decode(_ opened: Opened, intraSet: IntHyperModelSet, condSet: CondModelSet, runner: GraphRunner,
                              frames range: ClosedRange<Int>? = nil, each: (Frame) throws -> Void) throws {
        try PredictiveVideoDecoding.decode(opened, intraSet: intraSet, set: condSet, runner: runner, frames: range, each: each) {
            let p = opened.payload
            let plan = try Plan(condSet, width: p.width, height: p.height)
            return { i, reference in try predicted(p, frame: i, reference: reference, plan: plan, set: condSet, runner: runner) }
        }
    }

    /// §6 step 5.2: the context of the extended reference (§3).
    static func context(_ reference: RGB8Image, plan: Plan, set: CondModelSet, runner: GraphRunner) throws -> (TensorValue, RunReport) {
        let g = plan.geometry
        let ref = IntHyperEncoder.paddedPlanes(reference, height: g.paddedHeight, width: g.paddedWidth)
        let (out, report) = try runner.run(plan.context, inputs: [ref], model: ModelGraphID(set, graph: "cond_context"))
        guard let c = out.first, c.shape == plan.contextShape else {
            throw TilingError.badOutput(graph: "cond_context", reason: "the unit returned no \(plan.contextShape) context")
        }
        return (c, report)
    }

    /// §6 step 5.4: cond_prior's scale indices, each inside 0…S−1.
    static func scaleIndices(_ c: TensorValue, z: TensorValue, plan: Plan, set: CondModelSet, runner: GraphRunner) throws -> ([Int32], RunReport) {
        let (out, report) = try runner.run(plan.prior, inputs: [c, z], model: ModelGraphID(set, graph: "cond_prior"))
        guard let s = out.first, s.shape == plan.yShape else {
            throw TilingError.badOutput(graph: "cond_prior", reason: "the unit returned no \(plan.yShape) scale indices")
        }
        let tables = set.entropy.yTables.count
        if let k = s.values.firstIndex(where: { $0 < 0 || Int($0) >= tables }) {
            throw IntHyperPayloadError.scaleIndexOutOfRange(index: k, value: s.values[k], tables: tables, unit: "\(report.backend) (\(report.unit))")
        }
        return (s.values, report)
    }

    /// §6 step 5: z, the context and the prior, y, then cond_synth.
    static func predicted(_ p: VideoIntCondPayload, frame i: Int, reference: RGB8Image, plan: Plan, set: CondModelSet,
                          runner: GraphRunner) throws -> PredictiveVideoDecodedFrame {
        let start = Stopwatch.now()
        let at = p.frames[i].range.lowerBound
        let body = try VideoIntCondPFrame.parse(p.frame(i), frame: i, at: at)
        for (j, expected) in [plan.zShape.count, plan.yShape.count].enumerated() where body.streams[j].count != expected {
            throw VideoIntCondPayloadError.countMismatch(frame: i, field: VideoIntCondPFrame.fieldNames[j] + "_count", offset: at + 8 * j,
                                                         declared: body.streams[j].count, expected: expected)
        }
        let ((c, _), tc) = try Stopwatch.time { try context(reference, plan: plan, set: set, runner: runner) }
        let y: TensorValue, tz: Double, tp: Double, ty: Double, priorReport: RunReport
        do {
            let (z, dz) = try Stopwatch.time { () throws -> TensorValue in
                TensorValue(shape: plan.zShape, values: try IntHyperDecoder.decodeZLanes(
                    body.streams[0].bytes, shape: plan.zShape, contract: set.hyperContract, tables: set.entropy.zTableSet))
            }
            let ((scales, pr), dp) = try Stopwatch.time { try scaleIndices(c, z: z, plan: plan, set: set, runner: runner) }
            let (decodedY, dy) = try Stopwatch.time {
                TensorValue(shape: plan.yShape, values: try IntHyperDecoder.decodeLanes(
                    "y", body.streams[1].bytes, shape: plan.yShape, contract: set.latentContract,
                    tables: set.entropy.yTableSet, selection: scales))
            }
            (y, tz, tp, ty, priorReport) = (decodedY, dz, dp, dy, pr)
        } catch let e as IntHyperPayloadError {
            throw VideoIntCondPayloadError.framePicture(frame: i, offset: at, part: "P-frame latents", error: e)
        }
        let ((out, report), ts) = try Stopwatch.time {
            try runner.run(plan.synthesis, inputs: [c, y], model: ModelGraphID(set, graph: "cond_synth"))
        }
        let image = try VideoIntMotionCodec.frameImage(out, width: p.width, height: p.height, graph: "cond_synth")
        let timings = IntHyperDecoder.Timings(entropyZ: tz, hyperSynthesis: tc + tp, entropyY: ty, synthesis: ts,
                                              total: Stopwatch.now() - start)
        return (image, report, priorReport, timings)
    }
}
