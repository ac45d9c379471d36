/// A `wai.video.int_cond` model set (docs/capabilities/video_int_cond.md §2): one scale
/// hyperprior whose decoder is conditioned on context features of the previous decoded
/// frame — cond_context (ref → C), cond_prior (C, z → scale indices of y), cond_synth (C, y →
/// the frame) — and, for encoding, cond_g_a (current, C → y) and cond_h_a (y → z). Loading
/// checks every file's hash against the manifest, verifies every graph (ModelContainer) and
/// checks that the files fit together (§2.3).
public struct CondModelSet: Sendable {
    public static let capability = "wai.video.int_cond"

    public let name: String
    public let version: String
    public let fileSHA256: [String: String]
    public let id: [UInt8]
    public let entropy: IntHyperEntropyModel
    /// ref (3 × 64zh × 64zw, 0…255) → C (K × 16zh × 16zw).
    public let context: IntegerGraph
    /// (C, z) → scale indices (M × 4zh × 4zw).
    public let prior: IntegerGraph
    /// (C, y) → the frame (3 × 64zh × 64zw, 0…255).
    public let synthesis: IntegerGraph
    /// cond_g_a ((current, C) → y) and cond_h_a (y → z), when encoding.
    public let analysis: Analysis?

    public struct Analysis: Sendable {
        public let latent: IntegerGraph
        public let hyper: IntegerGraph
        public init(latent: IntegerGraph, hyper: IntegerGraph) { self.latent = latent; self.hyper = hyper }
    }

    public var idHex: String { Hex.encode(id) }
    public var canEncode: Bool { analysis != nil }
    /// K and C's certified interval: cond_context's output.
    public var contextChannels: Int { context.tensors[context.outputs[0]].shape.channels }
    public var contextInterval: Interval { context.tensors[context.outputs[0]].interval }
    /// N and Z: cond_prior's z input.
    public var hyperChannels: Int { prior.tensors[prior.inputs[1]].shape.channels }
    public var hyperContract: Interval { prior.tensors[prior.inputs[1]].interval }
    /// M and Y: cond_synth's y input.
    public var latentChannels: Int { synthesis.tensors[synthesis.inputs[1]].shape.channels }
    public var latentContract: Interval { synthesis.tensors[synthesis.inputs[1]].interval }

    public init(name: String, version: String, entropy: IntHyperEntropyModel, context: IntegerGraph, prior: IntegerGraph,
                synthesis: IntegerGraph, analysis: Analysis?) throws {
        guard ModelSetManifestKeys.isValidLabel(name, maximum: 64), ModelSetManifestKeys.isValidLabel(version, maximum: 32) else {
            throw ModelSetError(file: CondManifest.fileName, location: "$.name",
                                problem: "name \"\(name)\" or version \"\(version)\" is not 1…64 (32) characters of A–Z a–z 0–9 . _ -")
        }
        var hashes: [String: String] = [:]
        for (n, b) in Self.fileBytes(entropy: entropy, context: context, prior: prior, synthesis: synthesis, analysis: analysis) {
            hashes[n] = SHA256.hex(b)
        }
        try self.init(name: name, version: version, hashes: hashes, entropy: entropy, context: context, prior: prior,
                      synthesis: synthesis, analysis: analysis)
    }

    private init(name: String, version: String, hashes: [String: String], entropy: IntHyperEntropyModel, context: IntegerGraph,
                 prior: IntegerGraph, synthesis: IntegerGraph, analysis: Analysis?) throws {
        self.name = name; self.version = version; self.fileSHA256 = hashes
        self.id = CondManifest.modelSetID(fileHashes: hashes)
        self.entropy = entropy; self.context = context; self.prior = prior; self.synthesis = synthesis; self.analysis = analysis
        try CondModelSetChecks.check(self)
    }

    /// Loads the folder; `needsAnalysis` (encoding) also requires and loads the encoder files.
    public static func load(directory: String, needsAnalysis: Bool = false) throws -> CondModelSet {
        let folder = try ModelSetFolder.predictive(directory, capability: capability, decoderFiles: CondManifest.decoderFiles)
        let manifest = try CondManifest.parse(try folder.read(CondManifest.fileName, limit: 1 << 20))
        let names = try ModelSetFolder.fileNames(needsAnalysis: needsAnalysis, listed: manifest.files, decoderFiles: CondManifest.decoderFiles,
                                                 encoderFiles: CondManifest.encoderFiles, manifest: CondManifest.fileName)
        let bytes = try folder.verified(names, hashes: manifest.files)
        func graph(_ f: String) throws -> IntegerGraph { try folder.graph(f, bytes) }
        let analysis = needsAnalysis ? Analysis(latent: try graph("cond_g_a.whm"), hyper: try graph("cond_h_a.whm")) : nil
        return try CondModelSet(name: manifest.name, version: manifest.version, hashes: manifest.files,
                                entropy: try IntHyperEntropyModel.parse(bytes["cond_entropy.json"] ?? [], file: "cond_entropy.json"),
                                context: try graph("cond_context.whm"), prior: try graph("cond_prior.whm"),
                                synthesis: try graph("cond_synth.whm"), analysis: analysis)
    }

    static func fileBytes(entropy: IntHyperEntropyModel, context: IntegerGraph, prior: IntegerGraph, synthesis: IntegerGraph,
                          analysis: Analysis?) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = [
            ("cond_entropy.json", entropy.serialized()),
            ("cond_context.whm", ModelContainer.encode(context)),
            ("cond_prior.whm", ModelContainer.encode(prior)),
            ("cond_synth.whm", ModelContainer.encode(synthesis)),
        ]
        if let a = analysis {
            out.append(("cond_g_a.whm", ModelContainer.encode(a.latent)))
            out.append(("cond_h_a.whm", ModelContainer.encode(a.hyper)))
        }
        return out
    }

    /// The folder's files, manifest last (it hashes the others).
    public func files() -> [(name: String, bytes: [UInt8])] {
        ModelSetFolder.files(Self.fileBytes(entropy: entropy, context: context, prior: prior, synthesis: synthesis, analysis: analysis),
                             manifestName: CondManifest.fileName) {
            CondManifest(name: name, version: version, files: $0).serialized()
        }
    }

    public func write(to directory: String) throws { try ModelSetFolder.write(files(), to: directory) }
}
