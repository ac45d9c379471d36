// The disk spool (docs/audit-bundle.md §5): a bundle is on disk, fsynced, before anyone
// tries to post it, and leaves only when its owner's collector acknowledged it. One folder
// per owner key, so a relay delivering for one owner never even sees another owner's bundles;
// temporary files and journals are locked (flock) by the process writing them, so relays
// sharing a spool never delete each other's work.

import Foundation
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

public enum SpoolError: Error, Equatable, Sendable, CustomStringConvertible {
    case io(path: String, step: String, reason: String)
    case badSessionId(String)

    public var description: String {
        switch self {
        case .io(let p, let s, let r): return "audit spool \(p): \(s) failed: \(r)"
        case .badSessionId(let s): return "audit spool: '\(s)' is not a session id (32 lowercase hex digits)"
        }
    }
}

public struct AuditSpool: Sendable {
    /// The spool root (`<cache>/audit/spool`); bundles live in `<root>/<owner hex>/`.
    public let root: String
    public let owner: Ed25519PublicKey
    public var directory: String { root + "/" + owner.hex }
    static let suffix = ".bundle"
    static let journalSuffix = ".journal"
    /// A temporary file younger than this is never removed, locked or not: its writer may not
    /// have taken its lock yet.
    static let staleTempSeconds = 60

    /// Creates the owner's folder (and its parents, mode 0700) when missing; moves bundles an
    /// older relay left in the root into their owners' folders; removes temporary files whose
    /// writer is gone (not locked, older than a minute: never acknowledged as spooled).
    public init(root: String, owner: Ed25519PublicKey) throws {
        self.root = root
        self.owner = owner
        try Self.makeDirectory(root)
        try Self.makeDirectory(root + "/" + owner.hex)
        migrateRootBundles()
        removeStaleTemporaries()
    }

    private static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw SpoolError.io(path: path, step: "mkdir", reason: "\(error.localizedDescription)")
        }
    }

    public func path(of sessionId: String) -> String { directory + "/" + sessionId + Self.suffix }
    public func journalPath(of sessionId: String) -> String { directory + "/" + sessionId + Self.journalSuffix }

    /// Writes a temporary file (locked, named for this process), fsyncs it, renames it into
    /// place and fsyncs the directory: after this returns the bundle survives a crash or power
    /// loss, whole or not at all.
    public func store(_ bytes: [UInt8], sessionId: String) throws {
        guard AuditBundle.isSessionId(sessionId) else { throw SpoolError.badSessionId(sessionId) }
        let final = path(of: sessionId)
        var g = SystemRandomNumberGenerator()
        let temp = directory + "/.tmp-\(sessionId)-\(getpid())-\(Hex.encode((0..<6).map { _ in UInt8.random(in: 0...255, using: &g) }))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure(temp, "open") }
        // Held until close: another process's cleanup leaves a locked temporary file alone.
        _ = flock(fd, LOCK_EX)
        func abandon(_ step: String) -> SpoolError {
            let e = Self.failure(temp, step)
            unlink(temp)
            close(fd)
            return e
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw abandon("write")
            }
            done += n
        }
        guard fsync(fd) == 0 else { throw abandon("fsync") }
        guard rename(temp, final) == 0 else { throw abandon("rename") }
        close(fd)
        try syncDirectory()
    }

    /// Session ids of the spooled bundles, oldest file first.
    public func pending() -> [String] { ids(withSuffix: Self.suffix) }

    /// Session ids with a journal (a session being recorded, or one whose relay died).
    public func journals() -> [String] { ids(withSuffix: Self.journalSuffix) }

    private func ids(withSuffix suffix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let ids = names.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }
            .filter(AuditBundle.isSessionId)
        func mtime(_ id: String) -> Int {
            var st = stat()
            return stat(directory + "/" + id + suffix, &st) == 0 ? Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec) : 0
        }
        return ids.map { ($0, mtime($0)) }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { $0.0 }
    }

    public func read(_ sessionId: String) throws -> [UInt8] {
        let p = path(of: sessionId)
        guard let d = FileManager.default.contents(atPath: p) else { throw SpoolError.io(path: p, step: "read", reason: "unreadable") }
        return [UInt8](d)
    }

    public func remove(_ sessionId: String) throws {
        let p = path(of: sessionId)
        guard unlink(p) == 0 || errno == ENOENT else { throw Self.failure(p, "unlink") }
        try syncDirectory()
    }

    func syncDirectory() throws {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw Self.failure(directory, "open directory") }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw Self.failure(directory, "fsync directory") }
    }

    /// Opens `path` and takes its lock without waiting; nil when another process holds it
    /// (or the file is gone). The caller closes the descriptor, which drops the lock.
    static func lockIfUnowned(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { close(fd); return nil }
        return fd
    }

    private func removeStaleTemporaries() {
        let now = time(nil)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(".tmp-") {
            let p = directory + "/" + name
            var st = stat()
            guard stat(p, &st) == 0, Int(now) - Int(st.st_mtim.tv_sec) >= Self.staleTempSeconds,
                  let fd = Self.lockIfUnowned(p) else { continue }
            unlink(p)
            close(fd)
        }
    }

    /// Bundles spooled by relays before folders per owner: each goes to its owner's folder.
    private func migrateRootBundles() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name.hasSuffix(Self.suffix) {
            let p = root + "/" + name
            guard let d = FileManager.default.contents(atPath: p), let b = try? AuditBundle.parse([UInt8](d)) else { continue }
            let dir = root + "/" + b.owner
            guard (try? Self.makeDirectory(dir)) != nil else { continue }
            _ = rename(p, dir + "/" + name)
        }
    }

    static func failure(_ path: String, _ step: String) -> SpoolError {
        .io(path: path, step: step, reason: String(cString: strerror(errno)))
    }
}
