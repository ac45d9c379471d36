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
        guard f.capability == IntHyperModelSet.capability else {
            throw ModelSetError(file: file, location: "$.capability",
                                problem: "\"\(f.capability)\" — this folder is not a \(IntHyperModelSet.capability) model set")
        }
        guard f.format_version == formatVersion else {
            throw ModelSetError(file: file, location: "$.format_version",
                                problem: "version \(f.format_version) is not supported (this host reads \(formatVersion))")
        }
        guard isValidLabel(f.name, maximum: 64) else {
            throw ModelSetError(file: file, location: "$.name", problem: "must be 1…64 characters of A–Z a–z 0–9 . _ -")
        }
        guard isValidLabel(f.version, maximum: 32) else {
            throw ModelSetError(file: file, location: "$.version", problem: "must be 1…32 characters of A–Z a–z 0–9 . _ -")
        }
        for (name, hash) in f.files {
            guard (decoderFiles + encoderFiles).contains(name) else {
                throw ModelSetError(file: file, location: "$.files", problem: "unknown file \"\(name)\" "
                    + "(a model set holds \((decoderFiles + encoderFiles).joined(separator: ", ")))")
            }
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                throw ModelSetError(file: file, location: "$.files[\"\(name)\"]", problem: "not a lowercase hex SHA-256")
            }
        }
        for name in decoderFiles where f.files[name] == nil {
            throw ModelSetError(file: file, location: "$.files", problem: "does not list \(name), which every model set has")
        }
        let analysis = encoderFiles.filter { f.files[$0] != nil }
        guard analysis.isEmpty || analysis.count == encoderFiles.count else {
            throw ModelSetError(file: file, location: "$.files",
                                problem: "lists \(analysis[0]) but not all of \(encoderFiles.joined(separator: ", "))")
        }
        let shift = f.analysis_shift ?? 0
        guard analysisShiftRange.contains(shift) else {
            throw ModelSetError(file: file, location: "$.analysis_shift",
                                problem: "\(shift) is outside \(analysisShiftRange.lowerBound)…\(analysisShiftRange.upperBound)")
        }
        guard shift == 0 || !analysis.isEmpty else {
            throw ModelSetError(file: file, location: "$.analysis_shift",
                                problem: "is \(shift) but the set lists no analysis side (g_a.whm, h_a.whm) it would apply to")
        }
        return IntHyperManifest(name: f.name, version: f.version, files: f.files, analysisShift: shift)
    }

    static func isValidLabel(_ s: String, maximum: Int) -> Bool {
        let u = Array(s.utf8)
        return (1...maximum).contains(u.count) && u.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 95 || $0 == 45
        }
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
