/// Decodes a bare `wai.neural.int_hyper` payload (docs/capabilities/int_hyper.md §5):
/// z with the factorized prior's tables, h_s on the runner's unit → scale indices, y with
/// the Gaussian-conditional table of each index, g_s on the unit → RGB8. Entropy decoding
/// runs on the host CPU; only the two graphs run on the unit.
public struct IntHyperDecoder {
    public let modelSet: IntHyperModelSet

    public init(modelSet: IntHyperModelSet) { self.modelSet = modelSet }

    /// Milliseconds spent in each step of one decode.
    public struct Timings: Codable, Sendable, Equatable {
        public var entropyZ: Double
        public var hyperSynthesis: Double
        public var entropyY: Double
        public var synthesis: Double
        public var total: Double
        /// The spot checks of h_s and g_s (docs/probe.md §7): CPU time of their windows, and
        /// how long the decode waited for them after the unit answered; nil when not checked.
        public var spotCheckCPU: Double?
        public var spotCheckWait: Double?
        public var entropy: Double { entropyZ + entropyY }
        enum CodingKeys: String, CodingKey {
            case entropyZ = "entropy_z_ms", hyperSynthesis = "h_s_ms", entropyY = "entropy_y_ms"
            case synthesis = "g_s_ms", total = "total_ms"
            case spotCheckCPU = "spot_check_cpu_ms", spotCheckWait = "spot_check_wait_ms"
        }
    }

    public struct Result: Sendable {
        public var image: RGB8Image
        /// The runs of h_s and g_s (the same unit, unless a unit failed over between them).
        public var hyperSynthesisReport: RunReport
        public var synthesisReport: RunReport
        /// How many tiles each graph ran in (1: the untiled run, §3.1).
        public var hyperSynthesisTiles: Int
        public var synthesisTiles: Int
        public var timings: Timings
        /// What went into the graphs, for the probe's decode vector and for tests.
        public var z: TensorValue
        public var y: TensorValue
        /// y's scale indices (h_s's output cropped to y, §5), kept only when the decode was
        /// asked to keep them (`waihost decode --latents`, §8.1): otherwise they are freed
        /// before g_s runs.
        public var scaleIndices: [Int32]?
    }

    /// The whole graphs at one picture's size: the untiled run, for the probe's decode
    /// vector and for tests comparing tiled runs with it (a decode runs `tiling`).
    struct Instance {
        var geometry: IntHyperGeometry
        var hyperSynthesis: IntegerGraph
        var synthesis: IntegerGraph
        var zShape: Shape
        var yShape: Shape
    }

    /// A picture's geometry and the shapes of z and y under `set` (§3): what the whole
    /// graphs (`instance`) and the tiled ones (`tiling`) are both sized by.
    static func shapes(_ set: IntHyperModelSet, width: Int, height: Int) -> (geometry: IntHyperGeometry, z: Shape, y: Shape) {
        let g = IntHyperGeometry(width: width, height: height)
        return (g, Shape(set.hyperChannels, g.hyperHeight, g.hyperWidth), Shape(set.latentChannels, g.latentHeight, g.latentWidth))
    }

    static func instance(_ set: IntHyperModelSet, width: Int, height: Int) throws -> Instance {
        let (g, zShape, yShape) = shapes(set, width: width, height: height)
        let hs: IntegerGraph, gs: IntegerGraph
        do {
            hs = try GraphResizing.resized(set.hyperSynthesis, height: zShape.height, width: zShape.width)
            gs = try GraphResizing.resized(set.synthesis, height: yShape.height, width: yShape.width)
        } catch let e as GraphError {
            throw IntHyperPayloadError.tooLarge(width: width, height: height, reason: "\(e)")
        }
        // Checked at load for two sizes; checked here for this one.
        guard let s = GraphResizing.outputShape(hs), s.height >= yShape.height, s.width >= yShape.width,
              let p = GraphResizing.outputShape(gs), p.height >= height, p.width >= width else {
            throw ModelSetError(file: "h_s.whm/g_s.whm", problem: "the graphs do not produce a \(width)×\(height) picture")
        }
        return Instance(geometry: g, hyperSynthesis: hs, synthesis: gs, zShape: zShape, yShape: yShape)
    }

    /// The two synthesis graphs planned in tiles over one picture (§3.1): h_s over y's
    /// extent (its output cropped to y), g_s over the picture (its output cropped to it).
    struct Tiling {
        var geometry: IntHyperGeometry
        var hyperSynthesis: TiledGraph
        var synthesis: TiledGraph
        var zShape: Shape
        var yShape: Shape
    }

    static func tiling(_ set: IntHyperModelSet, width: Int, height: Int) throws -> Tiling {
        let (g, zShape, yShape) = shapes(set, width: width, height: height)
        do {
            let hs = try TiledGraph(set.hyperSynthesis, input: Extent(height: zShape.height, width: zShape.width),
                                    region: Extent(height: yShape.height, width: yShape.width))
            let gs = try TiledGraph(set.synthesis, input: Extent(height: yShape.height, width: yShape.width),
                                    region: Extent(height: height, width: width))
            return Tiling(geometry: g, hyperSynthesis: hs, synthesis: gs, zShape: zShape, yShape: yShape)
        } catch let e as TilingError {
            throw ModelSetError(file: "h_s.whm/g_s.whm", problem: "the graphs do not produce a \(width)×\(height) picture (\(e))")
        }
    }

    /// `budget` bounds what one tile's graph holds (§3.1); the default keeps a 24-megapixel
    /// decode with N = 128, M = 192 under 1 GiB.
    public func decode(_ payload: IntHyperPayload, runner: GraphRunner, budget: TileBudget = .standard,
                       keepingScaleIndices: Bool = false) throws -> Result {
        let set = modelSet
        let start = Stopwatch.now()
        guard payload.modelSetID == set.id else {
            throw IntHyperPayloadError.modelSetMismatch(payload: Hex.encode(payload.modelSetID), modelSet: set.idHex,
                                                        name: set.name, version: set.version)
        }
        try IntHyperSizeLimit.check(set, width: payload.width, height: payload.height, encoding: false, budget: budget)
        let plan = try Self.tiling(set, width: payload.width, height: payload.height)
        guard payload.zCount == plan.zShape.count else {
            throw IntHyperPayloadError.countMismatch(field: "z_count", declared: payload.zCount, expected: plan.zShape.count)
        }
        guard payload.yCount == plan.yShape.count else {
            throw IntHyperPayloadError.countMismatch(field: "y_count", declared: payload.yCount, expected: plan.yShape.count)
        }

        // z: channel c uses z table c.
        let (z, tz) = try Stopwatch.time { () throws -> TensorValue in
            let tables = set.entropy.zTables
            let plane = plan.zShape.height * plan.zShape.width
            let values: [Int32]
            switch payload.version {
            case .v1:
                values = try decodeStream("z", payload.zStream, shape: plan.zShape, contract: set.hyperContract) { i in
                    tables[i / plane]
                }
            case .v2:
                values = try Self.decodeZLanes(payload.zStream, shape: plan.zShape, contract: set.hyperContract,
                                               tables: set.entropy.zTableSet)
            }
            return TensorValue(shape: plan.zShape, values: values)
        }

        let ((scales, hsReports), ths) = try Stopwatch.time {
            try Self.scaleIndices(plan.hyperSynthesis, z: z, yShape: plan.yShape, tables: set.entropy.yTables.count,
                                  model: ModelGraphID(set, graph: "h_s"),
                                  runner: runner, budget: budget)
        }

        let (y, ty) = try Stopwatch.time { () throws -> TensorValue in
            let tables = set.entropy.yTables
            let values: [Int32]
            switch payload.version {
            case .v1:
                values = try decodeStream("y", payload.yStream, shape: plan.yShape, contract: set.latentContract) { i in
                    tables[Int(scales[i])]
                }
            case .v2:
                values = try Self.decodeLanes("y", payload.yStream, shape: plan.yShape, contract: set.latentContract,
                                         tables: set.entropy.yTableSet, selection: scales)
            }
            return TensorValue(shape: plan.yShape, values: values)
        }

        // Taken here, so that scales' last use is before g_s unless they are kept.
        let keptScales = keepingScaleIndices ? scales : nil

        let ((image, gsReports), tgs) = try Stopwatch.time {
            try Self.picture(plan.synthesis, y: y, width: payload.width, height: payload.height,
                             model: ModelGraphID(set, graph: "g_s"), runner: runner, budget: budget)
        }
        var timings = Timings(entropyZ: tz, hyperSynthesis: ths, entropyY: ty, synthesis: tgs, total: Stopwatch.now() - start)
        let checked = [hsReports.report, gsReports.report]
        if checked.contains(where: { $0.spotCheckCPUMilliseconds != nil }) {
            timings.spotCheckCPU = checked.reduce(0) { $0 + ($1.spotCheckCPUMilliseconds ?? 0) }
            timings.spotCheckWait = checked.reduce(0) { $0 + ($1.spotCheckWaitMilliseconds ?? 0) }
        }
        return Result(image: image, hyperSynthesisReport: hsReports.report, synthesisReport: gsReports.report,
                      hyperSynthesisTiles: hsReports.tiles, synthesisTiles: gsReports.tiles, timings: timings, z: z, y: y,
                      scaleIndices: keptScales)
    }

    /// h_s over z in tiles: one table index per y element (h_s's output cropped to y, §3),
    /// each checked against the table count as it arrives.
    static func scaleIndices(_ hs: TiledGraph, z: TensorValue, yShape: Shape, tables: Int, model: ModelGraphID? = nil, runner: GraphRunner,
                             budget: TileBudget) throws -> ([Int32], (report: RunReport, tiles: Int)) {
        // 25 MB at 3840×2160, written at once: as huge pages about 12 faults, not 6 075.
        var out = [Int32](hugePagesRepeating: 0, count: yShape.count)
        let reports = try hs.run(budget: budget, runner: runner, name: "h_s", model: model, input: { z.window($0) }) { tile, t, report in
            let (h, w) = (t.shape.height, t.shape.width)
            for c in 0..<yShape.channels {
                for i in tile.output.rows {
                    let src = (c * h + i - tile.originRow) * w - tile.originCol
                    let dst = (c * yShape.height + i) * yShape.width
                    for j in tile.output.cols {
                        let v = t.values[src + j]
                        guard v >= 0, Int(v) < tables else {
                            throw IntHyperPayloadError.scaleIndexOutOfRange(index: dst + j, value: v, tables: tables,
                                                                            unit: "\(report.backend) (\(report.unit))")
                        }
                        out[dst + j] = v
                    }
                }
            }
        }
        return (out, reports)
    }

    /// g_s over y in tiles, each tile's planar 0…255 output interleaved into the picture's
    /// RGB8 rows (the picture is the top-left of g_s's output, §3).
    static func picture(_ gs: TiledGraph, y: TensorValue, width: Int, height: Int, model: ModelGraphID? = nil, runner: GraphRunner,
                        budget: TileBudget) throws -> (RGB8Image, (report: RunReport, tiles: Int)) {
        var pixels = [UInt8](hugePagesRepeating: 0, count: width * height * 3)   // as scaleIndices' out
        let reports = try gs.run(budget: budget, runner: runner, name: "g_s", model: model, input: { y.window($0) }) { tile, t, _ in
            let (h, w) = (t.shape.height, t.shape.width)
            for c in 0..<3 {
                for i in tile.output.rows {
                    let src = (c * h + i - tile.originRow) * w - tile.originCol
                    for j in tile.output.cols {
                        // The certificate bounds g_s's output to 0…255; clamping keeps a wrong unit
                        // from trapping here (its bytes differ and the probe would have caught it).
                        pixels[(i * width + j) * 3 + c] = UInt8(clamping: t.values[src + j])
                    }
                }
            }
        }
        return (try RGB8Image(width: width, height: height, pixels: pixels), reports)
    }

    /// Decodes `shape.count` values in CHW order, each with the table `table(i)` picks, and
    /// refuses one outside `contract` at once; then the final-state check.
    private func decodeStream(_ name: String, _ stream: [UInt8], shape: Shape, contract: Interval,
                              table: (Int) -> FrequencyTable) throws -> [Int32] {
        do {
            var decoder = try RansDecoder(stream)
            // Grown as values arrive: a hostile count costs memory only as fast as it is decoded.
            var values: [Int32] = []
            values.reserveCapacity(min(shape.count, 1 << 20))
            let plane = shape.height * shape.width
            for i in 0..<shape.count {
                let v = try decoder.decode(table: table(i))
                guard contract.contains(Int64(v)) else {
                    throw IntHyperPayloadError.valueOutsideContract(stream: name, index: i, channel: i / plane,
                                                                    row: (i % plane) / shape.width, column: i % shape.width,
                                                                    value: v, contract: contract)
                }
                values.append(v)
            }
            try decoder.finish()
            return values
        } catch let e as RansDecodingError {
            throw IntHyperPayloadError.stream(name: name, error: e)
        }
    }

    /// z's lane stream: channel c's values use z table c (§5).
    static func decodeZLanes(_ stream: [UInt8], shape: Shape, contract: Interval, tables: RansTableSet) throws -> [Int32] {
        // One run per channel: a division per value took 1.4 ms or more for a 3840×2160 z's
        // 261 120 values on the Zen 3 guest, about as long as decoding them on 2 cores; the
        // runs take 0.5 ms, most of it the fresh pages' faults.
        let plane = shape.height * shape.width
        var channels: [Int32] = []
        channels.reserveCapacity(shape.count)
        for c in 0..<shape.channels { channels.append(contentsOf: repeatElement(Int32(c), count: plane)) }
        return try decodeLanes("z", stream, shape: shape, contract: contract, tables: tables, selection: channels)
    }

    /// Version 2 (docs/capabilities/int_hyper.md §5): every lane decoded and checked on all
    /// cores, then the values checked against `contract`, the lowest index refused first.
    /// `shape.count` is bounded by the graphs' size limit before this is called.
    static func decodeLanes(_ name: String, _ stream: [UInt8], shape: Shape, contract: Interval,
                             tables: RansTableSet, selection: [Int32]) throws -> [Int32] {
        let decoded: (values: [Int32], extremes: ClosedRange<Int32>?)
        do {
            decoded = try RansLaneDecoder.decodeWithExtremes(stream, count: shape.count, tables: tables,
                                                             selection: selection, threads: onlineCoreCount())
        } catch let e as RansLaneError {
            throw IntHyperPayloadError.lanes(name: name, error: e)
        }
        let values = decoded.values
        // The decoder's extremes say whether any value is outside; only then is it looked for.
        if let e = decoded.extremes, !contract.contains(Int64(e.lowerBound)) || !contract.contains(Int64(e.upperBound)),
           let i = values.firstIndex(where: { !contract.contains(Int64($0)) }) {
            let plane = shape.height * shape.width
            throw IntHyperPayloadError.valueOutsideContract(stream: name, index: i, channel: i / plane,
                                                            row: (i % plane) / shape.width, column: i % shape.width,
                                                            value: values[i], contract: contract)
        }
        return values
    }
}
