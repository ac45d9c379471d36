// libFuzzer harness for the wai.video.int_cond decoder (docs/capabilities/video_int_cond.md
// §5, §6, §11), built by scripts/fuzz-video.sh (target cond) with the int_hyper payload fixture
// (the intra set) and CondFixture (the conditional set), on the reference interpreter.
//
// Each input is decoded as given and with both fixture model-set ids patched into the
// sequence header, so mutations reach the index, the intra pictures and the P-frames'
// streams. Properties besides "no crash, no out-of-bounds access, no hang":
//  - every refusal is one of the typed errors (int_cond payload, capability, envelope);
//  - an accepted payload re-serialises to exactly its bytes, and every delivered frame has
//    the header's size, planes of the chroma's size and the index's kind.

@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func condFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let intra = PayloadFixture.loaded, cond = CondFixture.loaded
    check(bytes, intra, cond)
    if bytes.starts(with: VideoIntCondPayload.magic), bytes.count >= VideoIntCondPayload.headerSize {
        var patched = bytes
        patched.replaceSubrange(36..<68, with: intra.id)
        patched.replaceSubrange(68..<100, with: cond.id)
        check(patched, intra, cond)
    }
    return 0
}

private func check(_ bytes: [UInt8], _ intra: IntHyperModelSet, _ cond: CondModelSet) {
    do {
        let opened = try VideoIntCondCodec.open(bytes)
        let p = opened.payload
        let again = VideoIntCondPayload.make(chroma: p.chroma, width: p.width, height: p.height, frameRate: p.frameRate,
                                             aspect: p.aspect, gop: p.gop, intraModelSetID: p.intraModelSetID,
                                             condModelSetID: p.condModelSetID, frames: p.frames.indices.map { p.frame($0) })
        guard again == p.bytes else { fatalError("accepted payload does not re-serialise to itself") }
        let planeBytes = p.chroma.y4m.frameBytes(width: p.width, height: p.height)
        try VideoIntCondCodec.decode(opened, intraSet: intra, condSet: cond, runner: ReferenceRunner()) { f in
            guard f.frame.image.width == p.width, f.frame.image.height == p.height, f.frame.planes.count == planeBytes,
                  f.kind == p.frames[f.frame.index].kind else {
                fatalError("frame \(f.frame.index) differs from the header's size or the index's kind")
            }
        }
    } catch let e as VideoIntCondPayloadError {
        _ = e.description
    } catch {
        guard PayloadFixture.isTypedRefusal(error) else { fatalError("unexpected error type: \(error)") }
    }
}
