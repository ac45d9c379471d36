// Writes the seed corpora for scripts/fuzz-video.sh: Y4M streams (4:2:0 and 4:4:4, odd
// sizes) into DIR/y4m and wai.video.int_hyper payloads of the fuzz fixture's model set
// (bare and enveloped) into DIR/payload, int_motion's into DIR/motion and int_cond's into
// DIR/cond. Usage: video-corpus DIR.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities
#if canImport(Glibc)
import Glibc
#endif

@main
struct VideoCorpusGenerator {
    static func main() {
        guard CommandLine.arguments.count == 2 else {
            fputs("usage: video-corpus DIRECTORY\n", stderr)
            exit(2)
        }
        let dir = CommandLine.arguments[1]
        do {
            let set = try PayloadFixture.modelSet()
            var n = 0
            for (w, h, chroma) in [(3, 2, Y4MChroma.c420jpeg), (16, 8, .c444), (5, 7, .c420mpeg2)] {
                let frames = try (0..<2).map { try SamplePicture.make(width: w + $0, height: h) }
                let cropped = try frames.map { f in
                    try RGB8Image(width: w, height: h, pixels: (0..<h).flatMap { Array(f.pixels[($0 * f.width * 3)..<($0 * f.width * 3 + w * 3)]) })
                }
                let header = Y4MHeader(width: w, height: h, frameRate: Rational(25, 1), aspect: Rational(1, 1), chroma: chroma)
                var y4m = header.serialized()
                for c in cropped { y4m += try Y4MWriter.frame(YCbCrBT601.planes(c, chroma: chroma), header: header) }
                try LocalFile.write(y4m, to: "\(dir)/y4m/\(w)x\(h)-\(chroma.rawValue).y4m")
                for envelope in [false, true] {
                    let e = try VideoIntHyperCodec.encode(count: 2, frame: { cropped[$0] }, chroma: chroma.isSubsampled ? .yuv420 : .yuv444,
                                                          width: w, height: h, frameRate: Rational(25, 1), aspect: Rational(0, 0),
                                                          modelSet: set, runner: ReferenceRunner(), envelope: envelope)
                    try LocalFile.write(e.bytes, to: "\(dir)/payload/\(w)x\(h)\(envelope ? ".wai" : ".payload")")
                }
                n += 3
            }
            // wai.video.int_motion (target motion): GOP 2, so each has an intra frame and a P-frame.
            let motion = try MotionFixture.modelSet()
            for (w, h) in [(3, 2), (16, 8), (17, 18)] {
                let frames = try (0..<3).map { k in
                    let f = try SamplePicture.make(width: w + 2 * k, height: h)
                    return try RGB8Image(width: w, height: h, pixels: (0..<h).flatMap { Array(f.pixels[($0 * f.width * 3)..<($0 * f.width * 3 + w * 3)]) })
                }
                for envelope in [false, true] {
                    let e = try VideoIntMotionCodec.encode(count: 3, frame: { frames[$0] }, chroma: .yuv420, width: w, height: h,
                                                           frameRate: Rational(25, 1), aspect: Rational(0, 0), gop: 2, intraSet: set,
                                                           motionSet: motion, runner: ReferenceRunner(), envelope: envelope)
                    try LocalFile.write(e.bytes, to: "\(dir)/motion/\(w)x\(h)\(envelope ? ".wai" : ".payload")")
                }
                n += 2
            }
            // wai.video.int_cond (target cond): GOP 2; 70×65 has a 2×2 hyper-latent.
            let cond = try CondFixture.modelSet()
            for (w, h) in [(3, 2), (16, 8), (70, 65)] {
                let frames = try (0..<3).map { k in
                    let f = try SamplePicture.make(width: w + 2 * k, height: h)
                    return try RGB8Image(width: w, height: h, pixels: (0..<h).flatMap { Array(f.pixels[($0 * f.width * 3)..<($0 * f.width * 3 + w * 3)]) })
                }
                for envelope in [false, true] {
                    let e = try VideoIntCondCodec.encode(count: 3, frame: { frames[$0] }, chroma: .yuv420, width: w, height: h,
                                                         frameRate: Rational(25, 1), aspect: Rational(0, 0), gop: 2, intraSet: set,
                                                         condSet: cond, runner: ReferenceRunner(), envelope: envelope)
                    try LocalFile.write(e.bytes, to: "\(dir)/cond/\(w)x\(h)\(envelope ? ".wai" : ".payload")")
                }
                n += 2
            }
            print("wrote \(n) seeds")
        } catch {
            fputs("video-corpus: \(error)\n", stderr)
            exit(1)
        }
    }
}
