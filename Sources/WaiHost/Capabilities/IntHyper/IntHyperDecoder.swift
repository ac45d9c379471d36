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
        public var entropy: Double { entropyZ + entropyY }
        enum CodingKeys: String, CodingKey {
            case entropyZ = "entropy_z_ms", hyperSynthesis = "h_s_ms", entropyY = "entropy_y_ms"
            case synthesis = "g_s_ms", total = "total_ms"
        }
    }

    public struct Result: Sendable {
        public var image: RGB8Image
        /// The runs of h_s and g_s (the same unit, unless a unit failed over between them).
        public var hyperSynthesisReport: RunReport
        public var synthesisReport: RunReport
        public var timings: Timings
        /// What went into the graphs, for the probe's decode vector and for tests.
        public var z: TensorValue
        public var y: TensorValue
    }

    /// The graphs at one picture's size, with every size limit checked before anything big
    /// is allocated.
    struct Instance {
        var geometry: IntHyperGeometry
        var hyperSynthesis: IntegerGraph
        var synthesis: IntegerGraph
        var zShape: Shape
        var yShape: Shape
    }

    static func instance(_ set: IntHyperModelSet, width: Int, height: Int) throws -> Instance {
        let g = IntHyperGeometry(width: width, height: height)
        let zShape = Shape(set.hyperChannels, g.hyperHeight, g.hyperWidth)
        let yShape = Shape(set.latentChannels, g.latentHeight, g.latentWidth)
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

    public func decode(_ payload: IntHyperPayload, runner: GraphRunner) throws -> Result {
        let set = modelSet
        let start = Stopwatch.now()
        guard payload.modelSetID == set.id else {
            throw IntHyperPayloadError.modelSetMismatch(payload: Hex.encode(payload.modelSetID), modelSet: set.idHex,
                                                        name: set.name, version: set.version)
        }
        let inst = try Self.instance(set, width: payload.width, height: payload.height)
        guard payload.zCount == inst.zShape.count else {
            throw IntHyperPayloadError.countMismatch(field: "z_count", declared: payload.zCount, expected: inst.zShape.count)
        }
        guard payload.yCount == inst.yShape.count else {
            throw IntHyperPayloadError.countMismatch(field: "y_count", declared: payload.yCount, expected: inst.yShape.count)
        }

        // z: channel c uses z table c.
        let (z, tz) = try Stopwatch.time { () throws -> TensorValue in
            let tables = set.entropy.zTables
            let plane = inst.zShape.height * inst.zShape.width
            let values: [Int32]
            switch payload.version {
            case .v1:
                values = try decodeStream("z", payload.zStream, shape: inst.zShape, contract: set.hyperContract) { i in
                    tables[i / plane]
                }
            case .v2:
                let channels = (0..<inst.zShape.count).map { Int32($0 / plane) }
                values = try decodeLanes("z", payload.zStream, shape: inst.zShape, contract: set.hyperContract,
                                         tables: set.entropy.zTableSet, selection: channels)
            }
            return TensorValue(shape: inst.zShape, values: values)
        }

        let (hs, ths) = try Stopwatch.time { try runner.run(inst.hyperSynthesis, inputs: [z]) }
        guard let scaleTensor = hs.outputs.first, scaleTensor.shape == GraphResizing.outputShape(inst.hyperSynthesis),
              scaleTensor.values.count == scaleTensor.shape.count else {
            throw HostError.runFailed(selector: hs.report.backend, reason: "h_s returned no output of the expected shape")
        }
        let scales = try Self.cropScales(scaleTensor, to: inst.yShape, tables: set.entropy.yTables.count, report: hs.report)

        let (y, ty) = try Stopwatch.time { () throws -> TensorValue in
            let tables = set.entropy.yTables
            let values: [Int32]
            switch payload.version {
            case .v1:
                values = try decodeStream("y", payload.yStream, shape: inst.yShape, contract: set.latentContract) { i in
                    tables[Int(scales[i])]
                }
            case .v2:
                values = try decodeLanes("y", payload.yStream, shape: inst.yShape, contract: set.latentContract,
                                         tables: set.entropy.yTableSet, selection: scales)
            }
            return TensorValue(shape: inst.yShape, values: values)
        }

        let (gs, tgs) = try Stopwatch.time { try runner.run(inst.synthesis, inputs: [y]) }
        guard let rgb = gs.outputs.first, rgb.shape == GraphResizing.outputShape(inst.synthesis),
              rgb.values.count == rgb.shape.count else {
            throw HostError.runFailed(selector: gs.report.backend, reason: "g_s returned no output of the expected shape")
        }
        let image = try Self.rows(rgb, width: payload.width, height: payload.height)
        let timings = Timings(entropyZ: tz, hyperSynthesis: ths, entropyY: ty, synthesis: tgs, total: Stopwatch.now() - start)
        return Result(image: image, hyperSynthesisReport: hs.report, synthesisReport: gs.report, timings: timings, z: z, y: y)
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

    /// Version 2 (docs/capabilities/int_hyper.md §5): every lane decoded and checked on all
    /// cores, then the values checked against `contract`, the lowest index refused first.
    /// `shape.count` is bounded by the graphs' size limit before this is called.
    private func decodeLanes(_ name: String, _ stream: [UInt8], shape: Shape, contract: Interval,
                             tables: RansTableSet, selection: [Int32]) throws -> [Int32] {
        let values: [Int32]
        do {
            values = try RansLaneDecoder.decode(stream, count: shape.count, tables: tables, selection: selection,
                                                threads: onlineCoreCount())
        } catch let e as RansLaneError {
            throw IntHyperPayloadError.lanes(name: name, error: e)
        }
        var lo = Int32.max, hi = Int32.min
        for v in values { lo = min(lo, v); hi = max(hi, v) }
        if !values.isEmpty, !contract.contains(Int64(lo)) || !contract.contains(Int64(hi)),
           let i = values.firstIndex(where: { !contract.contains(Int64($0)) }) {
            let plane = shape.height * shape.width
            throw IntHyperPayloadError.valueOutsideContract(stream: name, index: i, channel: i / plane,
                                                            row: (i % plane) / shape.width, column: i % shape.width,
                                                            value: values[i], contract: contract)
        }
        return values
    }

    /// The top-left `shape` of h_s's output: one table index per y element.
    static func cropScales(_ t: TensorValue, to shape: Shape, tables: Int, report: RunReport) throws -> [Int32] {
        var out = [Int32](repeating: 0, count: shape.count)
        var k = 0
        for c in 0..<shape.channels {
            for i in 0..<shape.height {
                let row = (c * t.shape.height + i) * t.shape.width
                for j in 0..<shape.width {
                    let v = t.values[row + j]
                    guard v >= 0, Int(v) < tables else {
                        throw IntHyperPayloadError.scaleIndexOutOfRange(index: k, value: v, tables: tables,
                                                                        unit: "\(report.backend) (\(report.unit))")
                    }
                    out[k] = v
                    k += 1
                }
            }
        }
        return out
    }

    /// g_s's planar 0…255 output, cropped to the picture and interleaved into RGB8 rows.
    static func rows(_ t: TensorValue, width: Int, height: Int) throws -> RGB8Image {
        let plane = t.shape.height * t.shape.width
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<height {
            for j in 0..<width {
                for c in 0..<3 {
                    // The certificate bounds g_s's output to 0…255; clamping keeps a wrong unit
                    // from trapping here (its bytes differ and the probe would have caught it).
                    let v = t.values[c * plane + i * t.shape.width + j]
                    pixels[(i * width + j) * 3 + c] = UInt8(clamping: v)
                }
            }
        }
        return try RGB8Image(width: width, height: height, pixels: pixels)
    }
}
