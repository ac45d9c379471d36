// Ed25519 (RFC 8032) through OpenSSL's EVP interface: publisher keys sign playlist receipts.

import COpenSSL

public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A key had the wrong number of bytes.
    case badKeyLength(what: String, expected: Int, got: Int)
    /// Text that should have been lowercase hex was not.
    case badHex(what: String)
    /// OpenSSL refused an operation; the message is its error queue.
    case openssl(operation: String, message: String)

    public var description: String {
        switch self {
        case .badKeyLength(let what, let e, let g): return "\(what): expected \(e) bytes, got \(g)"
        case .badHex(let what): return "\(what): not lowercase hexadecimal"
        case .openssl(let op, let m): return "OpenSSL \(op) failed: \(m)"
        }
    }

    static func fromQueue(_ operation: String) -> CryptoError {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buf = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buf, buf.count)
            parts.append(String(cString: buf))
        }
        return .openssl(operation: operation, message: parts.isEmpty ? "no detail" : parts.joined(separator: "; "))
    }
}

/// A 32-byte Ed25519 public key.
public struct Ed25519PublicKey: Hashable, Sendable, CustomStringConvertible {
    public static let length = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.length else {
            throw .badKeyLength(what: "Ed25519 public key", expected: Self.length, got: bytes.count)
        }
        self.bytes = bytes
    }

    /// 64 lowercase hex digits.
    public init(hex: String) throws(CryptoError) {
        guard let b = Hex.decode(hex) else { throw .badHex(what: "Ed25519 public key") }
        try self.init(bytes: b)
    }

    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }

    /// True only for a valid 64-byte signature by this key over exactly `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == Ed25519PrivateKey.signatureLength else { return false }
        guard let pkey = bytes.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }) else {
            ERR_clear_error()
            return false
        }
        defer { EVP_PKEY_free(pkey) }
        guard let md = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestVerifyInit(md, nil, nil, nil, pkey) == 1 else {
            ERR_clear_error()
            return false
        }
        let ok = signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                EVP_DigestVerify(md, s.baseAddress, s.count, m.baseAddress, m.count)
            }
        }
        ERR_clear_error()
        return ok == 1
    }
}

/// An Ed25519 private key, held as its 32-byte seed (RFC 8032 §5.1.5).
public struct Ed25519PrivateKey: Sendable {
    public static let seedLength = 32
    public static let signatureLength = 64

    public let seed: [UInt8]
    public let publicKey: Ed25519PublicKey

    public init(seed: [UInt8]) throws(CryptoError) {
        guard seed.count == Self.seedLength else {
            throw .badKeyLength(what: "Ed25519 seed", expected: Self.seedLength, got: seed.count)
        }
        let pkey = try Self.pkey(seed)
        defer { EVP_PKEY_free(pkey) }
        var pub = [UInt8](repeating: 0, count: Ed25519PublicKey.length)
        var len = pub.count
        guard EVP_PKEY_get_raw_public_key(pkey, &pub, &len) == 1, len == pub.count else {
            throw CryptoError.fromQueue("EVP_PKEY_get_raw_public_key")
        }
        self.seed = seed
        self.publicKey = try Ed25519PublicKey(bytes: pub)
    }

    /// A fresh key from OpenSSL's CSPRNG.
    public static func generate() throws(CryptoError) -> Ed25519PrivateKey {
        var seed = [UInt8](repeating: 0, count: seedLength)
        guard RAND_bytes(&seed, Int32(seedLength)) == 1 else { throw CryptoError.fromQueue("RAND_bytes") }
        return try Ed25519PrivateKey(seed: seed)
    }

    /// The 64-byte signature of `message` (pure Ed25519: the message itself, no prehash).
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let pkey = try Self.pkey(seed)
        defer { EVP_PKEY_free(pkey) }
        guard let md = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed (out of memory)") }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestSignInit(md, nil, nil, nil, pkey) == 1 else { throw CryptoError.fromQueue("EVP_DigestSignInit") }
        var sig = [UInt8](repeating: 0, count: Self.signatureLength)
        var len = sig.count
        let ok = message.withUnsafeBufferPointer { m in
            EVP_DigestSign(md, &sig, &len, m.baseAddress, m.count)
        }
        guard ok == 1, len == Self.signatureLength else { throw CryptoError.fromQueue("EVP_DigestSign") }
        return sig
    }

    private static func pkey(_ seed: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard let k = seed.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }) else { throw CryptoError.fromQueue("EVP_PKEY_new_raw_private_key") }
        return k
    }
}
