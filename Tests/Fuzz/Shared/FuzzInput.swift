// The part every libFuzzer harness under Tests/Fuzz shares (linked into each by the
// scripts/fuzz*.sh that build them): the input as bytes, and a reader for harnesses that
// decode their case from the input.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// libFuzzer's input as bytes (it may pass a null pointer for the empty input).
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
}

/// Reads a case from the input; past the end reads as 0, so every input maps to some case.
struct FuzzInput {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }
    mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }
    var rest: [UInt8] { position < bytes.count ? Array(bytes[position...]) : [] }
}
