import CPNG
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Pictures in and out: PNG through libpng, RGB8 only, exact samples (no colour
/// management), clear errors for everything else.
final class IntHyperPNGTests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    /// A picture holding every byte value in every channel.
    func everyValue() throws -> RGB8Image {
        var px: [UInt8] = []
        for y in 0..<3 { for x in 0..<256 { px += [UInt8(x), UInt8(255 - x), UInt8((x * 7 + y * 91) & 255)] } }
        return try RGB8Image(width: 256, height: 3, pixels: px)
    }

    func testPNGRoundTripIsExact() throws {
        let picture = try everyValue()
        let png = try PNGCodec.encode(picture)
        XCTAssertTrue(PNGCodec.hasSignature(png))
        XCTAssertEqual(try PNGCodec.decode(png, source: "t.png"), picture)
        let dir = try IntHyperTestSupport.temporaryDirectory("png")
        try PictureFile.write(picture, path: dir + "/a.png")
        XCTAssertEqual(try PictureFile.read(path: dir + "/a.png"), picture)
        // The file is streamed from libpng as it compresses; the bytes are encode()'s.
        XCTAssertEqual(try IntHyperTestSupport.read(dir + "/a.png"), png)
        // A file that cannot be written is an error naming it, and nothing is left behind.
        XCTAssertThrowsError(try PictureFile.write(picture, path: dir + "/missing/b.png")) { e in
            XCTAssertTrue("\(e)".contains(dir + "/missing/b.png"), "\(e)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/missing"))
        let full = open("/dev/full", O_WRONLY)   // every write fails with ENOSPC
        if full >= 0 {
            defer { close(full) }
            XCTAssertThrowsError(try PNGCodec.write(picture, to: full, path: "/dev/full")) { e in
                XCTAssertTrue("\(e)".contains("/dev/full"), "\(e)")
            }
        }
        try PictureFile.write(picture, path: dir + "/a.rgb")
        XCTAssertEqual(try IntHyperTestSupport.read(dir + "/a.rgb"), picture.pixels)
        XCTAssertEqual(try PictureFile.read(path: dir + "/a.rgb", size: (256, 3)), picture)
    }

    /// libpng's own failures while writing (its error handler longjmps inside
    /// Sources/PNGWriter) come back as errors naming the file, and the writer is whole for
    /// the next picture. An incompressible picture's first IDAT overflows stdio's buffer, so
    /// the write to /dev/full fails inside libpng ("Write Error"), not at the final flush.
    func testAWriteFailingInsideLibpngIsAnErrorNamingTheFile() throws {
        var random = SplitMix64(seed: 15)
        let noise = try RGB8Image(width: 512, height: 512, pixels: (0..<(512 * 512 * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let full = open("/dev/full", O_WRONLY)   // every write fails with ENOSPC
        guard full >= 0 else { throw XCTSkip("no /dev/full") }
        defer { close(full) }
        XCTAssertThrowsError(try PNGCodec.write(noise, to: full, path: "/dev/full")) { e in
            guard case ImageError.libpng(let source, let message) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(source, "/dev/full")
            XCTAssertEqual(message, "Write Error")
        }
        XCTAssertEqual(try PNGCodec.decode(try PNGCodec.encode(noise), source: "again.png"), noise)
    }

    /// A gAMA chunk (without sRGB) makes libpng convert the samples to sRGB; colour chunks
    /// are ignored, so the picture is the stored bytes.
    func testColourChunksDoNotChangeTheSamples() throws {
        let picture = try everyValue()
        let png = try PNGCodec.encode(picture)
        let plain = removing("sRGB", from: png)
        XCTAssertNotEqual(plain.count, png.count, "the encoder writes an sRGB chunk")
        let withGamma = insertAfterIHDR(plain, chunk("gAMA", [0x00, 0x00, 0x27, 0x10]))   // 10000 = gamma 0.1
        XCTAssertEqual(try PNGCodec.decode(withGamma, source: "gamma.png").sha256, picture.sha256)
    }

    func testNonRGB8IsRefusedWithWhatItIs() throws {
        let cases: [(format: UInt32, bytesPerPixel: Int, depth: Int, type: Int, name: String)] = [
            (0, 1, 8, 0, "grayscale"),
            (UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA), 4, 8, 6, "RGBA"),
            (UInt32(PNG_FORMAT_FLAG_ALPHA), 2, 8, 4, "grayscale with alpha"),
            (UInt32(PNG_FORMAT_FLAG_LINEAR | PNG_FORMAT_FLAG_COLOR), 6, 16, 2, "RGB"),
        ]
        for c in cases {
            let png = try write(format: c.format, width: 4, height: 2, bytes: Array(repeating: 77, count: 8 * c.bytesPerPixel))
            XCTAssertThrowsError(try PNGCodec.decode(png, source: "x.png"), c.name) { e in
                XCTAssertEqual(e as? ImageError, .notRGB8(source: "x.png", bitDepth: c.depth, colorType: c.type), c.name)
                XCTAssertTrue("\(e)".contains(c.name) && "\(e)".contains("only RGB8"), "\(e)")
            }
        }
        // A palette PNG: the simplified writer makes one from a colour map.
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = 2; image.height = 2
        image.format = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_COLORMAP)
        image.colormap_entries = 2
        let indices: [UInt8] = [0, 1, 1, 0], map: [UInt8] = [0, 0, 0, 255, 255, 255]
        var size: png_alloc_size_t = 0
        _ = png_image_write_to_memory(&image, nil, &size, 0, indices, 2, map)
        var out = [UInt8](repeating: 0, count: Int(size))
        XCTAssertNotEqual(png_image_write_to_memory(&image, &out, &size, 0, indices, 2, map), 0)
        XCTAssertThrowsError(try PNGCodec.decode(Array(out.prefix(Int(size))), source: "p.png")) { e in
            guard case .notRGB8(_, _, 3)? = e as? ImageError else { return XCTFail("\(e)") }
        }
    }

    func testTransparencyIsRefused() throws {
        let png = try PNGCodec.encode(try everyValue())
        let withTRNS = insertAfterIHDR(png, chunk("tRNS", [0, 1, 0, 2, 0, 3]))
        XCTAssertThrowsError(try PNGCodec.decode(withTRNS, source: "t.png")) { e in
            XCTAssertEqual(e as? ImageError, .hasTransparency(source: "t.png"))
        }
    }

    /// Every prefix and a corrupted data chunk give an error, never a crash.
    func testTruncatedAndCorruptPNGs() throws {
        let png = try PNGCodec.encode(try SamplePicture.make(width: 20, height: 10))
        for n in 0..<png.count {
            XCTAssertThrowsError(try PNGCodec.decode(Array(png.prefix(n)), source: "cut.png"), "prefix \(n)") { e in
                XCTAssertTrue(e is ImageError, "\(e)")
            }
        }
        var corrupt = png
        let idat = try XCTUnwrap(find(Array("IDAT".utf8), in: png))
        corrupt[idat + 6] ^= 0x55
        XCTAssertThrowsError(try PNGCodec.decode(corrupt, source: "bad.png")) { e in
            guard case .libpng("bad.png", let message)? = e as? ImageError else { return XCTFail("\(e)") }
            XCTAssertFalse(message.isEmpty)
        }
        XCTAssertThrowsError(try PNGCodec.decode(Array("GIF89a....".utf8), source: "g.png")) { e in
            XCTAssertEqual(e as? ImageError, .notPNG(source: "g.png"))
        }
    }

    /// A tiny PNG whose IHDR declares `width × height` RGB8 (one stored block of zeros as IDAT).
    private func declaring(width: Int, height: Int) -> [UInt8] {
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        return PNGCodec.signature + chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x01, 0x01, 0x04, 0x00, 0xFB, 0xFF, 0, 0, 0, 0, 0x00, 0x04, 0x00, 0x01]) + chunk("IEND", [])
    }

    /// The peak resident set of this process so far (VmHWM), in bytes.
    private func peakRSS() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return try XCTUnwrap(fields.count > 1 ? Int(fields[1]) : nil) * 1024
    }

    /// docs/capabilities/int_hyper.md §3.1: a header past the memory bound is refused from the
    /// header, naming the size that fits, and nothing sized by it is allocated (the peak
    /// resident set grows by far less than the 2.7 GB the rows would take).
    func testHeadersPastTheMemoryBoundAreRefusedBeforeAnyLargeAllocation() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("huge")
        let path = dir + "/huge.png"
        try IntHyperTestSupport.write(declaring(width: 30000, height: 30000), path)
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/models/q2", needsAnalysis: true)
        let before = try peakRSS()
        XCTAssertThrowsError(try PictureFile.read(path: path)) { e in
            guard case .tooLarge(path, 30000, 30000, MemoryBound.bytes, let w, let h)? = e as? ImageError else { return XCTFail("\(e)") }
            XCTAssertLessThanOrEqual(w * h * 3, MemoryBound.bytes)
            XCTAssertTrue("\(e)".contains("30000×30000") && "\(e)".contains("\(w)×\(h)"), "\(e)")
        }
        XCTAssertThrowsError(try PNGCodec.decode(declaring(width: 30000, height: 30000), source: "h.png")) { e in
            guard case .tooLarge? = e as? ImageError else { return XCTFail("\(e)") }
        }
        // Rows inside the PNG bound, but the encode (rows, latents, one tile's graph) is not.
        let (w, h) = (14000, 14000)
        XCTAssertLessThanOrEqual(w * h * 3, MemoryBound.bytes)
        XCTAssertGreaterThan(IntHyperSizeLimit.estimatedBytes(set, width: w, height: h, encoding: true), MemoryBound.bytes)
        try IntHyperTestSupport.write(declaring(width: w, height: h), dir + "/big.png")
        XCTAssertThrowsError(try PictureFile.read(path: dir + "/big.png") { w, h in
            try IntHyperSizeLimit.check(set, width: w, height: h, encoding: true)
        }) { e in
            guard case .tooLarge(14000, 14000, let reason)? = e as? IntHyperPayloadError else { return XCTFail("\(e)") }
            XCTAssertTrue(reason.contains("memory bound of 1024 MiB") && reason.contains("largest picture"), reason)
        }
        XCTAssertLessThan(try peakRSS() - before, 64 << 20, "the refusals allocated what the headers declare")
    }

    func testRawRGBNeedsTheRightSize() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("raw")
        try IntHyperTestSupport.write(Array(repeating: 1, count: 12), dir + "/x.rgb")
        XCTAssertEqual(try PictureFile.read(path: dir + "/x.rgb", size: (2, 2)).pixels, Array(repeating: 1, count: 12))
        XCTAssertThrowsError(try PictureFile.read(path: dir + "/x.rgb", size: (3, 2))) { e in
            XCTAssertEqual(e as? ImageError, .sizeMismatch(source: dir + "/x.rgb", expected: 18, found: 12))
        }
        XCTAssertThrowsError(try PictureFile.read(path: dir + "/x.rgb")) { e in
            XCTAssertTrue("\(e)".contains("--size"), "\(e)")
        }
        XCTAssertThrowsError(try PictureFile.read(path: dir + "/missing.png")) { e in
            XCTAssertTrue("\(e)".contains("missing.png"), "\(e)")
        }
    }

    // MARK: helpers

    private func write(format: UInt32, width: Int, height: Int, bytes: [UInt8]) throws -> [UInt8] {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width); image.height = png_uint_32(height)
        image.format = format
        var size: png_alloc_size_t = 0
        XCTAssertNotEqual(png_image_write_to_memory(&image, nil, &size, 0, bytes, 0, nil), 0)
        var out = [UInt8](repeating: 0, count: Int(size))
        XCTAssertNotEqual(png_image_write_to_memory(&image, &out, &size, 0, bytes, 0, nil), 0)
        return Array(out.prefix(Int(size)))
    }

    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let n = UInt32(data.count), crc = crc32(body)
        return [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + body
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 255), UInt8(crc >> 8 & 255), UInt8(crc & 255)]
    }

    /// Signature (8) + IHDR (4 + 4 + 13 + 4).
    private func insertAfterIHDR(_ png: [UInt8], _ chunk: [UInt8]) -> [UInt8] {
        Array(png.prefix(33)) + chunk + Array(png.dropFirst(33))
    }

    /// The PNG without chunks of that type.
    private func removing(_ type: String, from png: [UInt8]) -> [UInt8] {
        var out = Array(png.prefix(8)), o = 8
        while o + 8 <= png.count {
            let n = Int(png[o]) << 24 | Int(png[o + 1]) << 16 | Int(png[o + 2]) << 8 | Int(png[o + 3])
            if String(decoding: png[(o + 4)..<(o + 8)], as: UTF8.self) != type { out += png[o..<(o + 12 + n)] }
            o += 12 + n
        }
        return out
    }

    private func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    private func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        return (0...(hay.count - needle.count)).first { hay[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
