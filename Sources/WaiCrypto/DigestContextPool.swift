// Initialised EVP_MD_CTXs kept for the next signature under the same key. Initialising one
// costs a fetch of the implementation under OpenSSL's global locks and a new EVP_PKEY_CTX
// (about 2 µs, a futex when threads meet there); the collector does it six times a bundle
// (docs/collector.md §Throughput against the signature bound). OpenSSL up to 3.1 lets the
// one-shot EVP_DigestSign/EVP_DigestVerify be called again on an initialised context (what
// `openssl speed` does); from 3.2 a second call is refused. Whether this library allows it is
// found once, by `reusable`; where it does not, every call gets a fresh context, as before.

import COpenSSL
import WaiSupport

final class DigestContextPool: @unchecked Sendable {
    private let lock = Mutex()
    private var idle: [OpaquePointer] = []
    /// More than the threads that meet on one key at once is only memory.
    private static let limit = 16

    deinit { idle.forEach { EVP_MD_CTX_free($0) } }

    /// A context initialised for this pool's key, or nil: the caller makes one.
    func take() -> OpaquePointer? {
        lock.withLock { idle.popLast() }
    }

    /// Keeps `ctx` for the next call where contexts may be reused; else frees it.
    func give(_ ctx: OpaquePointer) {
        guard Self.reusable else { return EVP_MD_CTX_free(ctx) }
        let kept = lock.withLock { () -> Bool in
            guard idle.count < Self.limit else { return false }
            idle.append(ctx)
            return true
        }
        if !kept { EVP_MD_CTX_free(ctx) }
    }

    /// True when one initialised context gives the same answers as fresh ones when called
    /// again: two signatures equal to each other, a refusal of a wrong signature that does
    /// not prevent the next good one from verifying, and the good one verifying twice.
    static let reusable: Bool = {
        defer { ERR_clear_error() }
        guard let key = try? Ed25519PrivateKey.generate(),
              let priv = key.seed.withUnsafeBufferPointer({ EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count) }),
              let pub = key.publicKey.bytes.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count) })
        else { return false }
        defer { EVP_PKEY_free(priv); EVP_PKEY_free(pub) }
        guard let s = EVP_MD_CTX_new(), let v = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(s); EVP_MD_CTX_free(v) }
        guard EVP_DigestSignInit(s, nil, nil, nil, priv) == 1, EVP_DigestVerifyInit(v, nil, nil, nil, pub) == 1 else { return false }
        let message: [UInt8] = Array("DigestContextPool probe".utf8)
        func sign() -> [UInt8]? {
            var sig = [UInt8](repeating: 0, count: Ed25519PrivateKey.signatureLength)
            var len = sig.count
            guard EVP_DigestSign(s, &sig, &len, message, message.count) == 1, len == sig.count else { return nil }
            return sig
        }
        func verify(_ sig: [UInt8]) -> Bool { EVP_DigestVerify(v, sig, sig.count, message, message.count) == 1 }
        guard let first = sign(), let second = sign(), first == second else { return false }
        var wrong = first
        wrong[0] ^= 1
        return verify(first) && !verify(wrong) && verify(first) && verify(second)
    }()
}
