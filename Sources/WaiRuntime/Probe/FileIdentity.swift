#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says about a file that changes whenever its content can have changed: a new
/// file under the name (rename over it, copy) has another inode, a write moves the
/// modification and change times, and the change time cannot be set back from user space
/// (docs/probe.md §5, "Listing").
struct FileStat: Codable, Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var mtimeNs: Int64
    var ctimeNs: Int64

    enum CodingKeys: String, CodingKey {
        case device = "dev", inode = "ino", size, mtimeNs = "mtime_ns", ctimeNs = "ctime_ns"
    }

    /// Follows symlinks (the file a loader would open); nil when there is none.
    static func of(_ path: String) -> FileStat? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileStat(st)
    }

    init(device: UInt64, inode: UInt64, size: Int64, mtimeNs: Int64, ctimeNs: Int64) {
        self.device = device; self.inode = inode; self.size = size; self.mtimeNs = mtimeNs; self.ctimeNs = ctimeNs
    }

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        mtimeNs = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        ctimeNs = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }

    /// One line for an identity text.
    var line: String { "dev \(device) ino \(inode) size \(size) mtime \(mtimeNs) ctime \(ctimeNs)" }
}

/// Content hashes of files, remembered by their `FileStat` so an unchanged file is not read
/// again (the plugin files and the drivers the ICD manifests name). Kept in the probe cache
/// file; shared by the threads of one probe.
final class FileHashes: @unchecked Sendable {
    struct Entry: Codable, Equatable, Sendable {
        var stat: FileStat
        var sha256: String
    }

    /// A file changed less than this long ago is hashed but not remembered: a second write
    /// within the file system's timestamp granularity could leave the same `FileStat` with
    /// other content ("racy" entries, as git calls them). Later, it is remembered.
    static let settleNanoseconds: Int64 = 2_000_000_000

    /// At most this many hashes are written back: those used by this probe first.
    static let maximumEntries = 1024

    private let lock = Mutex()
    private var entries: [String: Entry]
    private var changed = false
    /// Paths looked up by this probe.
    private var used: Set<String> = []

    init(_ entries: [String: Entry] = [:]) { self.entries = entries }

    /// SHA-256 of the file's content, read only when its `FileStat` differs from the one
    /// remembered.
    func sha256(_ path: String) throws -> String {
        let before = FileStat.of(path)
        lock.withLock { _ = used.insert(path) }
        if let before, let hit = lock.withLock({ entries[path] }), hit.stat == before { return hit.sha256 }
        let sha = try SHA256.hexOfFile(path: path)
        // Remembered only when nothing moved while it was read and it has settled.
        if let before, let after = FileStat.of(path), after == before,
           wallClockNanoseconds() - after.ctimeNs >= Self.settleNanoseconds {
            lock.withLock {
                entries[path] = Entry(stat: after, sha256: sha)
                changed = true
            }
        }
        return sha
    }

    /// What to write back to the cache file; nil when nothing new was learnt. Pruned, so
    /// the memory does not grow with every file ever hashed: an entry this probe did not
    /// use is kept only while its file still has the remembered stat (otherwise it could
    /// never match again), and past `maximumEntries` unused ones go first.
    var updated: [String: Entry]? {
        let (all, usedNow) = lock.withLock { (changed ? entries : nil, used) }
        guard let all else { return nil }
        return Self.pruned(all, used: usedNow, stat: FileStat.of)
    }

    static func pruned(_ all: [String: Entry], used: Set<String>, stat: (String) -> FileStat?,
                       limit: Int = maximumEntries) -> [String: Entry] {
        var kept = all.filter { used.contains($0.key) }
        let others = all.filter { !used.contains($0.key) && stat($0.key) == $0.value.stat }
        for (path, e) in others.sorted(by: { $0.key < $1.key }) where kept.count < limit { kept[path] = e }
        if kept.count > limit {
            kept = Dictionary(uniqueKeysWithValues: kept.sorted { $0.key < $1.key }.prefix(limit).map { ($0.key, $0.value) })
        }
        return kept
    }

    static func now() -> Int64 { wallClockNanoseconds() }
}

/// Small system files read whole, up to a limit (`/proc` files report size 0, so they are
/// read to their end).
enum SmallFile {
    static func read(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
        }
        return nil
    }

    static func text(_ path: String, limit: Int = 1 << 20) -> String? {
        read(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Names in a folder, sorted; nil when it cannot be read.
    static func names(in dir: String) -> [String]? {
        guard let d = opendir(dir) else { return nil }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
