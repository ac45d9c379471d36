// PNG through libpng: read with its simplified API (png_image_*), whose own error handling
// longjmps inside C and returns a status; written by Sources/PNGWriter, a C function that
// catches libpng's longjmp itself. So no longjmp ever crosses a Swift frame.
//
// Only RGB8 is accepted (IHDR bit depth 8, color type 2, no tRNS): this is checked from the
// IHDR before libpng sees the file, so the error names what the file is. Colour-management
// chunks (gAMA, cHRM, iCCP, sRGB) are dropped before decoding, so libpng never converts the
// samples: the picture is exactly the bytes stored in the file.
import CPNG
import PNGWriter
#if canImport(Glibc)
import Glibc
#endif

public enum PNGCodec {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Chunks that would make libpng transform samples; ignored on purpose.
    static let colourChunks: Set<String> = ["gAMA", "cHRM", "iCCP", "sRGB"]

    /// Width and height from the IHDR (which must be the first chunk and RGB8), with the
    /// dimension and memory bounds checked: what a caller checks before the file is decoded.
    public static func dimensions(_ bytes: [UInt8], source: String) throws -> (width: Int, height: Int) {
        guard hasSignature(bytes) else { throw ImageError.notPNG(source: source) }
        let offset = signature.count
        guard bytes.count - offset >= 8 + 13 + 4 else {
            throw ImageError.malformedPNG(source: source, offset: offset, problem: "file ends inside the IHDR chunk (truncated)")
        }
        let length = Int(be32(bytes, offset))
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        guard type == "IHDR", length == 13 else {
            throw ImageError.malformedPNG(source: source, offset: offset, problem: "the first chunk is '\(type)', not IHDR")
        }
        let width = Int(be32(bytes, offset + 8)), height = Int(be32(bytes, offset + 12))
        let depth = Int(bytes[offset + 16]), colorType = Int(bytes[offset + 17])
        guard depth == 8, colorType == 2 else { throw ImageError.notRGB8(source: source, bitDepth: depth, colorType: colorType) }
        try RGB8Image.checkSize(width: width, height: height, source: source)
        return (width, height)
    }

    public static func hasSignature(_ bytes: [UInt8]) -> Bool {
        bytes.count >= signature.count && bytes.prefix(signature.count).elementsEqual(signature)
    }

    public static func decode(_ bytes: [UInt8], source: String) throws -> RGB8Image {
        guard hasSignature(bytes) else { throw ImageError.notPNG(source: source) }
        // checkedChunks copies at most the file; the pixel buffer, sized by the header, is
        // allocated only after the header's bounds hold.
        let (filtered, width, height) = try checkedChunks(bytes, source: source)
        try RGB8Image.checkSize(width: width, height: height, source: source)

        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        let began = filtered.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count)
        }
        guard began != 0 else { throw ImageError.libpng(source: source, message: message(image)) }
        guard image.format & png_uint_32(PNG_FORMAT_FLAG_ALPHA) == 0 else {
            png_image_free(&image)
            throw ImageError.hasTransparency(source: source)
        }
        image.format = png_uint_32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        // finish_read reads from the memory given to begin_read: keep it alive through both.
        let finished = filtered.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { out in
                png_image_finish_read(&image, nil, out.baseAddress, png_int_32(width * 3), nil)
            }
        }
        guard finished != 0 else {
            let text = message(image)
            png_image_free(&image)
            throw ImageError.libpng(source: source, message: text)
        }
        return try RGB8Image(width: width, height: height, pixels: pixels)
    }

    /// The PNG file of `picture` (the bytes `write` puts in a file), compressed once into a
    /// buffer that grows as libpng writes (open_memstream).
    public static func encode(_ picture: RGB8Image) throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let file = open_memstream(&buffer, &size) else {
            throw ImageError.libpng(source: "PNG encoder", message: "open_memstream: \(String(cString: strerror(errno)))")
        }
        defer { free(buffer) }
        let outcome = compress(picture, into: file)
        let flushed = fclose(file) == 0   // sets buffer and size
        if case .failure(let message) = outcome { throw ImageError.libpng(source: "PNG encoder", message: message) }
        guard flushed, let bytes = buffer else { throw ImageError.libpng(source: "PNG encoder", message: "out of memory") }
        return Array(UnsafeRawBufferPointer(start: bytes, count: size))
    }

    /// Writes the PNG file of `picture` to the open file `fd` (not closed here) as libpng
    /// compresses it: no buffer of the file's size, one compression. `path` names it in errors.
    public static func write(_ picture: RGB8Image, to fd: Int32, path: String) throws {
        let copy = dup(fd)
        guard copy >= 0, let file = fdopen(copy, "wb") else {
            if copy >= 0 { close(copy) }
            throw ImageError.libpng(source: path, message: "cannot open the file for writing: \(String(cString: strerror(errno)))")
        }
        let outcome = compress(picture, into: file)
        // errno is read before fclose can change it.
        let failure = fflush(file) == 0 && ferror(file) == 0 ? nil : String(cString: strerror(errno))
        fclose(file)
        if case .failure(let message) = outcome { throw ImageError.libpng(source: path, message: message) }
        if let failure { throw ImageError.libpng(source: path, message: "cannot write: \(failure)") }
    }

    private enum Compression { case done, failure(String) }

    /// libpng's full writer with the settings of Sources/PNGWriter (why: png_writer.h).
    private static func compress(_ picture: RGB8Image, into file: UnsafeMutablePointer<FILE>) -> Compression {
        var error = [CChar](repeating: 0, count: 256)
        let written = picture.pixels.withUnsafeBufferPointer { px in
            error.withUnsafeMutableBufferPointer { e in
                waih_png_write_rgb8(file, px.baseAddress, UInt32(picture.width), UInt32(picture.height),
                                    picture.width * 3, e.baseAddress, e.count)
            }
        }
        return written != 0 ? .done : .failure(String(cString: error))
    }

    /// Walks the chunk list: IHDR first and RGB8, lengths inside the file, up to IEND.
    /// Returns the file without colour-management chunks, and the IHDR's width and height.
    static func checkedChunks(_ bytes: [UInt8], source: String) throws -> ([UInt8], Int, Int) {
        var out = Array(bytes.prefix(signature.count))
        var offset = signature.count
        var width = 0, height = 0
        var first = true
        while true {
            guard bytes.count - offset >= 8 else {
                throw ImageError.malformedPNG(source: source, offset: offset, problem: "file ends before IEND (truncated)")
            }
            let length = Int(be32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= 0x7FFF_FFFF, bytes.count - offset - 12 >= length else {
                throw ImageError.malformedPNG(source: source, offset: offset,
                                              problem: "chunk '\(type)' of \(length) bytes runs past the end (truncated)")
            }
            let data = offset + 8
            if first {
                guard type == "IHDR", length == 13 else {
                    throw ImageError.malformedPNG(source: source, offset: offset, problem: "the first chunk is '\(type)', not IHDR")
                }
                width = Int(be32(bytes, data))
                height = Int(be32(bytes, data + 4))
                let depth = Int(bytes[data + 8]), colorType = Int(bytes[data + 9])
                guard depth == 8, colorType == 2 else {
                    throw ImageError.notRGB8(source: source, bitDepth: depth, colorType: colorType)
                }
                first = false
            } else if type == "tRNS" {
                throw ImageError.hasTransparency(source: source)
            }
            let end = data + length + 4
            if !colourChunks.contains(type) { out += bytes[offset..<end] }
            offset = end
            if type == "IEND" { return (out, width, height) }
        }
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func message(_ image: png_image) -> String {
        var m = image.message
        return withUnsafeBytes(of: &m) { raw in
            let chars = raw.prefix { $0 != 0 }
            return chars.isEmpty ? "unknown error" : String(decoding: chars, as: UTF8.self)
        }
    }
}
