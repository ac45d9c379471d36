// Shared by the int_hyper payload harnesses (picture and video) and their corpus generators
// (scripts/fuzz-payload.sh, scripts/fuzz-video.sh): a tiny model set generated in memory, a
// runner on the reference interpreter that refuses pictures too large to decode at fuzzing
// speed, and the refusals every payload harness takes as a correct outcome.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

enum PayloadFixture {
    static let seed: UInt64 = 0x4655_5A5A   // "FUZZ"
    /// N = M = 4: the smallest model set, so each accepted payload decodes in microseconds.
    static func modelSet() throws -> IntHyperModelSet {
        try SampleModelGenerator.generate(seed: seed, n: 4, m: 4, name: "fuzz")
    }
    /// Graph runs beyond this many output elements are skipped (a valid payload of a huge
    /// picture is not a bug, only slow).
    static let maximumElements = 1 << 16
}

struct SkippedLargeRun: Error {}

nonisolated(unsafe) private var fixture: IntHyperModelSet?

/// The model set is made once, before fuzzing starts, so its allocations are not charged
/// to the first input (libFuzzer's per-input leak check).
@_cdecl("LLVMFuzzerInitialize")
public func payloadFixtureInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    do { fixture = try PayloadFixture.modelSet() } catch { fatalError("fixture: \(error)") }
    return 0
}

extension PayloadFixture {
    /// The model set LLVMFuzzerInitialize made.
    static var loaded: IntHyperModelSet {
        guard let set = fixture else { fatalError("LLVMFuzzerInitialize did not run") }
        return set
    }

    /// A refusal that is a correct outcome for any payload: the capability's and the
    /// envelope's typed errors (their description must render), and runs skipped as too
    /// large. Anything else a decoder throws is a bug.
    static func isTypedRefusal(_ error: Error) -> Bool {
        switch error {
        case let e as CapabilityError: _ = e.description
        case let e as EnvelopeError: _ = e.description
        case is SkippedLargeRun: break
        default: return false
        }
        return true
    }
}

struct ReferenceRunner: GraphRunner {
    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        for t in graph.outputs where graph.tensors[t].shape.count > PayloadFixture.maximumElements { throw SkippedLargeRun() }
        return (try ReferenceInterpreter.run(graph, inputs: inputs),
                RunReport(unit: .cpu, ref: .reference, device: "fuzz", driver: "fuzz", dispatch: .forced,
                          reason: "fuzzing", rank: nil))
    }
}
