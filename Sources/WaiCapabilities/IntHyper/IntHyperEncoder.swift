/// Encodes an RGB8 picture into a bare `wai.neural.int_hyper` payload
/// (docs/capabilities/int_hyper.md §6): g_a and h_a (the analysis side, integer graphs
/// too) give y and z, already clamped to g_s's and h_s's input contracts by their
/// certificates; then the SAME integer h_s the decoder runs picks each y element's table,
/// so encoder and decoder always select identical tables.
public struct IntHyperEncoder {
    public let modelSet: IntHyperModelSet

    public init(modelSet: IntHyperModelSet) { self.modelSet = modelSet }

    public struct Result: Sendable {
        public var payload: IntHyperPayload
        public var y: TensorValue
        public var z: TensorValue
        /// h_s's run (the tables' source) and its unit.
        public var hyperSynthesisReport: RunReport
        public var bytes: [UInt8] { payload.serialized() }
    }

    /// `version` picks the stream coding (docs/capabilities/int_hyper.md §4); the decoded
    /// picture is the same for every version. `budget` bounds what one tile's graph holds
    /// (§3.1), as for decoding.
    public func encode(_ image: RGB8Image, runner: GraphRunner, budget: TileBudget = .standard,
                       version: IntHyperPayload.Version = IntHyperPayload.defaultVersion) throws -> Result {
        try encode(image, runner: runner, budget: budget, version: version, lanes: nil)
    }

    /// `lanes` (1…32) replaces the host's lane rule in version 2, for tests that need a
    /// payload of several lanes from a small picture (any lane count is valid, §4.1).
    func encode(_ image: RGB8Image, runner: GraphRunner, budget: TileBudget, version: IntHyperPayload.Version,
                lanes: Int?) throws -> Result {
        let set = modelSet
        guard let analysis = set.analysis else {
            throw ModelSetError(file: IntHyperManifest.fileName, location: "$.files",
                                problem: "the model set was loaded without its analysis side (g_a.whm, h_a.whm); encoding needs it")
        }
        try IntHyperSizeLimit.check(set, width: image.width, height: image.height, encoding: true, budget: budget)
        let plan = try IntHyperDecoder.tiling(set, width: image.width, height: image.height)
        let g = plan.geometry
        let ga: TiledGraph, ha: TiledGraph
        do {
            ga = try TiledGraph(analysis.latent, input: Extent(height: g.paddedHeight, width: g.paddedWidth))
            ha = try TiledGraph(analysis.hyper, input: Extent(height: g.latentHeight, width: g.latentWidth))
        } catch let e as TilingError {
            throw ModelSetError(file: "g_a.whm/h_a.whm", problem: "the graphs do not analyse a \(image.width)×\(image.height) picture (\(e))")
        }
        guard ga.outputExtent == Extent(height: plan.yShape.height, width: plan.yShape.width),
              ha.outputExtent == Extent(height: plan.zShape.height, width: plan.zShape.width) else {
            throw ModelSetError(file: "g_a.whm/h_a.whm", problem: "the graphs map a \(image.width)×\(image.height) picture to "
                + "y \(ga.outputExtent) and z \(ha.outputExtent), not \(plan.yShape.height)×\(plan.yShape.width) and \(plan.zShape.height)×\(plan.zShape.width)")
        }
        let analysed = try Self.whole(ga, shape: plan.yShape, runner: runner, budget: budget, name: "g_a", model: ModelGraphID(set, graph: "g_a")) { w in
            Self.paddedPlanes(image, window: w)
        }
        // h_a reads g_a's output at its own resolution (§6): rounding y first would bias z and so every scale
        let z = try Self.whole(ha, shape: plan.zShape, runner: runner, budget: budget, name: "h_a", model: ModelGraphID(set, graph: "h_a")) { analysed.window($0) }
        let y = Self.codedLatent(analysed, shift: analysis.latentShift)
        let (scales, hs) = try IntHyperDecoder.scaleIndices(plan.hyperSynthesis, z: z, yShape: plan.yShape,
                                                            tables: set.entropy.yTables.count, model: ModelGraphID(set, graph: "h_s"), runner: runner, budget: budget)

        let zPlane = plan.zShape.height * plan.zShape.width
        let zTable = { (i: Int) in set.entropy.zTables[i / zPlane] }
        let yTable = { (i: Int) in set.entropy.yTables[Int(scales[i])] }
        let payload = IntHyperPayload(version: version, width: image.width, height: image.height, modelSetID: set.id,
                                      zCount: z.values.count, yCount: y.values.count,
                                      zStream: Self.stream(z.values, version: version, lanes: lanes, table: zTable),
                                      yStream: Self.stream(y.values, version: version, lanes: lanes, table: yTable))
        return Result(payload: payload, y: y, z: z, hyperSynthesisReport: hs.report)
    }

    /// The coded y from g_a's output at 2^k steps per unit (§2.1 `analysis_shift`): the
    /// rounding shift (v + 2^(k−1)) >> k, halves away from −∞; k = 0 is g_a's output itself.
    static func codedLatent(_ analysed: TensorValue, shift k: Int) -> TensorValue {
        guard k > 0 else { return analysed }
        // in 64 bits: v + 2^(k−1) may pass Int32.max; the result is inside g_s's contract (§2.3 check)
        let half = Int64(1) << (k - 1)
        return TensorValue(shape: analysed.shape, values: analysed.values.map { Int32(truncatingIfNeeded: (Int64($0) + half) >> Int64(k)) })
    }

    /// The coded y's interval for g_a's certified output interval (the check of §2.3).
    static func codedLatentInterval(_ i: Interval, shift k: Int) -> Interval {
        guard k > 0 else { return i }
        let half = Int64(1) << (k - 1)
        return Interval(lo: (i.lo + half) >> Int64(k), hi: (i.hi + half) >> Int64(k))
    }

    /// A graph's whole output, assembled from its tiles.
    static func whole(_ tg: TiledGraph, shape: Shape, runner: GraphRunner, budget: TileBudget, name: String, model: ModelGraphID?,
                              input: (Window) throws -> TensorValue) throws -> TensorValue {
        var values = [Int32](repeating: 0, count: shape.count)
        _ = try tg.run(budget: budget, runner: runner, name: name, model: model, input: input) { tile, t, _ in
            guard t.shape.channels == shape.channels else {
                throw TilingError.badOutput(graph: name, reason: "\(t.shape.channels) channels, \(shape.channels) expected")
            }
            let (h, w) = (t.shape.height, t.shape.width)
            for c in 0..<shape.channels {
                for i in tile.output.rows {
                    let src = (c * h + i - tile.originRow) * w - tile.originCol
                    let dst = (c * shape.height + i) * shape.width
                    for j in tile.output.cols { values[dst + j] = t.values[src + j] }
                }
            }
        }
        return TensorValue(shape: shape, values: values)
    }

    /// The values in order, value i with `table(i)`: one rANS stream (version 1) or a lane
    /// stream with the lane count of docs/entropy-coding.md §8.3 (version 2), which needs the
    /// single stream's length first.
    static func stream(_ values: [Int32], version: IntHyperPayload.Version, lanes: Int? = nil,
                       table: (Int) -> FrequencyTable) -> [UInt8] {
        var single = RansEncoder()
        for (i, v) in values.enumerated() { single.encode(v, table: table(i)) }
        let one = single.finish()
        guard version == .v2 else { return one }
        // laneCount(…) is in 1…32, which RansLaneEncoder(laneCount:) always takes
        var e = RansLaneEncoder(laneCount: lanes ?? RansLanes.laneCount(forValueCount: values.count, singleStreamBytes: one.count))
            ?? RansLaneEncoder(forValueCount: values.count)
        for (i, v) in values.enumerated() { e.encode(v, table: table(i)) }
        return e.finish()
    }

    /// Window `w` of the picture extended to a multiple of 16 (§3) as 3 planes (CHW): the
    /// last row and column repeat, so the border is not pulled toward black.
    static func paddedPlanes(_ image: RGB8Image, height: Int, width: Int) -> TensorValue {
        paddedPlanes(image, window: Window(rows: 0..<height, cols: 0..<width))
    }

    static func paddedPlanes(_ image: RGB8Image, window w: Window) -> TensorValue {
        let (height, width) = (w.rows.count, w.cols.count)
        var values = [Int32](repeating: 0, count: 3 * height * width)
        image.pixels.withUnsafeBufferPointer { px in
            for c in 0..<3 {
                for (i, si) in w.rows.enumerated() {
                    let row = min(si, image.height - 1) * image.width
                    for (j, sj) in w.cols.enumerated() {
                        values[(c * height + i) * width + j] = Int32(px[(row + min(sj, image.width - 1)) * 3 + c])
                    }
                }
            }
        }
        return TensorValue(shape: Shape(3, height, width), values: values)
    }
}
