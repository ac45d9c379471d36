/// `manifest.json` of an int_cond model set (docs/capabilities/video_int_cond.md §2.1).
public struct CondManifest: Equatable, Sendable {
    public static let fileName = "manifest.json"
    public static let formatVersion = 1
    /// The files a decoder reads, in the order the model-set id hashes them.
    public static let decoderFiles = ["cond_entropy.json", "cond_context.whm", "cond_prior.whm", "cond_synth.whm"]
    /// The encoder's files: both or none.
    public static let encoderFiles = ["cond_g_a.whm", "cond_h_a.whm"]

    public var name: String
    public var version: String
    public var files: [String: String]

    public init(name: String, version: String, files: [String: String]) {
        self.name = name; self.version = version; self.files = files
    }

    /// SHA-256 of the decoder files' names and hashes (§2.1).
    public static func modelSetID(fileHashes: [String: String]) -> [UInt8] {
        ModelSetFolder.modelSetID(capability: CondModelSet.capability, decoderFiles: decoderFiles, fileHashes: fileHashes)
    }

    private struct File: Decodable {
        var capability: String
        var format_version: Int
        var name: String
        var version: String
        var files: [String: String]
    }

    public static func parse(_ bytes: [UInt8]) throws -> CondManifest {
        let file = fileName
        let f = try JSONFile.decode(File.self, bytes, file: file)
        _ = try ModelSetManifestKeys(capability: CondModelSet.capability, formatVersion: formatVersion,
                                     decoderFiles: decoderFiles, encoderFiles: encoderFiles)
            .check(file: file, capability: f.capability, formatVersion: f.format_version, name: f.name, setVersion: f.version,
                   files: f.files)
        return CondManifest(name: f.name, version: f.version, files: f.files)
    }

    /// The file's bytes as the generator writes them: fixed key order.
    public func serialized() -> [UInt8] {
        let names = (Self.decoderFiles + Self.encoderFiles).filter { files[$0] != nil }
        return JSONFile.manifest(capability: CondModelSet.capability, formatVersion: Self.formatVersion, name: name, version: version,
                                 extraLines: "", names: names, files: files)
    }
}
