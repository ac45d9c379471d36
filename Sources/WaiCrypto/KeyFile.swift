// The publisher key file (docs/sealing.md §Key files): three lines of text,
//
//   waihost-ed25519-key v1
//   seed <64 lowercase hex>
//   public <64 lowercase hex>
//
// each ending in LF. The public line is redundant and checked on load, so a damaged or
// hand-edited file is refused instead of signing under a key nobody expects.

// FoundationEssentials, not Foundation: Foundation's ICU data (about 30 MB) would otherwise be
// linked statically into the unit worker and libwaihost, which need none of it.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public enum KeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    /// `line` is 1-based.
    case malformed(path: String, line: Int, reason: String)
    case publicKeyMismatch(path: String, stated: String, derived: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let r): return "cannot read key file '\(p)': \(r)"
        case .unwritable(let p, let r): return "cannot write key file '\(p)': \(r)"
        case .malformed(let p, let l, let r): return "\(p):\(l): \(r)"
        case .publicKeyMismatch(let p, let s, let d):
            return "\(p): public key \(s) is not the seed's public key \(d)"
        }
    }
}

public enum KeyFile {
    public static let header = "waihost-ed25519-key v1"

    public static func encode(_ key: Ed25519PrivateKey) -> String {
        "\(header)\nseed \(Hex.encode(key.seed))\npublic \(key.publicKey.hex)\n"
    }

    public static func decode(_ text: String, path: String) throws(KeyFileError) -> Ed25519PrivateKey {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.last == "" else { throw .malformed(path: path, line: lines.count, reason: "last line does not end in LF") }
        lines.removeLast()
        guard lines.count == 3 else { throw .malformed(path: path, line: min(lines.count + 1, 4), reason: "expected exactly 3 lines") }
        guard lines[0] == header else { throw .malformed(path: path, line: 1, reason: "expected '\(header)'") }
        guard lines[1].hasPrefix("seed "), let seed = Hex.decode(String(lines[1].dropFirst(5))), seed.count == 32 else {
            throw .malformed(path: path, line: 2, reason: "expected 'seed ' and 64 lowercase hex digits")
        }
        guard lines[2].hasPrefix("public "), let pub = Hex.decode(String(lines[2].dropFirst(7))), pub.count == 32 else {
            throw .malformed(path: path, line: 3, reason: "expected 'public ' and 64 lowercase hex digits")
        }
        let key: Ed25519PrivateKey
        do { key = try Ed25519PrivateKey(seed: seed) } catch {
            throw .malformed(path: path, line: 2, reason: error.description)
        }
        guard key.publicKey.bytes == pub else {
            throw .publicKeyMismatch(path: path, stated: Hex.encode(pub), derived: key.publicKey.hex)
        }
        return key
    }

    /// A key file is three short lines; anything larger is refused before it is read.
    static let sizeLimit = 4096

    public static func read(path: String) throws(KeyFileError) -> Ed25519PrivateKey {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        guard st.st_size <= sizeLimit else {
            throw .malformed(path: path, line: 1, reason: "\(st.st_size) bytes; a key file is at most \(sizeLimit)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            done += n
        }
        guard let text = String(validating: bytes[..<done], as: UTF8.self) else {
            throw .malformed(path: path, line: 1, reason: "not UTF-8 text")
        }
        return try decode(text, path: path)
    }

    /// Creates `path` with mode 0600; refuses to replace an existing file (a lost key cannot
    /// be recovered, so overwriting one is never silent).
    public static func write(_ key: Ed25519PrivateKey, path: String) throws(KeyFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        let bytes = Array(encode(key).utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(path)
                throw .unwritable(path: path, reason: reason)
            }
            done += n
        }
        guard fsync(fd) == 0, close(fd) == 0 else {
            throw .unwritable(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
