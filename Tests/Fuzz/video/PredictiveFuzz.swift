// What the int_motion and int_cond libFuzzer harnesses (MotionPayloadFuzz.swift,
// CondPayloadFuzz.swift) check alike, linked into both by scripts/fuzz-video.sh.
//
// Each input is decoded as given and with both fixture model-set ids patched into the
// sequence header, so mutations reach the index, the intra pictures and the P-frames'
// streams. Properties besides "no crash, no out-of-bounds access, no hang":
//  - every refusal is one of the typed errors (the capability's payload error, capability, envelope);
//  - an accepted payload re-serialises to exactly its bytes, and every delivered frame has
//    the header's size, planes of the chroma's size and the index's kind.

@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

func predictiveFuzz<P: PredictiveVideoPayloadCoding>(_ bytes: [UInt8], intra: IntHyperModelSet, setID: [UInt8],
                                                     open: ([UInt8]) throws -> PredictiveVideoOpened<P>,
                                                     decode: (PredictiveVideoOpened<P>, (PredictiveVideoFrame) throws -> Void) throws -> Void) {
    check(bytes, open: open, decode: decode)
    if bytes.starts(with: P.magic), bytes.count >= P.layout.headerSize {
        var patched = bytes
        patched.replaceSubrange(36..<68, with: intra.id)
        patched.replaceSubrange(68..<100, with: setID)
        check(patched, open: open, decode: decode)
    }
}

private func check<P: PredictiveVideoPayloadCoding>(_ bytes: [UInt8], open: ([UInt8]) throws -> PredictiveVideoOpened<P>,
                                                    decode: (PredictiveVideoOpened<P>, (PredictiveVideoFrame) throws -> Void) throws -> Void) {
    do {
        let opened = try open(bytes)
        let p = opened.payload
        let again = P.make(chroma: p.chroma, width: p.width, height: p.height, frameRate: p.frameRate, aspect: p.aspect, gop: p.gop,
                           modelSetIDs: [p.intraModelSetID, p.predictedModelSetID], frames: p.frames.indices.map { p.frame($0) })
        guard again == p.bytes else { fatalError("accepted payload does not re-serialise to itself") }
        let planeBytes = p.chroma.y4m.frameBytes(width: p.width, height: p.height)
        try decode(opened) { f in
            guard f.frame.image.width == p.width, f.frame.image.height == p.height, f.frame.planes.count == planeBytes,
                  f.kind == p.frames[f.frame.index].kind else {
                fatalError("frame \(f.frame.index) differs from the header's size or the index's kind")
            }
        }
    } catch let e as PredictiveVideoPayloadError<P> {
        _ = e.description
    } catch {
        guard PayloadFixture.isTypedRefusal(error) else { fatalError("unexpected error type: \(error)") }
    }
}
