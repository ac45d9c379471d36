// For harnesses of formats that end in a SHA-256 of the rest (envelope, model container):
// a random input almost never carries a correct digest, so each input is also tried with
// its last 32 bytes replaced by the digest of the rest, to reach the parser behind the check.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The input with its trailer replaced by the digest of the rest; nil when it is too short.
func resealed(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.count >= SHA256.digestLength else { return nil }
    let body = Array(bytes.dropLast(SHA256.digestLength))
    return body + SHA256.digest(body)
}
