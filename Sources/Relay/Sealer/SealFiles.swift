// The file operations the sealer needs: streaming hashes, atomic replacement, links.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum SealFiles {
    static func errno(_ path: String) -> SealError { .io(path: path, reason: String(cString: strerror(Glibc.errno))) }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// (size, mtime in ns): what a cached hash is keyed on.
    static func identity(_ path: String) throws(SealError) -> (size: Int64, mtime: Int64) {
        var st = stat()
        guard stat(path, &st) == 0 else { throw errno(path) }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    static func read(_ path: String) throws(SealError) -> [UInt8] {
        do { return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw .io(path: path, reason: error.localizedDescription)
        }
    }

    /// SHA-256 of the whole file, streamed.
    static func sha256(_ path: String) throws(SealError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw errno(path) }
        defer { close(fd) }
        let hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw errno(path)
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hasher.finalize()
    }

    /// Writes `bytes` to a temporary file beside `path`, syncs it and renames it over `path`,
    /// so a reader sees the old file or the new one, never part of one.
    static func atomicWrite(_ bytes: [UInt8], to path: String) throws(SealError) {
        let dir = (path as NSString).deletingLastPathComponent
        let tmp = (dir.isEmpty ? "." : dir) + "/.\((path as NSString).lastPathComponent).seal-\(getpid()).tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw errno(tmp) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                let e = errno(tmp)
                close(fd)
                unlink(tmp)
                throw e
            }
            done += n
        }
        guard fsync(fd) == 0 else { let e = errno(tmp); close(fd); unlink(tmp); throw e }
        guard close(fd) == 0 else { let e = errno(tmp); unlink(tmp); throw e }
        guard rename(tmp, path) == 0 else { let e = errno(path); unlink(tmp); throw e }
    }

    /// Places the object `source` at `target` (a content-addressed name): a hard link where
    /// possible, else a copy through a temporary file. An existing `target` is kept: its name
    /// already states its content.
    static func place(_ source: String, at target: String) throws(SealError) {
        if exists(target) { return }
        try makeDirectory((target as NSString).deletingLastPathComponent)
        if link(source, target) == 0 { return }
        if Glibc.errno == EEXIST { return }
        try atomicWrite(read(source), to: target)
    }

    static func makeDirectory(_ path: String) throws(SealError) {
        guard !path.isEmpty else { return }
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw .io(path: path, reason: error.localizedDescription)
        }
    }

    /// Every `*.m3u8` under `root`, as paths relative to it with '/' separators, sorted;
    /// dot files (temporaries) skipped.
    static func playlists(under root: String) throws(SealError) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: root) else { throw .io(path: root, reason: "cannot list folder") }
        var out: [String] = []
        while let rel = e.nextObject() as? String {
            let last = (rel as NSString).lastPathComponent
            if last.hasPrefix(".") { continue }
            if rel.hasSuffix(".m3u8") { out.append(rel) }
        }
        return out.sorted()
    }
}
