// libFuzzer harness for the YUV4MPEG2 reader (docs/capabilities/video_int_hyper.md §7), built
// by scripts/fuzz-video.sh together with Sources/WaiCore/Image/{Y4M,Y4MError,RGB8Image}.swift.
//
// Properties besides "no crash, no out-of-bounds access, no allocation sized by the header":
//  - every refusal is a Y4MError whose offset lies inside the input;
//  - an accepted stream rewritten by the writer parses back to the same header and planes.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

@_cdecl("LLVMFuzzerTestOneInput")
public func y4mFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    do {
        let s = try Y4MStream.parse(bytes, source: "fuzz", maximumFrames: 64)
        var again = s.header.serialized()
        for i in s.frames.indices { again += try Y4MWriter.frame(Array(s.planes(i)), header: s.header) }
        let t = try Y4MStream.parse(again, source: "rewritten", maximumFrames: 64)
        guard t.header == s.header, t.frames.count == s.frames.count,
              t.frames.indices.allSatisfy({ t.planes($0).elementsEqual(s.planes($0)) }) else {
            fatalError("a rewritten stream does not parse back to the same frames")
        }
    } catch let e as Y4MError {
        guard e.offset >= 0, e.offset <= bytes.count else { fatalError("error offset outside the input: \(e)") }
        _ = e.description
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
