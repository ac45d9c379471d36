// libFuzzer harness for the wai.neural.int_hyper payload decoder
// (docs/capabilities/int_hyper.md §4–§5), built by scripts/fuzz-payload.sh together with the
// sources it needs: capability dispatch, envelope, payload parser, rANS, model-set checks,
// graph resizing and the reference interpreter.
//
// Each input is decoded three ways: as given; with the model-set id patched to the
// fixture's (so the fuzzer gets past the id check); and additionally with z_count and
// y_count patched to what width and height imply (so it reaches the streams and graphs).
// Properties besides "no crash, no out-of-bounds access, no hang":
//  - every refusal is one of the typed errors (payload, capability, envelope);
//  - an accepted payload re-serialises to exactly its bytes, its picture has the header's
//    size, and every decoded z and y value lies in the graphs' input contracts.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

// The fixture (made in LLVMFuzzerInitialize) and the shared refusals: PayloadFixture.swift.

@_cdecl("LLVMFuzzerTestOneInput")
public func payloadFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let set = PayloadFixture.loaded
    check(bytes, set)
    guard IntHyperPayload.hasMagic(bytes), bytes.count >= IntHyperPayload.headerSize else { return 0 }
    var patched = bytes
    patched.replaceSubrange(10..<42, with: set.id)
    check(patched, set)
    let width = Int(bytes[6]) | Int(bytes[7]) << 8, height = Int(bytes[8]) | Int(bytes[9]) << 8
    guard width >= 1, height >= 1, width <= 256, height <= 256 else { return 0 }
    let g = IntHyperGeometry(width: width, height: height)
    put32(&patched, 42, set.hyperChannels * g.hyperHeight * g.hyperWidth)
    put32(&patched, 50, set.latentChannels * g.latentHeight * g.latentWidth)
    check(patched, set)
    return 0
}

private func put32(_ b: inout [UInt8], _ at: Int, _ v: Int) {
    for i in 0..<4 { b[at + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) }
}

private func check(_ bytes: [UInt8], _ set: IntHyperModelSet) {
    do {
        let d = try IntHyperCodec.decode(bytes, modelSet: set, runner: ReferenceRunner())
        let opened = try CapabilityRegistry.open(bytes)
        guard d.payload.serialized() == opened.payload else { fatalError("accepted payload does not re-serialise to itself") }
        guard d.image.width == d.payload.width, d.image.height == d.payload.height,
              d.image.pixels.count == d.payload.width * d.payload.height * 3 else {
            fatalError("picture size differs from the header")
        }
        guard d.result.z.values.allSatisfy({ set.hyperContract.contains(Int64($0)) }),
              d.result.y.values.allSatisfy({ set.latentContract.contains(Int64($0)) }) else {
            fatalError("a decoded value lies outside its input contract")
        }
    } catch let e as IntHyperPayloadError {
        _ = e.description
    } catch {
        guard PayloadFixture.isTypedRefusal(error) else { fatalError("unexpected error type: \(error)") }
    }
}
