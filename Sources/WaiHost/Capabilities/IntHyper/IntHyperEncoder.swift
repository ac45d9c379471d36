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
    /// picture is the same for every version.
    public func encode(_ image: RGB8Image, runner: GraphRunner,
                       version: IntHyperPayload.Version = IntHyperPayload.defaultVersion) throws -> Result {
        let set = modelSet
        guard let analysis = set.analysis else {
            throw ModelSetError(file: IntHyperManifest.fileName, location: "$.files",
                                problem: "the model set was loaded without its analysis side (g_a.whm, h_a.whm); encoding needs it")
        }
        let inst = try IntHyperDecoder.instance(set, width: image.width, height: image.height)
        let g = inst.geometry
        let ga: IntegerGraph, ha: IntegerGraph
        do {
            ga = try GraphResizing.resized(analysis.latent, height: g.paddedHeight, width: g.paddedWidth)
            ha = try GraphResizing.resized(analysis.hyper, height: g.latentHeight, width: g.latentWidth)
        } catch let e as GraphError {
            throw IntHyperPayloadError.tooLarge(width: image.width, height: image.height, reason: "\(e)")
        }
        let picture = Self.paddedPlanes(image, height: g.paddedHeight, width: g.paddedWidth)
        let y = try single(runner.run(ga, inputs: [picture]).outputs, expected: inst.yShape, graph: "g_a")
        let z = try single(runner.run(ha, inputs: [y]).outputs, expected: inst.zShape, graph: "h_a")
        let hs = try runner.run(inst.hyperSynthesis, inputs: [z])
        guard let scaleTensor = hs.outputs.first, scaleTensor.shape == GraphResizing.outputShape(inst.hyperSynthesis),
              scaleTensor.values.count == scaleTensor.shape.count else {
            throw HostError.runFailed(selector: hs.report.backend, reason: "h_s returned no output of the expected shape")
        }
        let scales = try IntHyperDecoder.cropScales(scaleTensor, to: inst.yShape, tables: set.entropy.yTables.count,
                                                    report: hs.report)

        let zPlane = inst.zShape.height * inst.zShape.width
        let zTable = { (i: Int) in set.entropy.zTables[i / zPlane] }
        let yTable = { (i: Int) in set.entropy.yTables[Int(scales[i])] }
        let payload = IntHyperPayload(version: version, width: image.width, height: image.height, modelSetID: set.id,
                                      zCount: z.values.count, yCount: y.values.count,
                                      zStream: Self.stream(z.values, version: version, table: zTable),
                                      yStream: Self.stream(y.values, version: version, table: yTable))
        return Result(payload: payload, y: y, z: z, hyperSynthesisReport: hs.report)
    }

    /// The values in order, value i with `table(i)`: one rANS stream (version 1) or a lane
    /// stream with the lane count of docs/entropy-coding.md §8.3 (version 2).
    static func stream(_ values: [Int32], version: IntHyperPayload.Version, table: (Int) -> FrequencyTable) -> [UInt8] {
        switch version {
        case .v1:
            var e = RansEncoder()
            for (i, v) in values.enumerated() { e.encode(v, table: table(i)) }
            return e.finish()
        case .v2:
            var e = RansLaneEncoder(forValueCount: values.count)
            for (i, v) in values.enumerated() { e.encode(v, table: table(i)) }
            return e.finish()
        }
    }

    private func single(_ outputs: [TensorValue], expected: Shape, graph: String) throws -> TensorValue {
        guard outputs.count == 1, let t = outputs.first, t.shape == expected, t.values.count == expected.count else {
            throw HostError.runFailed(selector: graph, reason: "\(graph) returned no output of shape \(expected)")
        }
        return t
    }

    /// The picture as 3 planes (CHW), extended to the padded size by repeating the last
    /// row and column, so the border is not pulled toward black.
    static func paddedPlanes(_ image: RGB8Image, height: Int, width: Int) -> TensorValue {
        var values = [Int32](repeating: 0, count: 3 * height * width)
        for c in 0..<3 {
            for i in 0..<height {
                let si = min(i, image.height - 1)
                for j in 0..<width {
                    let sj = min(j, image.width - 1)
                    values[(c * height + i) * width + j] = Int32(image.pixels[(si * image.width + sj) * 3 + c])
                }
            }
        }
        return TensorValue(shape: Shape(3, height, width), values: values)
    }
}
