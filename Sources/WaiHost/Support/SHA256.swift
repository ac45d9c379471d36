// SHA-256 through OpenSSL's EVP interface (DESIGN: prefer the system library to writing the
// same thing by hand). Used for model integrity trailers and content-addressed caches.

import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

public enum SHA256 {
    /// Why a file could not be hashed.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        public var description: String {
            switch self {
            case .unreadable(let path, let reason): return "cannot read '\(path)': \(reason)"
            }
        }
    }

    public static let digestLength = 32

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        digest(bytes[...])
    }

    /// The 32-byte digest of a slice, without copying it.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let hasher = Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        hexString(digest(bytes))
    }

    /// Streams the file, so a large plugin or model is never read into memory whole.
    public static func hexOfFile(path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let hasher = Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hexString(hasher.finish())
    }

    static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One EVP digest context. EVP calls fail only when OpenSSL cannot allocate, which no
    /// input can cause; that is a broken process, reported as such.
    private final class Hasher {
        let ctx: OpaquePointer

        deinit { EVP_MD_CTX_free(ctx) }

        init() {
            guard let c = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
            guard EVP_DigestInit_ex(c, EVP_sha256(), nil) == 1 else { fatalError("OpenSSL: EVP_DigestInit_ex(sha256) failed") }
            ctx = c
        }

        func update(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count > 0 else { return }
            guard EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count) == 1 else { fatalError("OpenSSL: EVP_DigestUpdate failed") }
        }

        func finish() -> [UInt8] {
            var md = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var len: UInt32 = 0
            let ok = md.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(ctx, $0.baseAddress, &len) }
            guard ok == 1, len == UInt32(SHA256.digestLength) else { fatalError("OpenSSL: EVP_DigestFinal_ex failed") }
            return Array(md[0..<Int(len)])
        }
    }
}
