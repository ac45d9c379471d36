// What the relay and audit harnesses and their corpus generator share: fixed keys, so that a
// harness can sign again what the fuzzer changed (reaching the checks behind the signatures)
// and a crash input reproduces exactly, and the chain those keys make.

@testable import WaiCrypto
@testable import Relay
@testable import Audit

enum RelayFuzzKeys {
    static let publisher = try! Ed25519PrivateKey(seed: [UInt8](repeating: 11, count: 32))
    static let installation = try! Ed25519PrivateKey(seed: [UInt8](repeating: 12, count: 32))
    static let owner = try! Ed25519PrivateKey(seed: [UInt8](repeating: 13, count: 32))
    static let session = try! Ed25519PrivateKey(seed: [UInt8](repeating: 14, count: 32))
    /// The receipt name every sealed seed carries (docs/receipts.md §2).
    static let playlistName = "fuzz/index.m3u8"
    /// The TIME of every sealed seed: fixed, so a sealed input reproduces byte for byte.
    static let sealTime: UInt64 = 1_764_000_000
    static let sessionId = "00112233445566778899aabbccddeeff"

    /// A chain whose binding the installation key signs for the fixed session key.
    static func chain(sessionId: String = RelayFuzzKeys.sessionId, continues: BundleContinuation? = nil) throws -> AuditChain {
        let b = SessionBinding(sessionId: sessionId, sessionKey: session.publicKey.hex, installationKey: installation.publicKey.hex,
                               owner: owner.publicKey.hex, createdMs: 1_764_000_000_000, continues: continues)
        let binding = try Envelope.sign(type: AuditPayloadType.binding, payload: PayloadCoding.encode(b), key: installation)
        return AuditChain(resuming: sessionId, owner: owner.publicKey, sessionKey: session, binding: binding)
    }
}
