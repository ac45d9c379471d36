// libFuzzer harness for the wai.video.int_motion decoder (docs/capabilities/video_int_motion.md
// §5, §6), built by scripts/fuzz-video.sh (target motion) with the int_hyper payload fixture
// (the intra set) and MotionFixture (the motion set), on the reference interpreter.
//
// Each input is decoded as given and with both fixture model-set ids patched into the
// sequence header, so mutations reach the index, the intra pictures and the P-frames'
// streams. Properties besides "no crash, no out-of-bounds access, no hang":
//  - every refusal is one of the typed errors (int_motion payload, capability, envelope);
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
public func motionFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let intra = PayloadFixture.loaded, motion = MotionFixture.loaded
    check(bytes, intra, motion)
    if bytes.starts(with: VideoIntMotionPayload.magic), bytes.count >= VideoIntMotionPayload.headerSize {
        var patched = bytes
        patched.replaceSubrange(36..<68, with: intra.id)
        patched.replaceSubrange(68..<100, with: motion.id)
        check(patched, intra, motion)
    }
    return 0
}

private func check(_ bytes: [UInt8], _ intra: IntHyperModelSet, _ motion: MotionModelSet) {
    do {
        let opened = try VideoIntMotionCodec.open(bytes)
        let p = opened.payload
        let again = VideoIntMotionPayload.make(chroma: p.chroma, width: p.width, height: p.height, frameRate: p.frameRate,
                                               aspect: p.aspect, gop: p.gop, intraModelSetID: p.intraModelSetID,
                                               motionModelSetID: p.motionModelSetID, frames: p.frames.indices.map { p.frame($0) })
        guard again == p.bytes else { fatalError("accepted payload does not re-serialise to itself") }
        let planeBytes = p.chroma.y4m.frameBytes(width: p.width, height: p.height)
        try VideoIntMotionCodec.decode(opened, intraSet: intra, motionSet: motion, runner: ReferenceRunner()) { f in
            guard f.frame.image.width == p.width, f.frame.image.height == p.height, f.frame.planes.count == planeBytes,
                  f.kind == p.frames[f.frame.index].kind else {
                fatalError("frame \(f.frame.index) differs from the header's size or the index's kind")
            }
        }
    } catch let e as VideoIntMotionPayloadError {
        _ = e.description
    } catch {
        guard PayloadFixture.isTypedRefusal(error) else { fatalError("unexpected error type: \(error)") }
    }
}
