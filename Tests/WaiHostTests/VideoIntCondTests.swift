import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// `wai.video.int_cond` (docs/capabilities/video_int_cond.md): the seeded set (§8) and the
/// refusal of graphs that do not fit (§2.3), the closed-loop encoder and the decoder (§6–§7),
/// seeking from mid-GOP, the payload's refusals (§5.1) and the shared sequence header.
final class VideoIntCondTests: XCTestCase {
    typealias S = VideoIntCondTestSupport

    static let encoded: Result<(VideoIntCondCodec.Encoded, [RGB8Image]), Error> = Result {
        let frames = try S.panFrames()
        let e = try VideoIntCondCodec.encode(count: frames.count, frame: { frames[$0] }, chroma: .yuv420, width: 64, height: 48,
                                             frameRate: Rational(25, 1), aspect: Rational(0, 0), gop: 4, intraSet: try S.intra(),
                                             condSet: try S.cond(), runner: HostGraphRunner.reference(), envelope: true)
        return (e, frames)
    }

    /// §8: the set writes and loads back to the same id and regenerates byte for byte; the
    /// context's 48 carriers are the reference itself, 4×4 pixels to a position (§4.1).
    func testSeededSetLoadsBackAndTheContextCarriesTheReference() throws {
        let set = try S.cond()
        XCTAssertEqual(set.contextChannels, 48 + S.n)
        let dir = try IntHyperTestSupport.temporaryDirectory("cond-set")
        try set.write(to: dir)
        let loaded = try CondModelSet.load(directory: dir, needsAnalysis: true)
        XCTAssertEqual(loaded.id, set.id)
        XCTAssertTrue(loaded.canEncode)
        XCTAssertEqual(try CondModelSet.load(directory: dir).id, set.id, "decoder-only load: the same id")
        XCTAssertFalse(try CondModelSet.load(directory: dir).canEncode)
        XCTAssertEqual(try CondModelGenerator.generate(seed: S.seed, n: S.n, m: S.m).files().map(\.bytes), set.files().map(\.bytes),
                       "seeded: the same bytes")

        let ref = IntHyperEncoder.paddedPlanes(try S.panFrames(1)[0], height: 64, width: 64)
        let context = try GraphResizing.resized(set.context, height: 64, width: 64)
        let c = try ReferenceInterpreter.run(context, inputs: [ref])[0]
        XCTAssertEqual(c.shape, Shape(48 + S.n, 16, 16))
        for o in [0, 5, 17, 47] { for (i, j) in [(0, 0), (7, 3), (15, 15)] {
            XCTAssertEqual(c.values[(o * 16 + i) * 16 + j], ref.values[((o / 16) * 64 + 4 * i + (o % 16) / 4) * 64 + 4 * j + o % 4])
        } }

        // A file changed after the manifest was written is refused by name.
        var bytes = try IntHyperTestSupport.read(dir + "/cond_synth.whm")
        bytes[bytes.count - 1] ^= 1
        try IntHyperTestSupport.write(bytes, dir + "/cond_synth.whm")
        XCTAssertThrowsError(try CondModelSet.load(directory: dir)) { XCTAssertTrue("\($0)".contains("cond_synth.whm: SHA-256"), "\($0)") }
        XCTAssertThrowsError(try MotionModelSet.load(directory: dir)) { XCTAssertTrue("\($0)".contains("not a wai.video.int_motion model set"), "\($0)") }
    }

    /// §2.3: graphs that do not fit together are refused, naming the file and the tensor.
    func testWrongGraphShapesAreRefusedByFile() throws {
        let set = try S.cond()
        let other = try CondModelGenerator.generate(seed: 3, n: 4, m: 4)
        let a = try XCTUnwrap(set.analysis)
        func refused(context: IntegerGraph? = nil, prior: IntegerGraph? = nil, synthesis: IntegerGraph? = nil,
                     analysis: CondModelSet.Analysis? = nil, _ file: String, _ words: String, line: UInt = #line) {
            XCTAssertThrowsError(try CondModelSet(name: "x", version: "1", entropy: set.entropy, context: context ?? set.context,
                                                  prior: prior ?? set.prior, synthesis: synthesis ?? set.synthesis,
                                                  analysis: analysis ?? set.analysis), line: line) {
                guard let e = $0 as? ModelSetError else { return XCTFail("\($0)", line: line) }
                XCTAssertEqual(e.file, file, "\(e)", line: line)
                XCTAssertTrue(e.problem.contains(words), "\(e)", line: line)
            }
        }
        refused(context: a.hyper, "cond_context.whm", "the reference frame is 3 channels")
        refused(context: other.context, "cond_prior.whm", "cond_context.whm gives 52 channels")
        refused(prior: set.synthesis, "cond_prior.whm", "z_tables")
        refused(synthesis: set.prior, "cond_synth.whm", "scale indices per position")
        refused(analysis: .init(latent: a.latent, hyper: a.latent), "cond_h_a.whm", "exactly one of each")
        refused(analysis: .init(latent: set.synthesis, hyper: a.hyper), "cond_g_a.whm", "3 channels accepting [0, 255]")
        // A prior of the other set with this set's tables: its z has 4 channels, the tables 8.
        refused(prior: other.prior, "cond_prior.whm", "cond_context.whm gives")
    }

    /// §6–§7: the decode of every frame is the encoder's reconstruction and looks like its source.
    func testRoundTripDecodesTheEncodersReconstructions() throws {
        let (e, source) = try Self.encoded.get()
        let opened = try VideoIntCondCodec.open(e.bytes)
        XCTAssertEqual(opened.payload.frames.map(\.kind), [.intra, .predicted, .predicted, .predicted, .intra, .predicted])
        let frames = try S.decode(opened, runner: HostGraphRunner.reference())
        XCTAssertEqual(frames.map(\.frame.index), Array(0...5))
        XCTAssertEqual(frames.map(\.frame.image), e.reconstructions)
        // A P-frame is the previous frame plus a low-passed copy of what changed (§8): closer to
        // its source than the previous reconstruction is, never garbage.
        for (k, f) in frames.enumerated() {
            let db = S.psnr(f.frame.image, source[k])
            XCTAssertGreaterThan(db, f.kind == .intra ? 25 : 11, "frame \(k) (\(f.kind)) is \(db) dB from its source")
            if f.kind == .predicted {
                XCTAssertGreaterThan(db, S.psnr(frames[k - 1].frame.image, source[k]), "frame \(k): the conditional latent must help")
            }
        }
        print("int_cond round trip: \(e.frameBytes) bytes per frame; PSNR " + frames.enumerated().map { String(format: "%.1f", S.psnr($1.frame.image, source[$0])) }.joined(separator: " "))
    }

    /// §6 step 5: `--frames 2..5` decodes from frame 0 and gives exactly frames 2…5.
    func testFramesFromMidGOPEqualTheFullDecode() throws {
        let (e, _) = try Self.encoded.get()
        let opened = try VideoIntCondCodec.open(e.bytes)
        try PredictiveVideoTestSupport.checkFramesFromMidGOP(VideoIntCondPayload.self) {
            try S.decode(opened, runner: HostGraphRunner.reference(), frames: $0)
        }
    }

    /// §5.1: every refusal names the field and where.
    func testPayloadRefusals() throws {
        let (e, _) = try Self.encoded.get()
        let payload = try VideoIntCondCodec.open(e.bytes).payload
        let bytes = payload.bytes
        typealias E = VideoIntCondPayloadError
        func refused(_ b: [UInt8], _ check: (E) -> Bool, _ line: UInt = #line) {
            XCTAssertThrowsError(try VideoIntCondPayload.parse(b), line: line) {
                XCTAssertTrue(($0 as? E).map(check) ?? false, "\($0)", line: line)
            }
        }
        XCTAssertEqual(try VideoIntCondPayload.parse(bytes), payload)
        var b = bytes; b[3] = 0x4D
        refused(b) { $0 == .badMagic(found: [0x89, 0x56, 0x49, 0x4D]) }
        XCTAssertTrue("\(E.badMagic(found: [1, 2, 3, 4]))".contains("expected 89 56 49 43 — not a wai.video.int_cond payload"))
        b = bytes; b[4] = 2
        refused(b) { $0 == .unsupportedVersion(2) }
        b = bytes; b[28] = 0
        refused(b) { $0 == .invalidField(field: "intra_period", offset: 28, problem: "is 0; 1…65535 allowed") }
        // Frame 0 a P-frame: no intra frame precedes it.
        b = bytes; b[100 + 12] = 2
        refused(b) { if case let .invalidIndexEntry(0, "kind", 112, problem) = $0 { return problem.contains("preceding intra frame") }; return false }
        b = bytes; b[100 + 16 * 4 + 12] = 2
        refused(b) { if case .invalidIndexEntry(4, "kind", 176, _) = $0 { return true }; return false }
        b = bytes; b[100 + 16 + 12] = 1
        refused(b) { if case .invalidIndexEntry(1, "kind", 128, _) = $0 { return true }; return false }
        refused(bytes + [0]) { $0 == .trailingBytes(count: 1, offset: bytes.count) }
        refused(Array(bytes.prefix(99))) { $0 == .truncated(field: "cond_model_set_id", offset: 68, needed: 32, available: 31) }
        refused(Array(bytes.prefix(150))) { $0 == .truncated(field: "frame index", offset: 100, needed: 96, available: 50) }
        for cut in [0, 3, 4, 50, 100, 195, bytes.count - 1] {
            XCTAssertThrowsError(try VideoIntCondPayload.parse(Array(bytes.prefix(cut))), "prefix \(cut)")
        }

        // A P-frame's body: the stream lengths must add up; a stream needs a lane table.
        let at = payload.frames[1].range.lowerBound
        var body = payload.frame(1)
        XCTAssertNoThrow(try VideoIntCondPFrame.parse(body, frame: 1, at: at))
        body[4] &+= 1
        XCTAssertThrowsError(try VideoIntCondPFrame.parse(body, frame: 1, at: at)) { XCTAssertTrue("\($0)".contains("add up to"), "\($0)") }
        body = payload.frame(1); body[12] = 8; body[13] = 0; body[14] = 0; body[15] = 0
        XCTAssertThrowsError(try VideoIntCondPFrame.parse(body, frame: 1, at: at)) {
            XCTAssertEqual($0 as? E, .invalidFrame(frame: 1, field: "y_length", offset: at + 12, problem: "is 8; a lane stream has at least 9 bytes"))
        }
        XCTAssertThrowsError(try VideoIntCondPFrame.parse(Array(payload.frame(1).prefix(10)), frame: 1, at: at)) {
            XCTAssertEqual($0 as? E, .truncated(field: "P-frame 1 y_count", offset: at + 8, needed: 4, available: 2))
        }
        // A header claiming 65535×65535: refused from the size alone, before anything is allocated (§3).
        var huge = bytes
        huge.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try S.decode(try VideoIntCondCodec.open(huge), runner: HostGraphRunner.reference())) {
            if case .tooLarge(65535, 65535, _) = $0 as? E {} else { XCTFail("\($0)") }
        }
        // A count that is not the frame size's: refused before any stream is decoded.
        var mangled = bytes
        mangled[at] &+= 1
        XCTAssertThrowsError(try S.decode(try VideoIntCondCodec.open(mangled), runner: HostGraphRunner.reference(), frames: 1...1)) {
            XCTAssertEqual($0 as? E, .countMismatch(frame: 1, field: "z_count", offset: at, declared: 8 * 1 * 1 + 1, expected: 8))
        }
        // A y stream cut short inside its lanes: a named entropy error of that frame.
        var cut = bytes
        cut[payload.frames[1].range.upperBound - 1] ^= 0xFF
        XCTAssertThrowsError(try S.decode(try VideoIntCondCodec.open(cut), runner: HostGraphRunner.reference(), frames: 1...1)) {
            if case .framePicture(1, at, "P-frame latents", _) = $0 as? E {} else { XCTFail("\($0)") }
        }
    }

    /// §6 step 2: a payload decoded with another set is refused, naming which; the other
    /// capabilities' decoders refuse it by name.
    func testWrongModelSetsAndCapabilitiesAreRefused() throws {
        let (e, _) = try Self.encoded.get()
        let opened = try VideoIntCondCodec.open(e.bytes)
        let other = try CondModelGenerator.generate(seed: 8, n: 4, m: 4)
        XCTAssertThrowsError(try VideoIntCondCodec.decode(opened, intraSet: try S.intra(), condSet: other,
                                                          runner: HostGraphRunner.reference()) { _ in }) {
            if case .modelSetMismatch("predicted", _, _, _, _) = $0 as? VideoIntCondPayloadError {} else { XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try VideoIntCondCodec.decode(opened, intraSet: try IntHyperTestSupport.small(), condSet: try S.cond(),
                                                          runner: HostGraphRunner.reference()) { _ in }) {
            if case .modelSetMismatch("intra", _, _, _, _) = $0 as? VideoIntCondPayloadError {} else { XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try VideoIntMotionCodec.open(e.bytes)) {
            XCTAssertEqual($0 as? CapabilityError, .wrongCapability(found: "wai.video.int_cond", expected: "wai.video.int_motion"))
        }
        XCTAssertEqual(try CapabilityRegistry.open(opened.payload.bytes).capability, "wai.video.int_cond", "a bare payload by its magic")
    }

    /// D4: VIH, VIM and VIC share one header reader; the same header bytes under each magic
    /// parse to the same fields, and each refusal is its own payload's error.
    func testTheSharedSequenceHeaderReadsAllThreeLayouts() throws {
        let ids = [[UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32)]
        let frames: [[UInt8]] = [[1, 2, 3], [4], [5, 6]]
        let vim = VideoIntMotionPayload.make(chroma: .yuv444, width: 17, height: 9, frameRate: Rational(30000, 1001), aspect: Rational(1, 1),
                                             gop: 2, intraModelSetID: ids[0], motionModelSetID: ids[1], frames: frames)
        let vic = VideoIntCondPayload.make(chroma: .yuv444, width: 17, height: 9, frameRate: Rational(30000, 1001), aspect: Rational(1, 1),
                                           gop: 2, intraModelSetID: ids[0], condModelSetID: ids[1], frames: frames)
        XCTAssertEqual(Array(vim.dropFirst(4)), Array(vic.dropFirst(4)), "the same layout but the magic")
        let c = try VideoIntCondPayload.parse(vic), m = try VideoIntMotionPayload.parse(vim)
        XCTAssertEqual([c.width, c.height, c.gop, c.frames.count], [m.width, m.height, m.gop, m.frames.count])
        XCTAssertEqual(c.frames.map(\.range), m.frames.map(\.range))
        XCTAssertEqual(c.frames.map(\.kind), [.intra, .predicted, .intra])
        XCTAssertEqual(c.condModelSetID, ids[1])
        let vih = VideoIntHyperPayload.make(chroma: .rgb, width: 17, height: 9, frameRate: Rational(25, 1), aspect: Rational(0, 0),
                                            modelSetID: ids[0], pictures: frames)
        XCTAssertEqual(vih.count, 68 + 48 + 6)
        XCTAssertEqual(try VideoIntHyperPayload.parse(vih).frames.map(\.range), [116..<119, 119..<120, 120..<122])
        var bad = vih; bad[28] = 2
        XCTAssertThrowsError(try VideoIntHyperPayload.parse(bad)) {
            XCTAssertEqual($0 as? VideoPayloadError, .invalidField(field: "intra_period", offset: 28,
                                                                   problem: "is 2; every frame of wai.video.int_hyper is intra, so it must be 1"))
        }
        XCTAssertThrowsError(try VideoIntMotionPayload.parse(Array(vim.prefix(90)))) {
            XCTAssertEqual($0 as? VideoIntMotionPayloadError, .truncated(field: "motion_model_set_id", offset: 68, needed: 32, available: 22))
        }
    }
}
