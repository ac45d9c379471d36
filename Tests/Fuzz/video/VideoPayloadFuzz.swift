// libFuzzer harness for the wai.video.int_hyper decoder (docs/capabilities/video_int_hyper.md
// §4, §6), built by scripts/fuzz-video.sh with the int_hyper payload harness's sources and
// fixture (Tests/Fuzz/payload/PayloadFixture.swift: an N = M = 4 model set on the reference
// interpreter).
//
// Each input is decoded as given and with the fixture's model-set id patched into the
// sequence header, so mutations reach the index and the pictures. Properties besides "no
// crash, no out-of-bounds access, no hang":
//  - every refusal is one of the typed errors (video payload, capability, envelope);
//  - an accepted payload re-serialises to exactly its bytes, and every delivered frame has
//    the header's size and planes of the chroma's size.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func videoFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let set = PayloadFixture.loaded
    check(bytes, set)
    if VideoIntHyperPayload.hasMagic(bytes), bytes.count >= VideoIntHyperPayload.headerSize {
        var patched = bytes
        patched.replaceSubrange(36..<68, with: set.id)
        check(patched, set)
    }
    return 0
}

private func check(_ bytes: [UInt8], _ set: IntHyperModelSet) {
    do {
        let opened = try VideoIntHyperCodec.open(bytes)
        let p = opened.payload
        let again = VideoIntHyperPayload.make(chroma: p.chroma, width: p.width, height: p.height, frameRate: p.frameRate,
                                              aspect: p.aspect, modelSetID: p.modelSetID,
                                              pictures: p.frames.indices.map { p.picture($0) })
        guard again == p.bytes else { fatalError("accepted payload does not re-serialise to itself") }
        let planeBytes = p.chroma.y4m.frameBytes(width: p.width, height: p.height)
        try VideoIntHyperCodec.decode(opened, modelSet: set, runner: ReferenceRunner()) { f in
            guard f.image.width == p.width, f.image.height == p.height, f.planes.count == planeBytes else {
                fatalError("frame \(f.index) differs from the header's size")
            }
        }
    } catch let e as VideoPayloadError {
        _ = e.description
    } catch {
        guard PayloadFixture.isTypedRefusal(error) else { fatalError("unexpected error type: \(error)") }
    }
}
