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
        var text = "wai.video.int_cond model set 1\n"
        for f in decoderFiles { text += f + " " + (fileHashes[f] ?? "") + "\n" }
        return SHA256.digest(Array(text.utf8))
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
        guard f.capability == CondModelSet.capability else {
            throw ModelSetError(file: file, location: "$.capability",
                                problem: "\"\(f.capability)\" — this folder is not a \(CondModelSet.capability) model set")
        }
        guard f.format_version == formatVersion else {
            throw ModelSetError(file: file, location: "$.format_version",
                                problem: "version \(f.format_version) is not supported (this host reads \(formatVersion))")
        }
        guard IntHyperManifest.isValidLabel(f.name, maximum: 64) else {
            throw ModelSetError(file: file, location: "$.name", problem: "must be 1…64 characters of A–Z a–z 0–9 . _ -")
        }
        guard IntHyperManifest.isValidLabel(f.version, maximum: 32) else {
            throw ModelSetError(file: file, location: "$.version", problem: "must be 1…32 characters of A–Z a–z 0–9 . _ -")
        }
        let known = decoderFiles + encoderFiles
        for (name, hash) in f.files {
            guard known.contains(name) else {
                throw ModelSetError(file: file, location: "$.files", problem: "unknown file \"\(name)\" (a model set holds \(known.joined(separator: ", ")))")
            }
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                throw ModelSetError(file: file, location: "$.files[\"\(name)\"]", problem: "not a lowercase hex SHA-256")
            }
        }
        for name in decoderFiles where f.files[name] == nil {
            throw ModelSetError(file: file, location: "$.files", problem: "does not list \(name), which every model set has")
        }
        let encoder = encoderFiles.filter { f.files[$0] != nil }
        guard encoder.isEmpty || encoder.count == encoderFiles.count else {
            throw ModelSetError(file: file, location: "$.files", problem: "lists \(encoder[0]) but not all of \(encoderFiles.joined(separator: ", "))")
        }
        return CondManifest(name: f.name, version: f.version, files: f.files)
    }

    /// The file's bytes as the generator writes them: fixed key order.
    public func serialized() -> [UInt8] {
        let names = (Self.decoderFiles + Self.encoderFiles).filter { files[$0] != nil }
        let list = names.map { "    \(JSONFile.quoted($0)): \(JSONFile.quoted(files[$0] ?? ""))" }.joined(separator: ",\n")
        let text = """
            {
              "capability": \(JSONFile.quoted(CondModelSet.capability)),
              "format_version": \(Self.formatVersion),
              "name": \(JSONFile.quoted(name)),
              "version": \(JSONFile.quoted(version)),
              "files": {
            \(list)
              }
            }

            """
        return Array(text.utf8)
    }
}
