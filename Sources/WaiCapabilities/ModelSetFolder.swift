/// A model-set folder as both codecs' loaders read it (docs/capabilities/int_hyper.md §2.1,
/// video_int_motion.md §2.1): each file read within its size bound and refused unless its
/// SHA-256 is the manifest's, each graph decoded with the file named in the error.
struct ModelSetFolder {
    let directory: String

    func path(_ f: String) -> String { directory.hasSuffix("/") ? directory + f : directory + "/" + f }

    func read(_ f: String, limit: Int) throws -> [UInt8] {
        do { return try LocalFile.read(path(f), limit: limit) } catch let e as FileError {
            throw ModelSetError(file: f, problem: "\(e)")
        }
    }

    /// The bytes of every file in `names`, each checked against `hashes` (the manifest's).
    func verified(_ names: [String], hashes: [String: String]) throws -> [String: [UInt8]] {
        var bytes: [String: [UInt8]] = [:]
        for f in names {
            let b = try read(f, limit: f.hasSuffix(".json") ? IntHyperEntropyModel.maximumFileSize : ModelContainer.maxContainerSize)
            let actual = SHA256.hex(b)
            guard actual == hashes[f] else {
                throw ModelSetError(file: f, problem: "SHA-256 is \(actual), manifest.json lists \(hashes[f] ?? "nothing"): "
                    + "the file changed since the manifest was written")
            }
            bytes[f] = b
        }
        return bytes
    }

    func graph(_ f: String, _ bytes: [String: [UInt8]]) throws -> IntegerGraph {
        do { return try ModelContainer.decode(bytes[f] ?? [], source: path(f)) } catch {
            throw ModelSetError(file: f, problem: "\(error)")
        }
    }
}
