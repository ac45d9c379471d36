// libFuzzer harness for the WAI1 envelope parser (docs/envelope.md), built by
// scripts/fuzz-entropy.sh together with Sources/WaiEntropy/Envelope and Sources/WaiCrypto/SHA256.swift.
//
// Properties checked on every input, besides "no crash, no out-of-bounds access":
//  - isEnvelope is false for everything parse does not at least start reading as an envelope;
//  - an accepted envelope re-encodes to exactly the input bytes (one encoding per envelope).
// Each input is also tried resealed (Tests/Fuzz/Shared/Resealed.swift), to reach the
// accepting path.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func envelopeFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    check(bytes)
    if let again = resealed(bytes) { check(again) }
    return 0
}

private func check(_ bytes: [UInt8]) {
    let looksLikeOne = Envelope.isEnvelope(bytes)
    do {
        let (capability, payload) = try Envelope.parse(bytes)
        guard looksLikeOne else { fatalError("parse accepted bytes isEnvelope rejects") }
        let again = try Envelope.encode(capability: capability, payload: payload)
        guard again == bytes else { fatalError("accepted envelope does not re-encode to itself") }
    } catch let error as EnvelopeError {
        if !looksLikeOne, error.field != .magic { fatalError("non-envelope failed past the magic: \(error)") }
        guard error.offset >= 0, error.offset <= bytes.count else { fatalError("error offset outside input: \(error)") }
        _ = error.description
    } catch {
        fatalError("unexpected error type: \(error)")
    }
}
