#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Probe verdicts remembered across runs (docs/probe.md, "Cache"). The key covers
/// everything that can change a verdict — the plugin's bytes, the unit, its device and
/// driver, the host and the suite — and nothing that cannot (no mtime, no path).
struct ProbeCache {
    static let fileName = "probe-cache.json"
    static let format = 1

    struct Entry: Codable, Equatable {
        var outcome: ProbeOutcome
        var speed: ProbeSpeed?
        // For whoever reads the file; not part of the key.
        var backend: String
        var device: String
        var driver: String
    }

    /// A plugin's unit listing and the identity it was listed under (docs/probe.md §5,
    /// "Listing"), by plugin path.
    struct Listing: Codable, Equatable {
        /// `ListingIdentity.key` when it was listed.
        var identity: String
        var pluginSHA256: String
        var name: String
        var version: String
        var abiMinor: UInt32
        var units: [UnitInfo]
        /// The files its worker had mapped: their stats are part of the identity.
        var mapped: [String]

        enum CodingKeys: String, CodingKey {
            case identity, pluginSHA256 = "plugin_sha256", name, version, abiMinor = "abi_minor", units, mapped
        }
    }

    /// Everything in the file. `listings` and `files` are absent from files of older hosts
    /// (which ignore them in newer files).
    struct Contents: Equatable {
        var entries: [String: Entry] = [:]
        var listings: [String: Listing] = [:]
        var files: [String: FileHashes.Entry] = [:]
    }

    struct File: Codable {
        var format: Int
        var entries: [String: Entry]
        var listings: [String: Listing]?
        var files: [String: FileHashes.Entry]?
    }

    let directory: String
    var path: String { directory + "/" + Self.fileName }

    static func key(pluginSHA256: String, unit: UnitInfo) -> String {
        let fields = ["plugin-sha256=" + pluginSHA256, "unit=\(unit.index)", "kind=" + unit.kind.rawValue,
                      "device=" + unit.device, "driver=" + unit.driver,
                      "host=" + WaiHostVersion.string, "suite=" + ProbeSuite.version]
        return SHA256.hex(Array(fields.joined(separator: "\n").utf8))
    }

    /// The verdicts on disk; a missing file is an empty cache, a corrupt one is ignored
    /// with a warning (it is rewritten whole by the next store).
    func load(warn: (String) -> Void) -> [String: Entry] { loadAll(warn: warn).entries }

    /// Verdicts, listings and file hashes on disk.
    func loadAll(warn: (String) -> Void) -> Contents {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno != ENOENT { warn("probe cache \(path) cannot be read (\(String(cString: strerror(errno)))); probing afresh") }
            return Contents()
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                warn("probe cache \(path) cannot be read (\(String(cString: strerror(errno)))); probing afresh")
                return Contents()
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            // A cache file of many megabytes is not one this host wrote.
            if bytes.count > 16 << 20 {
                warn("probe cache \(path) is implausibly large; ignored")
                return Contents()
            }
        }
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)), file.format == Self.format else {
            warn("probe cache \(path) is corrupt or of another format; ignored")
            return Contents()
        }
        return Contents(entries: file.entries, listings: file.listings ?? [:], files: file.files ?? [:])
    }

    /// Merges `entries` into the file: written to a temporary file in the same folder,
    /// then renamed over the old one, so a reader never sees half a cache.
    func store(_ entries: [String: Entry], warn: (String) -> Void) {
        store(Contents(entries: entries), warn: warn)
    }

    /// Merges verdicts, listings and file hashes into the file (`update.files` is the whole
    /// memory of hashes, not a part of it).
    func store(_ update: Contents, warn: (String) -> Void) {
        guard update != Contents() else { return }
        guard makeDirectories(directory) else {
            warn("probe cache folder \(directory) cannot be created (\(String(cString: strerror(errno)))); results not cached")
            return
        }
        var merged = loadAll(warn: { _ in })
        for (k, v) in update.entries { merged.entries[k] = v }
        for (k, v) in update.listings { merged.listings[k] = v }
        if !update.files.isEmpty { merged.files = update.files }
        let encoder = JSONCoding.encoder(pretty: true)
        let file = File(format: Self.format, entries: merged.entries,
                        listings: merged.listings.isEmpty ? nil : merged.listings,
                        files: merged.files.isEmpty ? nil : merged.files)
        guard let data = try? encoder.encode(file) else { return }
        let tmp = "\(path).tmp.\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            warn("probe cache \(tmp) cannot be written (\(String(cString: strerror(errno)))); results not cached")
            return
        }
        let ok = Array(data).withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return fsync(fd) == 0
        }
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            warn("probe cache \(path) cannot be written (\(String(cString: strerror(errno)))); results not cached")
            unlink(tmp)
            return
        }
    }

    private func makeDirectories(_ dir: String) -> Bool {
        var prefix = dir.hasPrefix("/") ? "" : "."
        for part in dir.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
