// libFuzzer harness for the wai.video.int_motion decoder (docs/capabilities/video_int_motion.md
// §5, §6), built by scripts/fuzz-video.sh (target motion) with the int_hyper payload fixture
// (the intra set) and MotionFixture (the motion set), on the reference interpreter; the
// properties are PredictiveFuzz.swift's.

@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func motionFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let intra = PayloadFixture.loaded, motion = MotionFixture.loaded
    predictiveFuzz(fuzzBytes(data, size), intra: intra, setID: motion.id, open: VideoIntMotionCodec.open) { opened, each in
        try VideoIntMotionCodec.decode(opened, intraSet: intra, motionSet: motion, runner: ReferenceRunner(), each: each)
    }
    return 0
}
