// The disk spool (docs/audit-bundle.md §5): a bundle is on disk, fsynced, before anyone
// tries to post it, and leaves only when the owner's collector acknowledged it.

import Foundation
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
    public let directory: String
    static let suffix = ".bundle"

    /// Creates the directory (and its parents) when missing; removes temporary files a crash
    /// left half written (their bundles were never acknowledged as spooled).
    public init(directory: String) throws {
        self.directory = directory
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw SpoolError.io(path: directory, step: "mkdir", reason: "\(error.localizedDescription)")
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(".tmp-") {
            unlink(directory + "/" + name)
        }
    }

    public func path(of sessionId: String) -> String { directory + "/" + sessionId + Self.suffix }

    /// Writes a temporary file, fsyncs it, renames it into place and fsyncs the directory: after
    /// this returns the bundle survives a crash or power loss, whole or not at all.
    public func store(_ bytes: [UInt8], sessionId: String) throws {
        guard AuditBundle.isSessionId(sessionId) else { throw SpoolError.badSessionId(sessionId) }
        let final = path(of: sessionId)
        let temp = directory + "/.tmp-\(sessionId)-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure(temp, "open") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = Self.failure(temp, "write")
                close(fd)
                unlink(temp)
                throw e
            }
            done += n
        }
        guard fsync(fd) == 0 else {
            let e = Self.failure(temp, "fsync")
            close(fd)
            unlink(temp)
            throw e
        }
        close(fd)
        guard rename(temp, final) == 0 else {
            let e = Self.failure(final, "rename")
            unlink(temp)
            throw e
        }
        try syncDirectory()
    }

    /// Session ids of the spooled bundles, oldest file first.
    public func pending() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let ids = names.filter { $0.hasSuffix(Self.suffix) }.map { String($0.dropLast(Self.suffix.count)) }
            .filter(AuditBundle.isSessionId)
        func mtime(_ id: String) -> Int {
            var st = stat()
            return stat(path(of: id), &st) == 0 ? Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec) : 0
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

    private func syncDirectory() throws {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw Self.failure(directory, "open directory") }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw Self.failure(directory, "fsync directory") }
    }

    private static func failure(_ path: String, _ step: String) -> SpoolError {
        .io(path: path, step: step, reason: String(cString: strerror(errno)))
    }
}
