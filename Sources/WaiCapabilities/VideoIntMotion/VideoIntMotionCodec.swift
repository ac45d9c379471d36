/// `wai.video.int_motion` (docs/capabilities/video_int_motion.md): intra frames are int_hyper
/// pictures decoded by `IntHyperDecoder`; P-frames decode two hyperprior latents (int_hyper's
/// lane streams and h_s runs) and run p_synth on the previous reconstruction. Frames are
/// handed out as `VideoIntHyperCodec.Frame`s, so the report and the Y4M writer are VIH's.
public enum VideoIntMotionCodec {
    public static let capability = MotionModelSet.capability
    public static let defaultGOP = 8

    public typealias Opened = PredictiveVideoOpened<VideoIntMotionPayload>

    public static func open(_ bytes: [UInt8]) throws -> Opened {
        try PredictiveVideoDecoding.open(bytes, capability: capability)
    }

    public static func isVideo(_ bytes: [UInt8]) -> Bool {
        (try? CapabilityRegistry.open(bytes))?.capability == capability
    }

    public typealias Frame = PredictiveVideoFrame

    /// One sequence's graphs at its frame size (§3): instantiated and verified once.
    struct Plan {
        var geometry: IntHyperGeometry
        var pSynth: IntegerGraph
        /// Per sub-codec, in `Part.allCases` order.
        var hyperSynthesis: [TiledGraph]
        var zShapes: [Shape]
        var yShapes: [Shape]

        init(_ set: MotionModelSet, width: Int, height: Int) throws {
            let g = IntHyperGeometry(width: width, height: height)
            geometry = g
            let (yh, yw) = (g.latentHeight, g.latentWidth)
            do {
                pSynth = try GraphResizing.resized(set.pSynth, sizes: [(g.paddedHeight, g.paddedWidth), (yh, yw), (yh, yw)])
            } catch let e as GraphError {
                throw VideoIntMotionPayloadError.tooLarge(width: width, height: height, reason: "p_synth: \(e)")
            }
            hyperSynthesis = []; zShapes = []; yShapes = []
            for p in MotionModelSet.Part.allCases {
                let s = set.part(p)
                zShapes.append(Shape(s.hyperChannels, g.hyperHeight, g.hyperWidth))
                yShapes.append(Shape(s.latentChannels, yh, yw))
                do {
                    hyperSynthesis.append(try TiledGraph(s.hyperSynthesis, input: Extent(height: g.hyperHeight, width: g.hyperWidth),
                                                       region: Extent(height: yh, width: yw)))
                } catch let e as TilingError {
                    throw ModelSetError(file: "\(p)_h_s.whm", problem: "does not produce \(yh)×\(yw) scale indices (\(e))")
                }
            }
            // p_synth is not tiled (§3): the whole instance and the frame's arrays must fit the bound.
            let graphBytes = pSynth.tensors.reduce(0) { $0 + $1.shape.count } * 4
            let arrays = width * height * 3 * 2 + zip(yShapes, zShapes).reduce(0) { $0 + 8 * $1.0.count + 4 * $1.1.count }
            guard graphBytes + arrays <= MemoryBound.bytes else {
                throw VideoIntMotionPayloadError.tooLarge(width: width, height: height,
                                                          reason: "p_synth needs about \((graphBytes + arrays) >> 20) MiB whole (it is not tiled), more than the memory bound of \(MemoryBound.bytes >> 20) MiB (WAIHOST_MEMORY_LIMIT_MIB raises it)")
            }
        }

        static func index(_ p: MotionModelSet.Part) -> Int { p == .motion ? 0 : 1 }
        func z(_ p: MotionModelSet.Part) -> Shape { zShapes[Self.index(p)] }
        func y(_ p: MotionModelSet.Part) -> Shape { yShapes[Self.index(p)] }
        func hs(_ p: MotionModelSet.Part) -> TiledGraph { hyperSynthesis[Self.index(p)] }
    }

    /// Decodes frames `range` (default all) in order, from the intra frame at or before its
    /// first (§6), handing each asked-for frame to `each` as soon as it is decoded.
    public static func decode(_ opened: Opened, intraSet: IntHyperModelSet, motionSet: MotionModelSet, runner: GraphRunner,
                              frames range: ClosedRange<Int>? = nil, each: (Frame) throws -> Void) throws {
        try PredictiveVideoDecoding.decode(opened, intraSet: intraSet, set: motionSet, runner: runner, frames: range, each: each) {
            let p = opened.payload
            let plan = try Plan(motionSet, width: p.width, height: p.height)
            return { i, reference in try predicted(p, frame: i, reference: reference, plan: plan, set: motionSet, runner: runner) }
        }
    }

    /// §6 step 5: both latents, then p_synth on the extended reference.
    static func predicted(_ p: VideoIntMotionPayload, frame i: Int, reference: RGB8Image, plan: Plan, set: MotionModelSet,
                          runner: GraphRunner) throws -> PredictiveVideoDecodedFrame {
        let start = Stopwatch.now()
        let at = p.frames[i].range.lowerBound
        let body = try VideoIntMotionPFrame.parse(p.frame(i), frame: i, at: at)
        let parts = MotionModelSet.Part.allCases
        for (k, part) in parts.enumerated() {
            for (j, expected) in [plan.z(part).count, plan.y(part).count].enumerated() where body.streams[2 * k + j].count != expected {
                throw VideoIntMotionPayloadError.countMismatch(frame: i, field: VideoIntMotionPFrame.fieldNames[2 * k + j] + "_count",
                                                               offset: at + 8 * (2 * k + j), declared: body.streams[2 * k + j].count, expected: expected)
            }
        }
        var latents: [TensorValue] = [], entropyZ = 0.0, entropyY = 0.0, hyperMs = 0.0
        var hyperReport: RunReport?
        for (k, part) in parts.enumerated() {
            let s = set.part(part)
            do {
                let (z, tz) = try Stopwatch.time { () throws -> TensorValue in
                    TensorValue(shape: plan.z(part), values: try IntHyperDecoder.decodeZLanes(
                        body.streams[2 * k].bytes, shape: plan.z(part), contract: s.hyperContract, tables: s.entropy.zTableSet))
                }
                let ((scales, hs), ths) = try Stopwatch.time {
                    try IntHyperDecoder.scaleIndices(plan.hs(part), z: z, yShape: plan.y(part), tables: s.entropy.yTables.count,
                                                     model: ModelGraphID(set, graph: "\(part)_h_s"), runner: runner, budget: .standard)
                }
                let (y, ty) = try Stopwatch.time {
                    TensorValue(shape: plan.y(part), values: try IntHyperDecoder.decodeLanes(
                        "y", body.streams[2 * k + 1].bytes, shape: plan.y(part), contract: set.latentContract(part),
                        tables: s.entropy.yTableSet, selection: scales))
                }
                latents.append(y); entropyZ += tz; entropyY += ty; hyperMs += ths
                hyperReport = hs.report
            } catch let e as IntHyperPayloadError {
                throw VideoIntMotionPayloadError.framePicture(frame: i, offset: at, part: part.rawValue, error: e)
            }
        }
        let g = plan.geometry
        let ref = IntHyperEncoder.paddedPlanes(reference, height: g.paddedHeight, width: g.paddedWidth)
        let ((out, report), tps) = try Stopwatch.time {
            try runner.run(plan.pSynth, inputs: [ref] + latents, model: ModelGraphID(set, graph: "p_synth"))
        }
        let image = try frameImage(out, width: p.width, height: p.height)
        let timings = IntHyperDecoder.Timings(entropyZ: entropyZ, hyperSynthesis: hyperMs, entropyY: entropyY, synthesis: tps,
                                              total: Stopwatch.now() - start)
        return (image, report, hyperReport ?? report, timings)
    }

    /// The top-left W × H of p_synth's (or predict's) planar output as RGB8 rows.
    static func frameImage(_ outputs: [TensorValue], width: Int, height: Int, graph: String = "p_synth") throws -> RGB8Image {
        guard let t = outputs.first, t.shape.channels == 3, t.shape.height >= height, t.shape.width >= width else {
            throw TilingError.badOutput(graph: graph, reason: "the unit returned no 3-channel frame of at least \(width)×\(height)")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let (h, w) = (t.shape.height, t.shape.width)
        for c in 0..<3 { for i in 0..<height { for j in 0..<width {
            // The certificate bounds the output to 0…255; clamping keeps a wrong unit from trapping.
            pixels[(i * width + j) * 3 + c] = UInt8(clamping: t.values[(c * h + i) * w + j])
        } } }
        return try RGB8Image(width: width, height: height, pixels: pixels)
    }
}
