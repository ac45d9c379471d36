// libFuzzer harness for the wai.video.int_cond decoder (docs/capabilities/video_int_cond.md
// §5, §6, §11), built by scripts/fuzz-video.sh (target cond) with the int_hyper payload fixture
// (the intra set) and CondFixture (the conditional set), on the reference interpreter; the
// properties are PredictiveFuzz.swift's.

@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func condFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let intra = PayloadFixture.loaded, cond = CondFixture.loaded
    predictiveFuzz(fuzzBytes(data, size), intra: intra, setID: cond.id, open: VideoIntCondCodec.open) { opened, each in
        try VideoIntCondCodec.decode(opened, intraSet: intra, condSet: cond, runner: ReferenceRunner(), each: each)
    }
    return 0
}
