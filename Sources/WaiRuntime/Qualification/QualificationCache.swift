#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Qualification verdicts remembered across runs (docs/probe.md §9), in
/// `qualification-cache.json` beside the probe cache. The key covers the model set and
/// graph, the plugin's bytes, the unit, its device and driver, the host and the
/// qualification's version: a new driver or plugin build is a new key, qualified again.
struct QualificationCache {
    static let fileName = "qualification-cache.json"
    static let format = 1
    /// A file this large is not one a host wrote.
    static let maximumSize = 16 << 20

    struct Entry: Codable, Equatable {
        var verdict: QualificationVerdict
        // For whoever reads the file; not part of the key.
        var backend: String
        /// The unit as a selection names it ("cpu:0"), the string it always was.
        var unit: UnitRef
        var device: String
        var driver: String
    }

    struct File: Codable {
        var format: Int
        var entries: [String: Entry]
    }

    let directory: String
    var path: String { directory + "/" + Self.fileName }

    static func key(_ row: UnitProbeRecord, pluginSHA256: String, model: ModelGraphID) -> String {
        let fields = ["model-set=" + model.modelSet, "graph=" + model.graph, "plugin-sha256=" + pluginSHA256,
                      "unit=\(row.index ?? -1)", "kind=" + row.unit.rawValue, "device=" + row.device, "driver=" + row.driver,
                      "host=" + WaiHostVersion.string, "qualification=" + ModelQualification.version]
        return SHA256.hex(Array(fields.joined(separator: "\n").utf8))
    }

    /// The entries on disk; a missing file is empty, an unreadable or corrupt one is
    /// ignored with a warning (and rewritten whole by the next store).
    func load(warn: (String) -> Void) -> [String: Entry] {
        guard LocalFile.exists(path) else { return [:] }
        let bytes: [UInt8]
        do { bytes = try LocalFile.read(path, limit: Self.maximumSize) } catch {
            warn("qualification cache \(path) cannot be read (\(error)); qualifying afresh")
            return [:]
        }
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)), file.format == Self.format else {
            warn("qualification cache \(path) is corrupt or of another format; ignored")
            return [:]
        }
        return file.entries
    }

    /// Merges `entry` into the file (written beside it and renamed over it).
    func store(_ key: String, _ entry: Entry, warn: (String) -> Void) {
        var entries = load(warn: { _ in })
        entries[key] = entry
        let encoder = JSONCoding.encoder(pretty: true)
        do {
            try LocalFile.makeDirectories(directory)
            try LocalFile.write(Array(try encoder.encode(File(format: Self.format, entries: entries))), to: path)
        } catch {
            warn("qualification cache \(path) cannot be written (\(error)); verdict not cached")
        }
    }
}

/// One host's qualification verdicts: those of this process first, then the file's.
/// Thread-safe; a key qualified by two threads at once is qualified twice, with the same
/// verdict.
final class QualificationBook: @unchecked Sendable {
    private let cache: QualificationCache?
    private let lock = Mutex()
    private var known: [String: QualificationVerdict] = [:]
    private var fileRead = false

    init(directory: String?) { cache = directory.map(QualificationCache.init(directory:)) }

    /// The verdict known for `key`; `warn` hears, once per host, why the file could not be read.
    func verdict(_ key: String, warn: (String) -> Void) -> QualificationVerdict? {
        lock.withLock {
            if !fileRead, let cache {
                for (k, e) in cache.load(warn: warn) where known[k] == nil { known[k] = e.verdict }
                fileRead = true
            }
            return known[key]
        }
    }

    /// Remembers a verdict in this host and the file; `warn` hears why the file could not
    /// be written (the verdict is still used, and found again by the next host).
    func record(_ key: String, _ entry: QualificationCache.Entry, warn: (String) -> Void) {
        lock.withLock {
            known[key] = entry.verdict
            cache?.store(key, entry, warn: warn)
        }
    }
}
