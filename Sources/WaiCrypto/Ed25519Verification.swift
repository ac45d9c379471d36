// Ed25519 verification: libsodium first, and OpenSSL's answer wherever libsodium says no.
//
// OpenSSL 3.0 defines which signatures WaiHost accepts (docs/audit-bundle.md §2.2): the
// collector, `waihost audit verify`, the relay's receipt check and every independent verifier
// built on OpenSSL agree on each bundle only if they all accept what OpenSSL accepts. libsodium
// verifies in about half OpenSSL's time but refuses more: R or A of small order, and A not
// canonically encoded. It never accepts what OpenSSL refuses: both refuse S ≥ L; both hash
// k = SHA-512(R ‖ A ‖ M) over the same 64 + |M| bytes; libsodium decodes only canonical A,
// which decodes to the same point in OpenSSL; both compute [S]B − [k]A and accept only when
// that point's canonical encoding equals the 32 bytes of R. So where libsodium accepts, OpenSSL
// accepts; where it refuses, OpenSSL is asked. The answer is OpenSSL's for every input; a good
// signature costs libsodium's time, a refused one both (docs/collector.md §Throughput).

import COpenSSL
import CSodium

package enum Ed25519Verification {
    /// True only for a signature OpenSSL accepts: 64 bytes by `key` over exactly `message`.
    /// (Each library's call checks the lengths itself.)
    package static func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, key: [UInt8]) -> Bool {
        libsodium(signature: signature, message: message, key: key) || openssl(signature: signature, message: message, key: key)
    }

    /// libsodium's verification alone: accepts a subset of what OpenSSL accepts.
    package static func libsodium(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, key: [UInt8]) -> Bool {
        guard Sodium.ready, signature.count == Ed25519PrivateKey.signatureLength, key.count == Ed25519PublicKey.length,
              let s = signature.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        return withNonNullBytes(message) { m, n in
            crypto_sign_ed25519_verify_detached(s, m, UInt64(n), key) == 0
        }
    }

    /// OpenSSL's verification alone: the definition of an accepted signature.
    package static func openssl(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, key: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard signature.count == Ed25519PrivateKey.signatureLength,
              let pkey = key.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count) })
        else { return false }
        defer { EVP_PKEY_free(pkey) }
        guard let md = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestVerifyInit(md, nil, nil, nil, pkey) == 1 else { return false }
        return withNonNullBytes(message) { m, n in
            EVP_DigestVerify(md, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count, m, n) == 1
        }
    }
}

/// A message's bytes behind a non-null pointer even when it is empty (both libraries hash
/// from the pointer; an empty Array's may be nil).
func withNonNullBytes<R>(_ message: UnsafeRawBufferPointer, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
    if let m = message.baseAddress, message.count > 0 { return body(m.assumingMemoryBound(to: UInt8.self), message.count) }
    return withUnsafePointer(to: UInt8(0)) { body($0, 0) }
}

/// libsodium is initialised once per process before its first use (its rule for every call).
enum Sodium {
    static let ready: Bool = sodium_init() >= 0
}
