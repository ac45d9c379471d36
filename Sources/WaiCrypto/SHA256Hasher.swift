// SHA-256 through OpenSSL's EVP interface (prefer the system library to writing it by hand).
// Shared by the host and the relay through this module, so there is one wrapper.

import COpenSSL

/// An incremental SHA-256. A class because it owns an OpenSSL context; not thread-safe.
public final class SHA256Hasher {
    public static let digestLength = 32

    private let ctx: OpaquePointer
    private var finished = false

    /// EVP fails here only when OpenSSL cannot allocate, which no input can cause: that is a
    /// broken process, reported as such.
    public init() {
        guard let c = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
        guard EVP_DigestInit_ex(c, EVP_sha256(), nil) == 1 else { fatalError("OpenSSL: EVP_DigestInit_ex(sha256) failed") }
        ctx = c
    }

    deinit { EVP_MD_CTX_free(ctx) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Hasher used after finalize()")
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count) == 1 else { fatalError("OpenSSL: EVP_DigestUpdate failed") }
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }
    public func update(_ bytes: ArraySlice<UInt8>) { bytes.withUnsafeBytes { update($0) } }

    /// The 32-byte digest. The hasher cannot be updated afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "SHA256Hasher finalized twice")
        finished = true
        var md = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        let ok = md.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(ctx, $0.baseAddress, &len) }
        guard ok == 1, len == UInt32(Self.digestLength) else { fatalError("OpenSSL: EVP_DigestFinal_ex failed") }
        return Array(md[0..<Int(len)])
    }

    /// The digest of `bytes` in one call.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] { digest(bytes[...]) }

    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let h = SHA256Hasher()
        h.update(bytes)
        return h.finalize()
    }
}
