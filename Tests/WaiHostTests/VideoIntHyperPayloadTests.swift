import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The `wai.video.int_hyper` payload (docs/capabilities/video_int_hyper.md §4) and its decode
/// (§6) on the reference interpreter with a small generated model set: every field bounded,
/// every refusal naming the field, the frame and the byte offset.
final class VideoIntHyperPayloadTests: XCTestCase {
    let id = [UInt8](repeating: 0xAB, count: 32)

    func make(_ pictures: [[UInt8]], chroma: VideoChroma = .yuv420) -> [UInt8] {
        VideoIntHyperPayload.make(chroma: chroma, width: 5, height: 3, frameRate: Rational(30000, 1001), aspect: Rational(0, 0),
                                  modelSetID: id, pictures: pictures)
    }

    func refusal(_ bytes: [UInt8]) -> VideoPayloadError? {
        do {
            _ = try VideoIntHyperPayload.parse(bytes)
            XCTFail("accepted")
            return nil
        } catch let e as VideoPayloadError {
            XCTAssertFalse(e.description.isEmpty)
            return e
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    func testLayoutRoundTripsAndEveryFieldIsChecked() throws {
        let bytes = make([[1, 2, 3], [4, 5], [6]])
        XCTAssertEqual(bytes.count, 68 + 3 * 16 + 6)
        let p = try VideoIntHyperPayload.parse(bytes)
        XCTAssertEqual(p.chroma, .yuv420)
        XCTAssertEqual([p.width, p.height, p.intraPeriod], [5, 3, 1])
        XCTAssertEqual(p.frameRate, Rational(30000, 1001))
        XCTAssertEqual(p.modelSetID, id)
        XCTAssertEqual(p.frames.map(\.range), [116..<119, 119..<121, 121..<122])
        XCTAssertEqual((0..<3).map { p.picture($0) }, [[1, 2, 3], [4, 5], [6]])

        func patched(_ offset: Int, _ value: [UInt8]) -> [UInt8] {
            var b = bytes
            b.replaceSubrange(offset..<(offset + value.count), with: value)
            return b
        }
        XCTAssertEqual(refusal(patched(0, [0x89, 0x49, 0x48, 0x50])), .badMagic(found: [0x89, 0x49, 0x48, 0x50]))
        XCTAssertEqual(refusal(patched(4, [2])), .unsupportedVersion(2))
        for (offset, value, field) in [(5, [UInt8(1)], "flags"), (6, [3], "chroma"), (7, [0], "matrix"), (8, [0, 0], "width"),
                                       (10, [0, 0], "height"), (12, [0, 0, 0, 0], "frame_rate_numerator"),
                                       (16, [0, 0, 0, 0x80], "frame_rate_denominator"), (20, [1, 0, 0, 0], "aspect_numerator"),
                                       (28, [2, 0, 0, 0], "intra_period"), (32, [0, 0, 0, 0], "frame_count"),
                                       (32, [1, 0, 0x10, 0], "frame_count")] {
            guard case let .invalidField(f, o, _)? = refusal(patched(offset, value)) else { XCTFail(field); continue }
            XCTAssertEqual(f, field)
            XCTAssertEqual(o, offset)
        }
        // A frame count the bytes cannot hold is refused before the index is read.
        XCTAssertEqual(refusal(patched(32, [0, 0, 0x10, 0])),
                       .truncated(field: "frame index", offset: 68, needed: 16 << 20, available: bytes.count - 68))
        // Index entries: frame 1's entry starts at 68 + 16.
        guard case .invalidIndexEntry(1, "offset", 84, _)? = refusal(patched(84, [120])) else { return XCTFail("offset") }
        guard case .invalidIndexEntry(1, "length", 92, _)? = refusal(patched(92, [0])) else { return XCTFail("zero length") }
        guard case .invalidIndexEntry(2, "length", 108, _)? = refusal(patched(108, [2])) else { return XCTFail("long") }
        guard case .invalidIndexEntry(0, "kind", 80, _)? = refusal(patched(80, [2])) else { return XCTFail("kind") }
        guard case .invalidIndexEntry(2, "reserved", 113, _)? = refusal(patched(114, [1])) else { return XCTFail("reserved") }
        XCTAssertEqual(refusal(bytes + [0]), .trailingBytes(count: 1, offset: 122))
        // Every proper prefix is refused as truncated or as an index entry past the end.
        for n in 0..<bytes.count {
            switch refusal(Array(bytes.prefix(n))) {
            case .truncated?, .invalidIndexEntry(_, "length", _, _)?, .badMagic?: break
            case let other: XCTFail("prefix \(n): \(String(describing: other))")
            }
        }
    }

    /// Frames decode through IntHyperDecoder exactly as each picture alone does; a picture
    /// that does not fit its sequence is refused naming the frame and its byte offset.
    func testDecodeFramesAndRefusalsNameTheFrame() throws {
        let set = try IntHyperTestSupport.small()
        let runner = HostGraphRunner.reference()
        let pictures = try (0..<3).map { try SamplePicture.make(width: 20 + $0, height: 12) }
        let crop = try pictures.map { p in
            try RGB8Image(width: 20, height: 12, pixels: (0..<12).flatMap { Array(p.pixels[($0 * p.width * 3)..<($0 * p.width * 3 + 60)]) })
        }
        let encoded = try VideoIntHyperCodec.encode(count: 3, frame: { crop[$0] }, chroma: .yuv444, width: 20, height: 12,
                                                    frameRate: Rational(25, 1), aspect: Rational(1, 1), modelSet: set, runner: runner)
        let opened = try VideoIntHyperCodec.open(encoded.bytes)
        XCTAssertTrue(opened.enveloped)
        XCTAssertTrue(VideoIntHyperCodec.isVideo(encoded.bytes))
        XCTAssertFalse(VideoIntHyperCodec.isVideo(try LocalFile.read(IntHyperTestSupport.samples + "/sample.wai", limit: 1 << 20)))
        var frames: [VideoIntHyperCodec.Frame] = []
        try VideoIntHyperCodec.decode(opened, modelSet: set, runner: runner) { frames.append($0) }
        XCTAssertEqual(frames.map(\.index), [0, 1, 2])
        for f in frames {
            let alone = try IntHyperCodec.decode(opened.payload.picture(f.index), modelSet: set, runner: runner)
            XCTAssertEqual(f.image, alone.image)
            XCTAssertEqual(f.planes, YCbCrBT601.planes(alone.image, chroma: .c444))
        }
        var some: [Int] = []
        try VideoIntHyperCodec.decode(opened, modelSet: set, runner: runner, frames: 1...2) { some.append($0.index) }
        XCTAssertEqual(some, [1, 2])
        XCTAssertThrowsError(try VideoIntHyperCodec.decode(opened, modelSet: set, runner: runner, frames: 2...3) { _ in }) {
            XCTAssertEqual($0 as? VideoPayloadError, .frameRange(first: 2, last: 3, frameCount: 3))
        }
        var otherSet = opened.payload.bytes
        otherSet[40] ^= 1   // inside model_set_id
        XCTAssertThrowsError(try VideoIntHyperCodec.decode(VideoIntHyperCodec.open(otherSet), modelSet: set, runner: runner) { _ in }) {
            guard case .modelSetMismatch? = $0 as? VideoPayloadError else { return XCTFail("\($0)") }
        }

        // Frame 1 replaced by a 21×12 picture: refused at frame 1, at its byte offset.
        let p = opened.payload
        let wrongSize = try IntHyperCodec.encode(pictures[1], modelSet: set, runner: runner, envelope: false).bytes
        let mixed = VideoIntHyperPayload.make(chroma: .yuv444, width: 20, height: 12, frameRate: Rational(25, 1), aspect: Rational(1, 1),
                                              modelSetID: set.id, pictures: [p.picture(0), wrongSize, p.picture(2)])
        XCTAssertThrowsError(try VideoIntHyperCodec.decode(VideoIntHyperCodec.open(mixed), modelSet: set, runner: runner) { _ in }) {
            guard case let .frameMismatch(1, offset, problem)? = $0 as? VideoPayloadError else { return XCTFail("\($0)") }
            XCTAssertEqual(offset, 68 + 3 * 16 + p.frames[0].range.count)
            XCTAssertTrue(problem.contains("21×12"), problem)
        }
        // Frame 2's picture cut short: the int_hyper error, with frame 2 and its offset.
        let cut = VideoIntHyperPayload.make(chroma: .yuv444, width: 20, height: 12, frameRate: Rational(25, 1), aspect: Rational(1, 1),
                                            modelSetID: set.id, pictures: [p.picture(0), p.picture(1), Array(p.picture(2).dropLast(3))])
        var decoded: [Int] = []
        XCTAssertThrowsError(try VideoIntHyperCodec.decode(VideoIntHyperCodec.open(cut), modelSet: set, runner: runner) { decoded.append($0.index) }) {
            guard case let .framePicture(frame, offset, inner)? = $0 as? VideoPayloadError, frame == 2,
                  case .truncated = inner else { return XCTFail("\($0)") }
            XCTAssertEqual(offset, 68 + 3 * 16 + p.frames[0].range.count + p.frames[1].range.count)
            XCTAssertTrue("\($0)".contains("frame 2"), "\($0)")
        }
        XCTAssertEqual(decoded, [0, 1], "the frames before the broken one were delivered")
        // A changed byte anywhere in the envelope: its digest says so.
        var flipped = encoded.bytes
        flipped[flipped.count / 2] ^= 1
        XCTAssertThrowsError(try VideoIntHyperCodec.open(flipped)) { XCTAssertTrue($0 is EnvelopeError, "\($0)") }
    }
}
