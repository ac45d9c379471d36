/// A `wai.video.int_motion` model set (docs/capabilities/video_int_motion.md §2): two scale
/// hyperprior sub-codecs (motion, residual), each an entropy file in int_hyper's format and an
/// h_s graph, and the P-frame decoder p_synth; for encoding, each sub-codec's analysis graphs
/// and predict. Loading checks every file's hash against the manifest, verifies every graph
/// (ModelContainer) and checks that the files fit together (§2.3).
public struct MotionModelSet: Sendable {
    public static let capability = "wai.video.int_motion"
    /// The residual the encoder forms (§7 step 3): current − prediction.
    public static let residualInterval = Interval(lo: -255, hi: 255)

    public enum Part: String, Sendable, CaseIterable {
        case motion, residual
    }

    /// One sub-codec: int_hyper's entropy model and h_s, and its analysis side when encoding.
    public struct SubCodec: Sendable {
        public let entropy: IntHyperEntropyModel
        /// z (N × h × w) → scale indices (M × 4h × 4w).
        public let hyperSynthesis: IntegerGraph
        public let analysis: IntHyperModelSet.Analysis?

        public init(entropy: IntHyperEntropyModel, hyperSynthesis: IntegerGraph, analysis: IntHyperModelSet.Analysis?) {
            self.entropy = entropy; self.hyperSynthesis = hyperSynthesis; self.analysis = analysis
        }

        public var hyperChannels: Int { hyperSynthesis.tensors[hyperSynthesis.inputs[0]].shape.channels }
        public var hyperContract: Interval { hyperSynthesis.tensors[hyperSynthesis.inputs[0]].interval }
        public var latentChannels: Int { hyperSynthesis.tensors[hyperSynthesis.outputs[0]].shape.channels }
    }

    public let name: String
    public let version: String
    public let fileSHA256: [String: String]
    public let id: [UInt8]
    public let motion: SubCodec
    public let residual: SubCodec
    /// (ref 3 × 16h × 16w, y_m, y_r) → the frame 3 × 16h × 16w (§4).
    public let pSynth: IntegerGraph
    /// (ref, y_m) → the prediction (encoding only).
    public let predict: IntegerGraph?
    /// The encoder's block motion search (§7.1), when the manifest asks for it.
    public let motionSearch: MotionSearch?

    public var idHex: String { Hex.encode(id) }
    public var canEncode: Bool { predict != nil && motion.analysis != nil && residual.analysis != nil }
    public func part(_ p: Part) -> SubCodec { p == .motion ? motion : residual }
    /// p_synth's input contract of y_m (motion) or y_r (residual).
    public func latentContract(_ p: Part) -> Interval { pSynth.tensors[pSynth.inputs[p == .motion ? 1 : 2]].interval }

    public init(name: String, version: String, motion: SubCodec, residual: SubCodec, pSynth: IntegerGraph,
                predict: IntegerGraph?, motionSearch: MotionSearch? = nil) throws {
        guard ModelSetManifestKeys.isValidLabel(name, maximum: 64), ModelSetManifestKeys.isValidLabel(version, maximum: 32) else {
            throw ModelSetError(file: MotionManifest.fileName, location: "$.name",
                                problem: "name \"\(name)\" or version \"\(version)\" is not 1…64 (32) characters of A–Z a–z 0–9 . _ -")
        }
        var hashes: [String: String] = [:]
        for (n, b) in Self.fileBytes(motion: motion, residual: residual, pSynth: pSynth, predict: predict) { hashes[n] = SHA256.hex(b) }
        try self.init(name: name, version: version, hashes: hashes, motion: motion, residual: residual, pSynth: pSynth, predict: predict,
                      motionSearch: motionSearch)
    }

    private init(name: String, version: String, hashes: [String: String], motion: SubCodec, residual: SubCodec,
                 pSynth: IntegerGraph, predict: IntegerGraph?, motionSearch: MotionSearch?) throws {
        self.name = name; self.version = version; self.fileSHA256 = hashes
        self.id = MotionManifest.modelSetID(fileHashes: hashes)
        self.motion = motion; self.residual = residual; self.pSynth = pSynth; self.predict = predict
        self.motionSearch = predict == nil ? nil : motionSearch
        try MotionModelSetChecks.check(self)
    }

    /// Loads the folder; `needsAnalysis` (encoding) also requires and loads the encoder files.
    public static func load(directory: String, needsAnalysis: Bool = false) throws -> MotionModelSet {
        let folder = try ModelSetFolder.predictive(directory, capability: capability, decoderFiles: MotionManifest.decoderFiles)
        let manifest = try MotionManifest.parse(try folder.read(MotionManifest.fileName, limit: 1 << 20))
        let names = try ModelSetFolder.fileNames(needsAnalysis: needsAnalysis, listed: manifest.files, decoderFiles: MotionManifest.decoderFiles,
                                                 encoderFiles: MotionManifest.encoderFiles, manifest: MotionManifest.fileName)
        let bytes = try folder.verified(names, hashes: manifest.files)
        func graph(_ f: String) throws -> IntegerGraph { try folder.graph(f, bytes) }
        func entropy(_ f: String) throws -> IntHyperEntropyModel {
            try IntHyperEntropyModel.parse(bytes[f] ?? [], file: f)
        }
        func sub(_ p: Part) throws -> SubCodec {
            let analysis = needsAnalysis
                ? IntHyperModelSet.Analysis(latent: try graph("\(p)_g_a.whm"), hyper: try graph("\(p)_h_a.whm"),
                                            latentShift: p == .motion ? manifest.motionShift : manifest.residualShift) : nil
            return SubCodec(entropy: try entropy("\(p)_entropy.json"), hyperSynthesis: try graph("\(p)_h_s.whm"), analysis: analysis)
        }
        return try MotionModelSet(name: manifest.name, version: manifest.version, hashes: manifest.files,
                                  motion: try sub(.motion), residual: try sub(.residual), pSynth: try graph("p_synth.whm"),
                                  predict: needsAnalysis ? try graph("predict.whm") : nil, motionSearch: manifest.motionSearch)
    }

    static func fileBytes(motion: SubCodec, residual: SubCodec, pSynth: IntegerGraph, predict: IntegerGraph?) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        for (p, s) in [(Part.motion, motion), (.residual, residual)] {
            out.append(("\(p)_entropy.json", s.entropy.serialized()))
            out.append(("\(p)_h_s.whm", ModelContainer.encode(s.hyperSynthesis)))
        }
        out.append(("p_synth.whm", ModelContainer.encode(pSynth)))
        if let predict, let ma = motion.analysis, let ra = residual.analysis {
            out.append(("motion_g_a.whm", ModelContainer.encode(ma.latent)))
            out.append(("motion_h_a.whm", ModelContainer.encode(ma.hyper)))
            out.append(("predict.whm", ModelContainer.encode(predict)))
            out.append(("residual_g_a.whm", ModelContainer.encode(ra.latent)))
            out.append(("residual_h_a.whm", ModelContainer.encode(ra.hyper)))
        }
        return out
    }

    /// The folder's files, manifest last (it hashes the others).
    public func files() -> [(name: String, bytes: [UInt8])] {
        ModelSetFolder.files(Self.fileBytes(motion: motion, residual: residual, pSynth: pSynth, predict: predict),
                             manifestName: MotionManifest.fileName) {
            MotionManifest(name: name, version: version, files: $0, motionShift: motion.analysis?.latentShift ?? 0,
                           residualShift: residual.analysis?.latentShift ?? 0, motionSearch: motionSearch).serialized()
        }
    }

    public func write(to directory: String) throws { try ModelSetFolder.write(files(), to: directory) }
}
