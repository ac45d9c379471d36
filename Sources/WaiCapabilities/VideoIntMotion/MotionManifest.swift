/// `manifest.json` of an int_motion model set (docs/capabilities/video_int_motion.md §2.1).
public struct MotionManifest: Equatable, Sendable {
    public static let fileName = "manifest.json"
    public static let formatVersion = 1
    /// The files a decoder reads, in the order the model-set id hashes them.
    public static let decoderFiles = ["motion_entropy.json", "motion_h_s.whm", "residual_entropy.json", "residual_h_s.whm", "p_synth.whm"]
    /// The encoder's files: all or none.
    public static let encoderFiles = ["motion_g_a.whm", "motion_h_a.whm", "predict.whm", "residual_g_a.whm", "residual_h_a.whm"]

    public var name: String
    public var version: String
    public var files: [String: String]
    public var motionShift: Int
    public var residualShift: Int
    /// `motion_search` (§2.1, §7.1): an encoder hint; nil when absent.
    public var motionSearch: MotionSearch?

    public init(name: String, version: String, files: [String: String], motionShift: Int = 0, residualShift: Int = 0,
                motionSearch: MotionSearch? = nil) {
        self.name = name; self.version = version; self.files = files
        self.motionShift = motionShift; self.residualShift = residualShift; self.motionSearch = motionSearch
    }

    /// SHA-256 of the decoder files' names and hashes (§2.1).
    public static func modelSetID(fileHashes: [String: String]) -> [UInt8] {
        ModelSetFolder.modelSetID(capability: MotionModelSet.capability, decoderFiles: decoderFiles, fileHashes: fileHashes)
    }

    private struct File: Decodable {
        var capability: String
        var format_version: Int
        var name: String
        var version: String
        var files: [String: String]
        var motion_analysis_shift: Int?
        var residual_analysis_shift: Int?
        var motion_search: MotionSearch?
    }

    public static func parse(_ bytes: [UInt8]) throws -> MotionManifest {
        let file = fileName
        let f = try JSONFile.decode(File.self, bytes, file: file)
        let hasEncoder = try ModelSetManifestKeys(capability: MotionModelSet.capability, formatVersion: formatVersion,
                                                  decoderFiles: decoderFiles, encoderFiles: encoderFiles)
            .check(file: file, capability: f.capability, formatVersion: f.format_version, name: f.name, setVersion: f.version,
                   files: f.files)
        var shifts: [Int] = []
        for (key, value) in [("motion_analysis_shift", f.motion_analysis_shift), ("residual_analysis_shift", f.residual_analysis_shift)] {
            let k = value ?? 0
            guard IntHyperManifest.analysisShiftRange.contains(k) else {
                throw ModelSetError(file: file, location: "$.\(key)", problem: "\(k) is outside 0…15")
            }
            guard k == 0 || hasEncoder else {
                throw ModelSetError(file: file, location: "$.\(key)", problem: "is \(k) but the set lists no encoder files it would apply to")
            }
            shifts.append(k)
        }
        if let s = f.motion_search {
            guard hasEncoder else {
                throw ModelSetError(file: file, location: "$.motion_search", problem: "is given but the set lists no encoder files it would apply to")
            }
            try s.validate(file: file)
        }
        return MotionManifest(name: f.name, version: f.version, files: f.files, motionShift: shifts[0], residualShift: shifts[1],
                              motionSearch: f.motion_search)
    }

    /// The file's bytes as the generator writes them: fixed key order.
    public func serialized() -> [UInt8] {
        let names = (Self.decoderFiles + Self.encoderFiles).filter { files[$0] != nil }
        var shiftLines = ""
        if motionShift != 0 { shiftLines += "\n  \"motion_analysis_shift\": \(motionShift)," }
        if residualShift != 0 { shiftLines += "\n  \"residual_analysis_shift\": \(residualShift)," }
        if let s = motionSearch {
            shiftLines += "\n  \"motion_search\": {\"dx_channel\": \(s.dxChannel), \"dy_channel\": \(s.dyChannel), "
                + "\"steps_per_pixel\": \(s.stepsPerPixel), \"range\": \(s.range)},"
        }
        return JSONFile.manifest(capability: MotionModelSet.capability, formatVersion: Self.formatVersion, name: name, version: version,
                                 extraLines: shiftLines, names: names, files: files)
    }
}
