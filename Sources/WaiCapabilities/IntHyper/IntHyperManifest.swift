/// `manifest.json` of an int_hyper model set (docs/capabilities/int_hyper.md §2.1): the set's
/// name and version and the SHA-256 of each of its files.
public struct IntHyperManifest: Equatable, Sendable {
    public static let fileName = "manifest.json"
    public static let formatVersion = 1
    /// The files a decoder needs; their hashes make the model-set id a payload names.
    public static let decoderFiles = [IntHyperEntropyModel.fileName, "h_s.whm", "g_s.whm"]
    /// The analysis side, needed only to encode.
    public static let encoderFiles = ["g_a.whm", "h_a.whm"]

    public var name: String
    public var version: String
    /// File name → lowercase hex SHA-256.
    public var files: [String: String]
    /// `analysis_shift` (§2.1): g_a's output is y·2^k; 0 when the key is absent.
    public var analysisShift: Int
    public static let analysisShiftRange = 0...15

    public init(name: String, version: String, files: [String: String], analysisShift: Int = 0) {
        self.name = name; self.version = version; self.files = files; self.analysisShift = analysisShift
    }

    /// SHA-256 of the decoder files' names and hashes, in the fixed order of `decoderFiles`.
    /// It changes exactly when a file the decoder reads changes.
    public static func modelSetID(fileHashes: [String: String]) -> [UInt8] {
        var text = "wai.neural.int_hyper model set 1\n"
        for f in decoderFiles { text += f + " " + (fileHashes[f] ?? "") + "\n" }
        return SHA256.digest(Array(text.utf8))
    }

    private struct File: Decodable {
        var capability: String
        var format_version: Int
        var name: String
        var version: String
        var files: [String: String]
        var analysis_shift: Int?
    }

    public static func parse(_ bytes: [UInt8]) throws -> IntHyperManifest {
        let file = fileName
        let f = try JSONFile.decode(File.self, bytes, file: file)
        let hasAnalysis = try ModelSetManifestKeys(capability: IntHyperModelSet.capability, formatVersion: formatVersion,
                                                   decoderFiles: decoderFiles, encoderFiles: encoderFiles)
            .check(file: file, capability: f.capability, formatVersion: f.format_version, name: f.name, setVersion: f.version,
                   files: f.files)
        let shift = f.analysis_shift ?? 0
        guard analysisShiftRange.contains(shift) else {
            throw ModelSetError(file: file, location: "$.analysis_shift",
                                problem: "\(shift) is outside \(analysisShiftRange.lowerBound)…\(analysisShiftRange.upperBound)")
        }
        guard shift == 0 || hasAnalysis else {
            throw ModelSetError(file: file, location: "$.analysis_shift",
                                problem: "is \(shift) but the set lists no analysis side (g_a.whm, h_a.whm) it would apply to")
        }
        return IntHyperManifest(name: f.name, version: f.version, files: f.files, analysisShift: shift)
    }

    /// The file's bytes as the generator writes them: fixed key order.
    public func serialized() -> [UInt8] {
        let names = (Self.decoderFiles + Self.encoderFiles).filter { files[$0] != nil }
        // written only when set, so the sets made before it existed keep their bytes
        let shiftLine = analysisShift == 0 ? "" : "\n  \"analysis_shift\": \(analysisShift),"
        return JSONFile.manifest(capability: IntHyperModelSet.capability, formatVersion: Self.formatVersion, name: name, version: version,
                                 extraLines: shiftLine, names: names, files: files)
    }
}
