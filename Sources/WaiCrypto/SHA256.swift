// One-shot and whole-file SHA-256 on top of SHA256Hasher (OpenSSL EVP). Used for model
// integrity trailers, plugin hashes in the probe cache, and content addresses.
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

    public static let digestLength = SHA256Hasher.digestLength

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        digest(bytes[...])
    }

    /// The 32-byte digest of a slice, without copying it.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        SHA256Hasher.digest(bytes)
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        Hex.encode(digest(bytes))
    }

    /// Streams the file, so a large plugin or model is never read into memory whole.
    public static func hexOfFile(path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let hasher = SHA256Hasher()
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
        return Hex.encode(hasher.finalize())
    }

}
