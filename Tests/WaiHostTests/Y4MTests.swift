import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The YUV4MPEG2 reader and writer (docs/capabilities/video_int_hyper.md §7) and the exact
/// BT.601 conversion (§5): what is accepted, and where each refusal points.
final class Y4MTests: XCTestCase {
    func stream(_ header: String, frames: [[UInt8]], frameLine: String = "FRAME\n") -> [UInt8] {
        frames.reduce(Array((header + "\n").utf8)) { $0 + Array(frameLine.utf8) + $1 }
    }

    func testEveryChromaTagAndDefaults() throws {
        for (tag, chroma, bytes) in [("C420jpeg", Y4MChroma.c420jpeg, 10), ("C420paldv", .c420paldv, 10),
                                     ("C420mpeg2", .c420mpeg2, 10), ("C420", .c420, 10), ("C444", .c444, 18), ("", .c420jpeg, 10)] {
            // 3×2: chroma planes of 4:2:0 are 2×1 (odd width rounds up): 6 + 2 + 2 bytes.
            let planes = [UInt8](0..<UInt8(bytes))
            let text = "YUV4MPEG2 W3 H2 F30000:1001 Ip A1:1" + (tag.isEmpty ? "" : " " + tag) + " XYSCSS=420JPEG"
            let s = try Y4MStream.parse(stream(text, frames: [planes, planes], frameLine: "FRAME Ixyz\n"), source: "t", maximumFrames: 10)
            XCTAssertEqual(s.header.chroma, chroma, tag)
            XCTAssertEqual(s.header.frameRate, Rational(30000, 1001))
            XCTAssertEqual(s.header.aspect, Rational(1, 1))
            XCTAssertEqual(s.frames.count, 2)
            XCTAssertEqual(Array(s.planes(1)), planes)
        }
        // A and I are optional; the writer's output parses back to the same stream.
        let s = try Y4MStream.parse(stream("YUV4MPEG2 W2 H2 F25:1", frames: [[1, 2, 3, 4, 5, 6]]), source: "t", maximumFrames: 1)
        XCTAssertEqual(s.header.aspect, Rational(0, 0))
        let written = s.header.serialized() + (try Y4MWriter.frame(Array(s.planes(0)), header: s.header))
        XCTAssertEqual(String(decoding: s.header.serialized(), as: UTF8.self), "YUV4MPEG2 W2 H2 F25:1 Ip A0:0 C420jpeg\n")
        let again = try Y4MStream.parse(written, source: "t", maximumFrames: 1)
        XCTAssertEqual(again.header, s.header)
        XCTAssertEqual(Array(again.planes(0)), [1, 2, 3, 4, 5, 6])
        XCTAssertThrowsError(try Y4MWriter.frame([1, 2], header: s.header))
    }

    func refusal(_ bytes: [UInt8], maximumFrames: Int = 8) -> Y4MError? {
        do {
            _ = try Y4MStream.parse(bytes, source: "in.y4m", maximumFrames: maximumFrames)
            XCTFail("accepted")
            return nil
        } catch let e as Y4MError {
            XCTAssertFalse(e.description.isEmpty)
            return e
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    func testHeaderRefusalsNameTheParameterAndOffset() {
        let six = [UInt8](repeating: 0, count: 6)
        XCTAssertEqual(refusal(Array("RIFF....".utf8))?.problem, .notY4M)
        XCTAssertEqual(refusal(Array("YUV4MPEG2 W2 H2 F25:1".utf8))?.problem, .headerTooLong(limit: 1024))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 H2 F25:1", frames: [six]))?.problem, .missingParameter("W (width)"))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2", frames: [six]))?.problem, .missingParameter("F (frame rate)"))
        let zero = refusal(stream("YUV4MPEG2 W0 H2 F25:1", frames: [six]))
        XCTAssertEqual(zero?.offset, 10)
        XCTAssertEqual(zero?.problem, .invalidValue(parameter: "W", value: "0", expected: "an integer in 1…65535"))
        let big = refusal(stream("YUV4MPEG2 W2 H65536 F25:1", frames: [six]))
        XCTAssertEqual(big?.offset, 13)
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F25:0", frames: [six]))?.offset, 16)
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F99999999999:1", frames: [six]))?.offset, 16)
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F25:1 A1:0", frames: [six]))?.offset, 22)
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 W2 H2 F25:1", frames: [six]))?.problem, .duplicateParameter("W"))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F25:1 C422", frames: [six]))?.problem, .unsupportedChroma("422"))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F25:1 C420p10", frames: [six]))?.problem, .unsupportedChroma("420p10"))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F25:1 It", frames: [six]))?.problem, .interlaced("t"))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2 H2 F25:1 Q7", frames: [six]))?.problem, .unknownParameter("Q7"))
        XCTAssertEqual(refusal(stream("YUV4MPEG2 W2  H2 F25:1", frames: [six]))?.offset, 13)
    }

    /// Sizes from the header are never trusted: the largest header asks for 12.9 GB a frame,
    /// which is refused from the header alone, and frames are checked against the bytes there.
    func testUntrustedSizesAreBoundedBeforeAnyAllocation() {
        let huge = refusal(Array("YUV4MPEG2 W65535 H65535 F25:1 C444\nFRAME\n".utf8))
        XCTAssertEqual(huge?.problem, .frameTooLarge(width: 65535, height: 65535, bytes: 3 * 65535 * 65535, limit: 1 << 30))
        // 4:2:0 at 65535×65535 is 6.4 GB: also over the bound.
        XCTAssertNotNil(refusal(Array("YUV4MPEG2 W65535 H65535 F25:1\nFRAME\n".utf8)))
        // 8000×8000 4:2:0 fits the bound, but the stream ends after 3 bytes of planes.
        let short = refusal(Array("YUV4MPEG2 W8000 H8000 F25:1\nFRAME\nabc".utf8))
        XCTAssertEqual(short?.problem, .truncatedFrame(needed: 96_000_000, available: 3))
        XCTAssertEqual(short?.frame, 0)
        XCTAssertEqual(short?.offset, 34)
    }

    func testFrameRefusalsNameTheFrameAndOffset() {
        let six = [UInt8](repeating: 7, count: 6)
        let header = "YUV4MPEG2 W2 H2 F25:1"   // 22 bytes with its newline; each frame 6 + 6 bytes
        var bad = stream(header, frames: [six, six])
        bad.replaceSubrange(34..<39, with: Array("FRAMX".utf8))
        let marker = refusal(bad)
        XCTAssertEqual(marker?.frame, 1)
        XCTAssertEqual(marker?.offset, 34)
        XCTAssertEqual(marker?.problem, .badFrameMarker(found: "FRAMX\\x0a" + String(repeating: "\\x07", count: 6)))
        let truncated = refusal(Array(stream(header, frames: [six, six]).dropLast(2)))
        XCTAssertEqual(truncated?.frame, 1)
        XCTAssertEqual(truncated?.problem, .truncatedFrame(needed: 6, available: 4))
        XCTAssertEqual(refusal(stream(header, frames: []))?.problem, .noFrames)
        XCTAssertEqual(refusal(stream(header, frames: [six, six, six]), maximumFrames: 2)?.problem, .tooManyFrames(limit: 2))
        XCTAssertEqual(refusal(Array("YUV4MPEG2 W2 H2 F25:1\nFRAME".utf8) + [UInt8](repeating: 0x20, count: 2000))?.problem,
                       .frameLineTooLong(limit: 1024))
    }

    /// §5 to the bit: BT.601 limited range, pinned values, the 2×2 rounded mean and the
    /// repetition of the last row and column of an odd-sized picture.
    func testBT601ConversionIsExactlyTheSpecifiedIntegers() throws {
        // white, black, red, green, blue, and a grey
        let colours: [(UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)] = [
            (255, 255, 255, 235, 128, 128), (0, 0, 0, 16, 128, 128), (255, 0, 0, 81, 90, 240),
            (0, 255, 0, 145, 54, 34), (0, 0, 255, 41, 240, 110), (128, 128, 128, 126, 128, 128),
        ]
        for (r, g, b, y, cb, cr) in colours {
            let image = try RGB8Image(width: 1, height: 1, pixels: [r, g, b])
            XCTAssertEqual(YCbCrBT601.planes(image, chroma: .c444), [y, cb, cr], "\(r) \(g) \(b)")
            XCTAssertEqual(YCbCrBT601.planes(image, chroma: .c420jpeg), [y, cb, cr], "\(r) \(g) \(b)")
        }
        // 3×1: the block of column 2 repeats column 2 (and row 0), so its chroma is that pixel's.
        let strip = try RGB8Image(width: 3, height: 1, pixels: [255, 0, 0, 0, 0, 255, 0, 0, 255])
        let p = YCbCrBT601.planes(strip, chroma: .c420jpeg)
        XCTAssertEqual(p.count, 3 + 2 + 2)
        // Block 0 = red, blue, red, blue: Cb = ((2·(−9714·255) + 2·(28784·255) + 2^17) >> 18) + 128.
        let cb0 = ((2 * -9714 * 255 + 2 * 28784 * 255 + (1 << 17)) >> 18) + 128
        let cr0 = ((2 * 28784 * 255 + 2 * -4681 * 255 + (1 << 17)) >> 18) + 128
        XCTAssertEqual(Array(p[3...]), [UInt8(cb0), 240, UInt8(cr0), 110])
        // The encoder's inverse brings the primaries back to within 1.
        let back = try YCbCrBT601.rgb(planes: YCbCrBT601.planes(strip, chroma: .c444)[...], width: 3, height: 1, chroma: .c444)
        for (a, b) in zip(back.pixels, strip.pixels) { XCTAssertLessThanOrEqual(abs(Int(a) - Int(b)), 1) }
    }
}
