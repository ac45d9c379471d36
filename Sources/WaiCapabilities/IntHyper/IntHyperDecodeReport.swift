/// What `waihost decode --report/--json` writes (docs/capabilities/int_hyper.md §8): which
/// unit decoded and why, the SHA-256 of the decoded RGB8 rows, sizes and timings.
public struct IntHyperDecodeReport: Codable, Sendable, Equatable {
    public struct ModelSetInfo: Codable, Sendable, Equatable {
        public var name: String
        public var version: String
        public var id: String
    }

    /// One graph's run.
    public struct GraphRun: Codable, Sendable, Equatable {
        public var graph: String
        public var unit: UnitKind
        public var backend: String
        public var device: String
        public var dispatch: DispatchKind
        /// How many tiles it ran in (§3.1; 1: the whole picture at once).
        public var tiles: Int
        /// The units' qualification verdicts for this graph (docs/probe.md §9), when a plugin
        /// unit was considered.
        public var qualification: [QualificationNote]?
    }

    public var capability: String
    public var unit: UnitKind
    public var backend: String
    public var device: String
    public var driver: String
    public var dispatch: DispatchKind
    public var reason: String
    public var rank: Int?
    /// SHA-256 of the decoded RGB8 rows (width·height·3 bytes, no header).
    public var sha256: String
    public var width: Int
    public var height: Int
    public var modelSet: ModelSetInfo
    public var enveloped: Bool
    public var inputBytes: Int
    public var payloadBytes: Int
    /// Input bits per pixel (envelope included when there is one).
    public var bitsPerPixel: Double
    public var runs: [GraphRun]
    public var timings: IntHyperDecoder.Timings
    public var output: String?
    /// With `--latents DIR`: the folder the latents were written to (§8.1).
    public var latents: String?
    /// With `--compare ORIGINAL`: the decoded picture against the original.
    public var comparison: PictureComparison?

    enum CodingKeys: String, CodingKey {
        case capability, unit, backend, device, driver, dispatch, reason, rank, sha256, width, height
        case modelSet = "model_set", enveloped, inputBytes = "input_bytes", payloadBytes = "payload_bytes"
        case bitsPerPixel = "bits_per_pixel", runs, timings, output, latents, comparison
    }

    public init(_ d: IntHyperCodec.Decoded, modelSet: IntHyperModelSet, output: String?) {
        // The picture comes out of g_s, so g_s's unit is the one the report names.
        let r = d.result.synthesisReport
        capability = IntHyperModelSet.capability
        unit = r.unit; backend = r.backend; device = r.device; driver = r.driver
        dispatch = r.dispatch; reason = r.reason; rank = r.rank
        sha256 = d.image.sha256
        width = d.image.width; height = d.image.height
        self.modelSet = ModelSetInfo(name: modelSet.name, version: modelSet.version, id: modelSet.idHex)
        enveloped = d.enveloped
        inputBytes = d.inputBytes
        payloadBytes = d.payloadBytes
        bitsPerPixel = Double(d.inputBytes * 8) / Double(d.image.width * d.image.height)
        runs = [("h_s", d.result.hyperSynthesisReport, d.result.hyperSynthesisTiles), ("g_s", r, d.result.synthesisTiles)].map {
            GraphRun(graph: $0.0, unit: $0.1.unit, backend: $0.1.backend, device: $0.1.device, dispatch: $0.1.dispatch,
                     tiles: $0.2, qualification: $0.1.qualification)
        }
        timings = d.result.timings
        self.output = output
    }
}
