import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// `wai.video.int_motion` (docs/capabilities/video_int_motion.md): the seeded set (§8), the
/// closed-loop encoder and the decoder (§6–§7), seeking from mid-GOP, the payload's refusals
/// (§5.1), and the bundled golden clip on the reference and on every unit (§10).
final class VideoIntMotionTests: XCTestCase {
    typealias S = VideoIntMotionTestSupport

    static let encoded: Result<(VideoIntMotionCodec.Encoded, [RGB8Image]), Error> = Result {
        let frames = try S.panFrames()
        let e = try VideoIntMotionCodec.encode(count: frames.count, frame: { frames[$0] }, chroma: .yuv420, width: 64, height: 48,
                                               frameRate: Rational(25, 1), aspect: Rational(0, 0), gop: 4, intraSet: try S.intra(),
                                               motionSet: try S.motion(), runner: HostGraphRunner.reference(), envelope: true)
        return (e, frames)
    }

    /// §8: the set writes and loads back to the same id; zero motion latents give zero flow,
    /// so predict is then exactly the reference (integer-ops.md §4.10).
    func testSeededSetLoadsBackAndZeroMotionPredictsTheReference() throws {
        let set = try S.motion()
        let dir = try IntHyperTestSupport.temporaryDirectory("motion-set")
        try set.write(to: dir)
        let loaded = try MotionModelSet.load(directory: dir, needsAnalysis: true)
        XCTAssertEqual(loaded.id, set.id)
        XCTAssertTrue(loaded.canEncode)
        XCTAssertEqual(try MotionModelSet.load(directory: dir).id, set.id, "decoder-only load: the same id")
        XCTAssertEqual(try MotionModelGenerator.generate(seed: S.seed, n: S.n, m: S.m).id, set.id, "seeded: the same bytes")

        let ref = IntHyperEncoder.paddedPlanes(try S.panFrames(1)[0], height: 48, width: 64)
        let predict = try GraphResizing.resized(try XCTUnwrap(set.predict), sizes: [(48, 64), (3, 4)])
        let out = try ReferenceInterpreter.run(predict, inputs: [ref, TensorValue(zeros: Shape(S.m, 3, 4))])[0]
        XCTAssertEqual(out.values, ref.values)

        // A file changed after the manifest was written is refused by name.
        var bytes = try IntHyperTestSupport.read(dir + "/p_synth.whm")
        bytes[bytes.count - 1] ^= 1
        try IntHyperTestSupport.write(bytes, dir + "/p_synth.whm")
        XCTAssertThrowsError(try MotionModelSet.load(directory: dir)) { XCTAssertTrue("\($0)".contains("p_synth.whm: SHA-256"), "\($0)") }
    }

    /// §6–§7: the decode of every frame is the encoder's reconstruction, and looks like its source.
    func testRoundTripDecodesTheEncodersReconstructions() throws {
        let (e, source) = try Self.encoded.get()
        let opened = try VideoIntMotionCodec.open(e.bytes)
        XCTAssertEqual(opened.payload.frames.map(\.kind), [.intra, .predicted, .predicted, .predicted, .intra, .predicted])
        let frames = try S.decode(opened, runner: HostGraphRunner.reference())
        XCTAssertEqual(frames.map(\.frame.index), Array(0...5))
        XCTAssertEqual(frames.map(\.frame.image), e.reconstructions)
        // On this 6-pixel-a-frame pan of a 64×48 window a P-frame is the previous frame moved by
        // the searched vectors (§7.1; new content enters at two edges every frame) plus a soft
        // residual: closer to its source than the previous reconstruction is, never garbage.
        for (k, f) in frames.enumerated() {
            let db = S.psnr(f.frame.image, source[k])
            XCTAssertGreaterThan(db, f.kind == .intra ? 25 : 15, "frame \(k) (\(f.kind)) is \(db) dB from its source")
            if f.kind == .predicted {
                XCTAssertGreaterThan(db, S.psnr(frames[k - 1].frame.image, source[k]), "frame \(k): the residual must help")
            }
        }
        print("int_motion round trip: \(e.frameBytes) bytes per frame; PSNR " + frames.enumerated().map { String(format: "%.1f", S.psnr($1.frame.image, source[$0])) }.joined(separator: " "))
    }

    /// §6 step 5: `--frames 2..5` decodes from frame 0 and gives exactly frames 2…5.
    func testFramesFromMidGOPEqualTheFullDecode() throws {
        let (e, _) = try Self.encoded.get()
        let opened = try VideoIntMotionCodec.open(e.bytes)
        try PredictiveVideoTestSupport.checkFramesFromMidGOP(VideoIntMotionPayload.self) {
            try S.decode(opened, runner: HostGraphRunner.reference(), frames: $0)
        }
    }

    /// §5.1: every refusal names the field and where.
    func testPayloadRefusals() throws {
        let (e, _) = try Self.encoded.get()
        let payload = try VideoIntMotionCodec.open(e.bytes).payload
        let bytes = payload.bytes
        typealias E = VideoIntMotionPayloadError
        func refused(_ b: [UInt8], _ check: (E) -> Bool, _ line: UInt = #line) {
            XCTAssertThrowsError(try VideoIntMotionPayload.parse(b), line: line) {
                XCTAssertTrue(($0 as? E).map(check) ?? false, "\($0)", line: line)
            }
        }
        XCTAssertEqual(try VideoIntMotionPayload.parse(bytes), payload)
        var b = bytes; b[3] = 0x48
        refused(b) { if case .badMagic = $0 { return true }; return false }
        b = bytes; b[4] = 2
        refused(b) { $0 == .unsupportedVersion(2) }
        b = bytes; b[28] = 0
        refused(b) { if case .invalidField("intra_period", 28, _) = $0 { return true }; return false }
        // Frame 0 a P-frame: no intra frame precedes it.
        b = bytes; b[100 + 12] = 2
        refused(b) { if case let .invalidIndexEntry(0, "kind", 112, problem) = $0 { return problem.contains("preceding intra frame") }; return false }
        // Frame 4 must start the second GOP; frame 1 must not be intra.
        b = bytes; b[100 + 16 * 4 + 12] = 2
        refused(b) { if case .invalidIndexEntry(4, "kind", _, _) = $0 { return true }; return false }
        b = bytes; b[100 + 16 + 12] = 1
        refused(b) { if case .invalidIndexEntry(1, "kind", _, _) = $0 { return true }; return false }
        refused(bytes + [0]) { $0 == .trailingBytes(count: 1, offset: bytes.count) }
        for cut in [0, 3, 4, 50, 99, 100, 150, 195, bytes.count - 1] {
            XCTAssertThrowsError(try VideoIntMotionPayload.parse(Array(bytes.prefix(cut))), "prefix \(cut)")
        }

        // A P-frame's body: the stream lengths must add up; a stream needs a lane table.
        let at = payload.frames[1].range.lowerBound
        var body = payload.frame(1)
        XCTAssertNoThrow(try VideoIntMotionPFrame.parse(body, frame: 1, at: at))
        body[4] &+= 1
        XCTAssertThrowsError(try VideoIntMotionPFrame.parse(body, frame: 1, at: at)) {
            XCTAssertEqual("\($0)".contains("add up to"), true, "\($0)")
        }
        body = payload.frame(1); body[4] = 8; body[5] = 0; body[6] = 0; body[7] = 0
        XCTAssertThrowsError(try VideoIntMotionPFrame.parse(body, frame: 1, at: at)) {
            XCTAssertEqual($0 as? E, .invalidFrame(frame: 1, field: "motion_z_length", offset: at + 4, problem: "is 8; a lane stream has at least 9 bytes"))
        }
        XCTAssertThrowsError(try VideoIntMotionPFrame.parse(Array(payload.frame(1).prefix(20)), frame: 1, at: at)) {
            if case .truncated = $0 as? E {} else { XCTFail("\($0)") }
        }
        // A header claiming 65535×65535: refused from the size alone, before anything is allocated (§3).
        var huge = bytes
        huge.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try S.decode(try VideoIntMotionCodec.open(huge), runner: HostGraphRunner.reference())) {
            if case .tooLarge(65535, 65535, _) = $0 as? E {} else { XCTFail("\($0)") }
        }
        // A count that is not the frame size's: refused before any stream is decoded.
        var mangled = bytes
        mangled[at] &+= 1
        XCTAssertThrowsError(try S.decode(try VideoIntMotionCodec.open(mangled), runner: HostGraphRunner.reference(), frames: 1...1)) {
            if case .countMismatch(1, "motion_z_count", _, _, _) = $0 as? E {} else { XCTFail("\($0)") }
        }
    }

    /// §6 step 2: a payload decoded with another set is refused, naming which.
    func testWrongModelSetsAreRefused() throws {
        let (e, _) = try Self.encoded.get()
        let opened = try VideoIntMotionCodec.open(e.bytes)
        let other = try MotionModelGenerator.generate(seed: 8, n: 4, m: 4)
        XCTAssertThrowsError(try VideoIntMotionCodec.decode(opened, intraSet: try S.intra(), motionSet: other,
                                                            runner: HostGraphRunner.reference()) { _ in }) {
            if case .modelSetMismatch("predicted", _, _, _, _) = $0 as? VideoIntMotionPayloadError {} else { XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try VideoIntMotionCodec.decode(opened, intraSet: try IntHyperTestSupport.small(), motionSet: try S.motion(),
                                                            runner: HostGraphRunner.reference()) { _ in }) {
            if case .modelSetMismatch("intra", _, _, _, _) = $0 as? VideoIntMotionPayloadError {} else { XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try VideoIntHyperCodec.open(e.bytes)) { XCTAssertTrue("\($0)".contains("wai.video.int_motion"), "\($0)") }
    }
}
