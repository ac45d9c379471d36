// Ed25519 (RFC 8032): publisher keys sign playlist receipts, relay keys sign audit bundles.
// Signatures are made by libsodium and checked as OpenSSL checks them (Ed25519Verification).

import COpenSSL
import CSodium

public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A key had the wrong number of bytes.
    case badKeyLength(what: String, expected: Int, got: Int)
    /// Text that should have been lowercase hex was not.
    case badHex(what: String)
    /// OpenSSL refused an operation; the message is its error queue.
    case openssl(operation: String, message: String)
    /// libsodium refused an operation (it gives no further detail).
    case libsodium(operation: String)

    public var description: String {
        switch self {
        case .badKeyLength(let what, let e, let g): return "\(what): expected \(e) bytes, got \(g)"
        case .badHex(let what): return "\(what): not lowercase hexadecimal"
        case .openssl(let op, let m): return "OpenSSL \(op) failed: \(m)"
        case .libsodium(let op): return "libsodium \(op) failed"
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

    /// True only for a 64-byte signature by this key over exactly `message` that OpenSSL
    /// accepts (docs/audit-bundle.md §2.2; libsodium answers first where it can: Ed25519Verification).
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { s in
            message.withUnsafeBytes { Ed25519Verification.verify(signature: s, message: $0, key: bytes) }
        }
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
        guard Sodium.ready else { throw .libsodium(operation: "sodium_init") }
        var pub = [UInt8](repeating: 0, count: Ed25519PublicKey.length)
        var secret = [UInt8](repeating: 0, count: Self.secretLength)
        defer { sodium_memzero(&secret, secret.count) }
        guard crypto_sign_ed25519_seed_keypair(&pub, &secret, seed) == 0 else {
            throw .libsodium(operation: "crypto_sign_ed25519_seed_keypair")
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
    /// Ed25519 signing is deterministic (RFC 8032 §5.1.6), so libsodium's signature is the one
    /// OpenSSL makes, byte for byte (tested), in about half the time and with nothing to load.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard Sodium.ready else { throw .libsodium(operation: "sodium_init") }
        // libsodium's secret key is the seed followed by the public key.
        var secret = seed + publicKey.bytes
        defer { sodium_memzero(&secret, secret.count) }
        var sig = [UInt8](repeating: 0, count: Self.signatureLength)
        let ok = message.withUnsafeBytes { raw in
            withNonNullBytes(raw) { m, n in crypto_sign_ed25519_detached(&sig, nil, m, UInt64(n), secret) }
        }
        guard ok == 0 else { throw .libsodium(operation: "crypto_sign_ed25519_detached") }
        return sig
    }

    private static let secretLength = 64
}
