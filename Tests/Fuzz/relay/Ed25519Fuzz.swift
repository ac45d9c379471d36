// libFuzzer harness for Ed25519 verification (Sources/WaiCrypto/Ed25519Verification.swift,
// docs/audit-bundle.md §2.2), built by scripts/fuzz-relay.sh. The answer must be OpenSSL's on
// every input, and libsodium must never accept what OpenSSL refuses; a refusal libsodium's
// extra checks did not make must be OpenSSL's too (the shortcut that skips OpenSSL).
//
// Input: a mode byte, then R, S and A (32 bytes each), then the message. The mode picks
// where each part comes from, so the fuzzer reaches the cases OpenSSL accepts: R and A as
// given, or one of the seven small-order encodings (either sign bit), A non-canonical
// (y = p + k); S as given, reduced below L, or the fixed key's honest signature of the
// message (its R too, so a single mutated byte of the message or key is a near miss).

@testable import WaiCrypto
@testable import Relay

private let signer = RelayFuzzKeys.publisher

@_cdecl("LLVMFuzzerTestOneInput")
public func ed25519FuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(fuzzBytes(data, size))
    let mode = input.byte(), pick = input.byte()
    var r = (0..<32).map { _ in input.byte() }
    var s = (0..<32).map { _ in input.byte() }
    var a = (0..<32).map { _ in input.byte() }
    let message = input.rest
    let small = SmallOrder.encodings
    switch mode & 3 {
    case 1: a = signer.publicKey.bytes
    case 2: a = small[Int(pick) % small.count]; a[31] |= pick & 0x80
    case 3: a = [0xed &+ (pick % 19)] + [UInt8](repeating: 0xff, count: 30) + [0x7f | (pick & 0x80)]
    default: break
    }
    switch (mode >> 2) & 3 {
    case 1: r = small[Int(pick >> 3) % small.count]; r[31] |= (pick << 1) & 0x80
    case 2, 3:
        if let honest = try? signer.sign(message) {
            r = Array(honest[..<32])
            if (mode >> 2) & 3 == 3 { s = Array(honest[32...]) }
        }
    default: break
    }
    if mode & 0x10 != 0 { s[31] &= 0x0f }   // below 2^252, so mostly below L
    if mode & 0x20 != 0 { s = [UInt8](repeating: 0, count: 32) }
    let sig = r + s
    sig.withUnsafeBytes { sb in
        message.withUnsafeBytes { mb in
            let openssl = Ed25519Verification.openssl(signature: sb, message: mb, key: a)
            let sodium = Ed25519Verification.libsodium(signature: sb, message: mb, key: a)
            let ours = Ed25519Verification.verify(signature: sb, message: mb, key: a)
            if ours != openssl { fatalError("answer \(ours), OpenSSL's \(openssl): sig \(Hex.encode(sig)) key \(Hex.encode(a))") }
            if sodium && !openssl { fatalError("libsodium accepted what OpenSSL refuses: sig \(Hex.encode(sig)) key \(Hex.encode(a))") }
            if !sodium && openssl && !Ed25519Verification.refusalNeedsOpenSSL(signature: sb, key: a) {
                fatalError("a refusal taken as final that OpenSSL does not share: sig \(Hex.encode(sig)) key \(Hex.encode(a))")
            }
        }
    }
    return 0
}
