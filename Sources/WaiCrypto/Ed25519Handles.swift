// Ed25519 keys held as OpenSSL EVP_PKEYs for many operations. `Ed25519PublicKey.verify` and
// `Ed25519PrivateKey.sign` build the EVP_PKEY anew each call, and for a private key that means
// deriving its public key (one scalar multiplication, about the cost of a signature). The
// collector signs every acknowledgement with one key and verifies each bundle's records under
// one session key: these hold the key once. An EVP_PKEY is read-only after creation, so one
// handle may be used from several threads at once (each call has its own EVP_MD_CTX, taken
// from the handle's pool of initialised ones where OpenSSL lets them be reused: DigestContextPool).

import COpenSSL

/// A public key ready to verify many signatures.
public final class Ed25519Verifier: @unchecked Sendable {
    public let key: Ed25519PublicKey
    private let pkey: OpaquePointer
    private let contexts = DigestContextPool()

    public init(_ key: Ed25519PublicKey) throws(CryptoError) {
        guard let p = key.bytes.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }) else { throw CryptoError.fromQueue("EVP_PKEY_new_raw_public_key") }
        self.key = key
        pkey = p
    }

    deinit { EVP_PKEY_free(pkey) }

    /// True only for a valid 64-byte signature by this key over exactly `message`.
    public func verify(signature: ArraySlice<UInt8>, message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == Ed25519PrivateKey.signatureLength else { return false }
        let md: OpaquePointer
        if let ready = contexts.take() {
            md = ready
        } else {
            guard let fresh = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
            guard EVP_DigestVerifyInit(fresh, nil, nil, nil, pkey) == 1 else {
                EVP_MD_CTX_free(fresh)
                ERR_clear_error()
                return false
            }
            md = fresh
        }
        let ok = signature.withUnsafeBufferPointer { s in
            EVP_DigestVerify(md, s.baseAddress, s.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        }
        ERR_clear_error()
        contexts.give(md)
        return ok == 1
    }

    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        message.withUnsafeBytes { verify(signature: signature[...], message: $0) }
    }
}

/// A private key ready to sign many messages.
public final class Ed25519Signer: @unchecked Sendable {
    public let publicKey: Ed25519PublicKey
    private let pkey: OpaquePointer
    private let contexts = DigestContextPool()

    public init(_ key: Ed25519PrivateKey) throws(CryptoError) {
        guard let p = key.seed.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }) else { throw CryptoError.fromQueue("EVP_PKEY_new_raw_private_key") }
        publicKey = key.publicKey
        pkey = p
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The 64-byte signature of `message` (pure Ed25519), the same as `Ed25519PrivateKey.sign`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let md: OpaquePointer
        if let ready = contexts.take() {
            md = ready
        } else {
            guard let fresh = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
            guard EVP_DigestSignInit(fresh, nil, nil, nil, pkey) == 1 else {
                EVP_MD_CTX_free(fresh)
                throw CryptoError.fromQueue("EVP_DigestSignInit")
            }
            md = fresh
        }
        var sig = [UInt8](repeating: 0, count: Ed25519PrivateKey.signatureLength)
        var len = sig.count
        let ok = message.withUnsafeBufferPointer { m in EVP_DigestSign(md, &sig, &len, m.baseAddress, m.count) }
        guard ok == 1, len == Ed25519PrivateKey.signatureLength else {
            EVP_MD_CTX_free(md)
            throw CryptoError.fromQueue("EVP_DigestSign")
        }
        contexts.give(md)
        return sig
    }
}
