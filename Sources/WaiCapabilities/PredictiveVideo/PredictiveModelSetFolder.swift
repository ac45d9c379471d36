/// How int_motion's and int_cond's loaders open a P-frame set's folder and pick its files
/// (each spec's §2.1), and the set's id: one way for both.
extension ModelSetFolder {
    /// The folder, refused unless it is one (the message names what a set holds).
    static func predictive(_ directory: String, capability: String, decoderFiles: [String]) throws -> ModelSetFolder {
        guard LocalFile.isDirectory(directory) else {
            throw ModelSetError(file: directory, problem: "not a folder (a \(capability) model set is a folder with manifest.json, "
                + decoderFiles.joined(separator: ", ") + ")")
        }
        return ModelSetFolder(directory: directory)
    }

    /// The decoder's files, and with `needsAnalysis` (encoding) the encoder's too: refused when
    /// the manifest lists none.
    static func fileNames(needsAnalysis: Bool, listed: [String: String], decoderFiles: [String],
                          encoderFiles: [String], manifest: String) throws -> [String] {
        guard needsAnalysis else { return decoderFiles }
        guard listed[encoderFiles[0]] != nil else {
            throw ModelSetError(file: manifest, location: "$.files",
                                problem: "lists no encoder files (\(encoderFiles.joined(separator: ", "))): this model set can decode but not encode")
        }
        return decoderFiles + encoderFiles
    }

    /// SHA-256 of `"<capability> model set 1\n"` and each decoder file's name and hash, in
    /// the order of `decoderFiles` (§2.1).
    static func modelSetID(capability: String, decoderFiles: [String], fileHashes: [String: String]) -> [UInt8] {
        var text = "\(capability) model set 1\n"
        for f in decoderFiles { text += f + " " + (fileHashes[f] ?? "") + "\n" }
        return SHA256.digest(Array(text.utf8))
    }
}

extension ModelSetFolder {
    /// A set's folder as written: its files, then the manifest (it hashes the others).
    static func files(_ out: [(String, [UInt8])], manifestName: String,
                      manifest: ([String: String]) -> [UInt8]) -> [(name: String, bytes: [UInt8])] {
        var hashes: [String: String] = [:]
        for (n, b) in out { hashes[n] = SHA256.hex(b) }
        return (out + [(manifestName, manifest(hashes))]).map { (name: $0.0, bytes: $0.1) }
    }

    static func write(_ files: [(name: String, bytes: [UInt8])], to directory: String) throws {
        try LocalFile.makeDirectories(directory)
        for (n, b) in files { try LocalFile.write(b, to: directory + "/" + n) }
    }
}
