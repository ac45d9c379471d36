/// An int_hyper model set (docs/capabilities/int_hyper.md §2): a folder with manifest.json,
/// entropy.json, h_s.whm and g_s.whm (the decoder side) and, for encoding, g_a.whm and
/// h_a.whm. Loading checks every file's hash against the manifest, verifies every graph's
/// certificate (ModelContainer) and checks that the files fit together: channel counts,
/// the 16×/4× spatial factors, and intervals that make out-of-range values impossible
/// (h_s's output inside the scale-table range, g_s's output inside 0…255, the analysis
/// outputs inside the synthesis input contracts).
public struct IntHyperModelSet: Sendable {
    public static let capability = "wai.neural.int_hyper"
    public static let pictureInterval = Interval(lo: 0, hi: 255)

    public struct Analysis: Sendable {
        /// g_a: picture (3 × 16h × 16w, 0…255) → y (M × h × w).
        public let latent: IntegerGraph
        /// h_a: g_a's output → z (N × ⌈h/4⌉ × ⌈w/4⌉).
        public let hyper: IntegerGraph
        /// k of docs/capabilities/int_hyper.md §2.1 (`analysis_shift`): g_a's output is y at
        /// 2^k steps per unit, h_a reads it so, and the coded y is its rounding shift by k.
        public let latentShift: Int

        public init(latent: IntegerGraph, hyper: IntegerGraph, latentShift: Int = 0) {
            self.latent = latent; self.hyper = hyper; self.latentShift = latentShift
        }
    }

    public let name: String
    public let version: String
    /// SHA-256 of each file, lowercase hex, as the manifest lists them.
    public let fileSHA256: [String: String]
    /// What a payload names (IntHyperManifest.modelSetID).
    public let id: [UInt8]
    public let entropy: IntHyperEntropyModel
    /// h_s: z (N × h × w) → scale index (M × 4h × 4w).
    public let hyperSynthesis: IntegerGraph
    /// g_s: y (M × h × w) → RGB (3 × 16h × 16w), 0…255.
    public let synthesis: IntegerGraph
    public let analysis: Analysis?

    public var idHex: String { Hex.encode(id) }
    /// N: channels of z.
    public var hyperChannels: Int { hyperSynthesis.tensors[hyperSynthesis.inputs[0]].shape.channels }
    /// M: channels of y.
    public var latentChannels: Int { synthesis.tensors[synthesis.inputs[0]].shape.channels }
    /// The input contract of h_s: every decoded z value must lie in it.
    public var hyperContract: Interval { hyperSynthesis.tensors[hyperSynthesis.inputs[0]].interval }
    /// The input contract of g_s: every decoded y value must lie in it.
    public var latentContract: Interval { synthesis.tensors[synthesis.inputs[0]].interval }

    /// A model set from its parts (the generator); the hashes are of the bytes `files()` gives.
    public init(name: String, version: String, entropy: IntHyperEntropyModel, hyperSynthesis: IntegerGraph,
                synthesis: IntegerGraph, analysis: Analysis?) throws {
        var hashes: [String: String] = [:]
        hashes[IntHyperEntropyModel.fileName] = SHA256.hex(entropy.serialized())
        hashes["h_s.whm"] = SHA256.hex(ModelContainer.encode(hyperSynthesis))
        hashes["g_s.whm"] = SHA256.hex(ModelContainer.encode(synthesis))
        if let analysis {
            hashes["g_a.whm"] = SHA256.hex(ModelContainer.encode(analysis.latent))
            hashes["h_a.whm"] = SHA256.hex(ModelContainer.encode(analysis.hyper))
        }
        guard ModelSetManifestKeys.isValidLabel(name, maximum: 64), ModelSetManifestKeys.isValidLabel(version, maximum: 32) else {
            throw ModelSetError(file: IntHyperManifest.fileName, location: "$.name",
                                problem: "name \"\(name)\" or version \"\(version)\" is not 1…64 (32) characters of A–Z a–z 0–9 . _ -")
        }
        try self.init(name: name, version: version, hashes: hashes, entropy: entropy,
                      hyperSynthesis: hyperSynthesis, synthesis: synthesis, analysis: analysis)
    }

    private init(name: String, version: String, hashes: [String: String], entropy: IntHyperEntropyModel,
                 hyperSynthesis: IntegerGraph, synthesis: IntegerGraph, analysis: Analysis?) throws {
        self.name = name; self.version = version; self.fileSHA256 = hashes
        self.id = IntHyperManifest.modelSetID(fileHashes: hashes)
        self.entropy = entropy; self.hyperSynthesis = hyperSynthesis; self.synthesis = synthesis
        self.analysis = analysis
        try IntHyperModelSetChecks.check(self)
    }

    /// Loads the folder; `needsAnalysis` (encoding) also requires and loads g_a/h_a.
    public static func load(directory: String, needsAnalysis: Bool = false) throws -> IntHyperModelSet {
        guard LocalFile.isDirectory(directory) else {
            throw ModelSetError(file: directory, problem: "not a folder (a model set is a folder with manifest.json, entropy.json, h_s.whm, g_s.whm)")
        }
        let folder = ModelSetFolder(directory: directory)
        let manifest = try IntHyperManifest.parse(try folder.read(IntHyperManifest.fileName, limit: 1 << 20))
        var names = IntHyperManifest.decoderFiles
        let hasAnalysis = manifest.files["g_a.whm"] != nil
        if needsAnalysis {
            guard hasAnalysis else {
                throw ModelSetError(file: IntHyperManifest.fileName, location: "$.files",
                                    problem: "lists no analysis side (g_a.whm, h_a.whm): this model set can decode but not encode")
            }
        }
        if needsAnalysis { names += IntHyperManifest.encoderFiles }
        let bytes = try folder.verified(names, hashes: manifest.files)
        func graph(_ f: String) throws -> IntegerGraph { try folder.graph(f, bytes) }
        let entropy = try IntHyperEntropyModel.parse(bytes[IntHyperEntropyModel.fileName] ?? [])
        let analysis = needsAnalysis ? Analysis(latent: try graph("g_a.whm"), hyper: try graph("h_a.whm"),
                                                  latentShift: manifest.analysisShift) : nil
        return try IntHyperModelSet(name: manifest.name, version: manifest.version, hashes: manifest.files,
                                    entropy: entropy, hyperSynthesis: try graph("h_s.whm"),
                                    synthesis: try graph("g_s.whm"), analysis: analysis)
    }

    /// The folder's files, manifest last (it hashes the others).
    public func files() -> [(name: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = [
            (IntHyperEntropyModel.fileName, entropy.serialized()),
            ("h_s.whm", ModelContainer.encode(hyperSynthesis)),
            ("g_s.whm", ModelContainer.encode(synthesis)),
        ]
        if let analysis {
            out.append(("g_a.whm", ModelContainer.encode(analysis.latent)))
            out.append(("h_a.whm", ModelContainer.encode(analysis.hyper)))
        }
        var hashes: [String: String] = [:]
        for (n, b) in out { hashes[n] = SHA256.hex(b) }
        out.append((IntHyperManifest.fileName, IntHyperManifest(name: name, version: version, files: hashes,
                                                                    analysisShift: analysis?.latentShift ?? 0).serialized()))
        return out
    }

    /// Writes the folder (created if missing; existing files of the same names replaced).
    public func write(to directory: String) throws {
        try LocalFile.makeDirectories(directory)
        for (n, b) in files() { try LocalFile.write(b, to: directory + "/" + n) }
    }
}
