// Ed25519 verification: libsodium first, and OpenSSL's answer wherever libsodium's "no" could
// differ from it.
//
// OpenSSL 3.0 defines which signatures WaiHost accepts (docs/audit-bundle.md §2.2): the
// collector, `waihost audit verify`, the relay's receipt check and every independent verifier
// built on OpenSSL agree on each bundle only if they all accept what OpenSSL accepts. libsodium
// verifies in about half OpenSSL's time but refuses more: R or A of small order, and A not
// canonically encoded. It never accepts what OpenSSL refuses: both refuse S ≥ L; both hash
// k = SHA-512(R ‖ A ‖ M) over the same 64 + |M| bytes; libsodium decodes only canonical A,
// which decodes to the same point in OpenSSL; both compute [S]B − [k]A and accept only when
// that point's canonical encoding equals the 32 bytes of R. So where libsodium accepts, OpenSSL
// accepts.
//
// Where libsodium refuses, its "no" is OpenSSL's too unless one of its own extra checks said
// it: R's bytes spell a point of small order, or A's do, or A is not canonical (libsodium
// 1.0.18, `_crypto_sign_ed25519_verify_detached`). With R and A past those checks the two
// libraries run the same decoding, hash and equation on the same bytes (the argument above),
// so they refuse alike. Only a refusal with R or A in those classes goes to OpenSSL: an honest
// signer never makes one, so a damaged or forged bundle costs libsodium's time, not both
// libraries' (docs/collector.md §Throughput).

import COpenSSL
import CSodium

package enum Ed25519Verification {
    /// True only for a signature OpenSSL accepts: 64 bytes by `key` over exactly `message`.
    /// (Each library's call checks the lengths itself.)
    package static func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, key: [UInt8]) -> Bool {
        // A libsodium that failed to initialise refuses everything: OpenSSL then decides alone.
        if Sodium.ready {
            if libsodium(signature: signature, message: message, key: key) { return true }
            if !refusalNeedsOpenSSL(signature: signature, key: key) { return false }
        }
        return openssl(signature: signature, message: message, key: key)
    }

    /// Whether a refusal by libsodium may be one OpenSSL does not share: R or A spells a point
    /// of small order, or A is not canonical. False means both libraries refuse.
    package static func refusalNeedsOpenSSL(signature: UnsafeRawBufferPointer, key: [UInt8]) -> Bool {
        // Lengths libsodium's call refused are OpenSSL's refusals too.
        guard signature.count == Ed25519PrivateKey.signatureLength, key.count == Ed25519PublicKey.length else { return false }
        let r = Array(signature.prefix(32))
        return SmallOrder.spells(r) || SmallOrder.spells(key) || !isCanonical(key)
    }

    /// libsodium's `ge25519_is_canonical`: the y of an encoding (its low 255 bits) is below
    /// p = 2^255 − 19.
    static func isCanonical(_ encoding: [UInt8]) -> Bool {
        guard encoding[31] & 0x7f == 0x7f, encoding[1...30].allSatisfy({ $0 == 0xff }) else { return true }
        return encoding[0] < 0xed
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

/// libsodium's `ge25519_has_small_order` (1.0.18): the encoding, sign bit ignored, is one of
/// these seven spellings of the points of order 1, 2, 4 and 8, two of them non-canonical.
enum SmallOrder {
    private static let ff = [UInt8](repeating: 0xff, count: 30)
    static let encodings: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),                      // y = 0, order 4
        [1] + [UInt8](repeating: 0, count: 31),                // y = 1, the identity
        [0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
         0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05],  // order 8
        [0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
         0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a],  // order 8
        [0xec] + ff + [0x7f],                                  // y = p − 1, order 2
        [0xed] + ff + [0x7f],                                  // y = p, i.e. 0
        [0xee] + ff + [0x7f],                                  // y = p + 1, i.e. 1
    ]

    static func spells(_ encoding: [UInt8]) -> Bool {
        encodings.contains { e in e[0..<31] == encoding[0..<31] && e[31] == encoding[31] & 0x7f }
    }
}
