/// The keys every model set's `manifest.json` has, checked one way for every capability
/// (int_hyper.md §2.1, video_int_motion.md §2.1, video_int_cond.md §2.1): `capability`, `format_version`, `name`,
/// `version` and `files`, whose decoder files must all be listed and whose encoder files are
/// all listed or none. The capability-specific keys are each manifest's own.
struct ModelSetManifestKeys {
    let capability: String
    let formatVersion: Int
    let decoderFiles: [String]
    let encoderFiles: [String]

    /// Throws the first problem, naming its JSON location in `file`; true when the set lists
    /// its encoder files.
    func check(file: String, capability found: String, formatVersion version: Int, name: String, setVersion: String,
               files: [String: String]) throws -> Bool {
        guard found == capability else {
            throw ModelSetError(file: file, location: "$.capability",
                                problem: "\"\(found)\" — this folder is not a \(capability) model set")
        }
        guard version == formatVersion else {
            throw ModelSetError(file: file, location: "$.format_version",
                                problem: "version \(version) is not supported (this host reads \(formatVersion))")
        }
        guard Self.isValidLabel(name, maximum: 64) else {
            throw ModelSetError(file: file, location: "$.name", problem: "must be 1…64 characters of A–Z a–z 0–9 . _ -")
        }
        guard Self.isValidLabel(setVersion, maximum: 32) else {
            throw ModelSetError(file: file, location: "$.version", problem: "must be 1…32 characters of A–Z a–z 0–9 . _ -")
        }
        let known = decoderFiles + encoderFiles
        for (f, hash) in files {
            guard known.contains(f) else {
                throw ModelSetError(file: file, location: "$.files",
                                    problem: "unknown file \"\(f)\" (a model set holds \(known.joined(separator: ", ")))")
            }
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                throw ModelSetError(file: file, location: "$.files[\"\(f)\"]", problem: "not a lowercase hex SHA-256")
            }
        }
        for f in decoderFiles where files[f] == nil {
            throw ModelSetError(file: file, location: "$.files", problem: "does not list \(f), which every model set has")
        }
        let encoder = encoderFiles.filter { files[$0] != nil }
        guard encoder.isEmpty || encoder.count == encoderFiles.count else {
            throw ModelSetError(file: file, location: "$.files",
                                problem: "lists \(encoder[0]) but not all of \(encoderFiles.joined(separator: ", "))")
        }
        return !encoder.isEmpty
    }

    static func isValidLabel(_ s: String, maximum: Int) -> Bool {
        let u = Array(s.utf8)
        return (1...maximum).contains(u.count) && u.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 95 || $0 == 45
        }
    }
}
