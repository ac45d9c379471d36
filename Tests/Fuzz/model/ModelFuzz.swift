// libFuzzer harness for ModelContainer.decode (docs/model-container.md), which includes the
// structural validation and the certificate verifier (docs/integer-ops.md §1, §4, §5).
// Built by scripts/fuzz.sh into one module with the sources it tests.
//
// Each input is decoded twice: as given, and resealed (its trailer replaced by the SHA-256 of
// the rest, Tests/Fuzz/Shared/Resealed.swift), so mutations reach the parser instead of
// stopping at the checksum. For every
// input decode accepts, three properties must hold, or the harness crashes on purpose:
//   1. the encoding is canonical: encode(decode(b)) == b;
//   2. the certificate is sound: the reference interpreter, which checks every intermediate
//      against int32 and every value against its certificate interval, runs the graph at
//      the corners of the input contract without an error (small graphs only);
//   3. decode throws nothing but ModelContainerError.
// Because mutations rarely keep a certificate consistent, every input that parses is also
// given the certificate computeIntervals derives for it (when it derives one): verify must
// then accept it, and property 2 must hold. This fuzzes the interval rules of §5 against the
// interpreter's int32 checks on arbitrary parameters.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func modelFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    check(bytes)
    if let again = resealed(bytes) {
        check(again)
        recertify(again)
    }
    return 0
}

private func check(_ bytes: [UInt8]) {
    let graph: IntegerGraph
    do {
        graph = try ModelContainer.decode(bytes, source: "fuzz")
    } catch is ModelContainerError {
        return
    } catch {
        fatalError("decode threw a non-container error: \(error)")
    }
    guard ModelContainer.encode(graph) == bytes else { fatalError("accepted container is not canonical") }
    runCorners(graph, seed: bytes.count)
}

private func recertify(_ bytes: [UInt8]) {
    guard var graph = try? ModelContainer.parse(bytes, source: "fuzz"),
          let intervals = try? CertificateVerifier.computeIntervals(graph) else { return }
    for t in graph.tensors.indices { graph.tensors[t].interval = intervals[t] }
    do {
        try CertificateVerifier.verify(graph)
    } catch {
        fatalError("verify refused the certificate computeIntervals produced: \(error)")
    }
    runCorners(graph, seed: bytes.count)
}

/// Multiply-accumulates a run would take, or nil when the graph is too big to run here.
private func cost(_ graph: IntegerGraph) -> Int? {
    var total = 0
    for t in graph.tensors { total += t.shape.count }
    for n in graph.nodes {
        let out = graph.tensors[n.output].shape.count
        switch n.op {
        case .conv2d(let p), .convTranspose2d(let p):
            total += out * graph.tensors[n.inputs[0]].shape.channels * p.kernelH * p.kernelW
        case .inverseGDN:
            total += out * graph.tensors[n.output].shape.channels
        default:
            total += out
        }
        if total > 1 << 20 { return nil }
    }
    return total
}

private func runCorners(_ graph: IntegerGraph, seed: Int) {
    guard cost(graph) != nil else { return }
    // All-low, all-high, a checkerboard of the two (the extremes the rules reason about), and
    // a pseudo-random mix of the two.
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    for pattern in 0..<4 {
        let inputs = graph.inputs.map { t -> TensorValue in
            let spec = graph.tensors[t]
            let lo = Int32(spec.interval.lo), hi = Int32(spec.interval.hi)
            let values = (0..<spec.shape.count).map { k -> Int32 in
                switch pattern {
                case 0: return lo
                case 1: return hi
                case 2: return k % 2 == 0 ? lo : hi
                default:
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    return state & 1 == 0 ? lo : hi
                }
            }
            return TensorValue(shape: spec.shape, values: values)
        }
        do {
            _ = try ReferenceInterpreter.run(graph, inputs: inputs)
        } catch {
            fatalError("verified graph failed in the reference interpreter: \(error)")
        }
    }
}
