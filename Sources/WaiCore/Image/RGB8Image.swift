/// A picture as 8-bit RGB rows: `pixels[(y·width + x)·3 + k]`, k = 0 red, 1 green, 2 blue,
/// rows top to bottom, no padding. The only pixel format the capabilities read and write.
public struct RGB8Image: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    /// Largest width or height accepted anywhere (PNG allows 2^31 − 1; nothing here needs that).
    public static let maximumDimension = 65535

    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        guard (1...Self.maximumDimension).contains(width), (1...Self.maximumDimension).contains(height) else {
            throw ImageError.invalidDimensions(source: "image", width: width, height: height)
        }
        guard pixels.count == width * height * 3 else {
            throw ImageError.sizeMismatch(source: "image", expected: width * height * 3, found: pixels.count)
        }
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// SHA-256 of the RGB8 rows: the identity of a decoded picture in reports and golden vectors.
    public var sha256: String { SHA256.hex(pixels) }

    /// Checked before anything sized by `width` and `height` is allocated (a PNG header, a
    /// picture to make): each dimension in 1…`maximumDimension`, and the RGB8 rows within the
    /// host's memory bound (`MemoryBound`). The PNG reader checks a header with it.
    public static func checkSize(width: Int, height: Int, source: String) throws {
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            throw ImageError.invalidDimensions(source: source, width: width, height: height)
        }
        let bound = MemoryBound.bytes
        guard width * height * 3 <= bound else {
            let (lw, lh) = largestFitting(width: width, height: height, bound: bound)
            throw ImageError.tooLarge(source: source, width: width, height: height, boundBytes: bound,
                                      largestWidth: lw, largestHeight: lh)
        }
    }

    /// The largest width × height of the same aspect ratio whose RGB8 rows fit `bound` bytes.
    public static func largestFitting(width: Int, height: Int, bound: Int = MemoryBound.bytes) -> (Int, Int) {
        let pixels = Double(bound / 3)
        let aspect = Double(width) / Double(height)
        var w = min(maximumDimension, Int((pixels * aspect).squareRoot()))
        var h = min(maximumDimension, max(1, Int(Double(w) / aspect)))
        while w * h * 3 > bound { if w >= h { w -= 1 } else { h -= 1 } }
        w = max(1, w); h = max(1, h)
        return (w, h)
    }
}

public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidDimensions(source: String, width: Int, height: Int)
    case sizeMismatch(source: String, expected: Int, found: Int)
    case notPNG(source: String)
    case malformedPNG(source: String, offset: Int, problem: String)
    /// A PNG that is not 8-bit RGB: names what it is instead.
    case notRGB8(source: String, bitDepth: Int, colorType: Int)
    case hasTransparency(source: String)
    case libpng(source: String, message: String)
    case unknownFormat(source: String)
    /// A picture (a PNG's header, one to make) of more pixels than the memory bound allows.
    case tooLarge(source: String, width: Int, height: Int, boundBytes: Int, largestWidth: Int, largestHeight: Int)

    public var description: String {
        switch self {
        case let .invalidDimensions(source, w, h):
            return "\(source): dimensions \(w)×\(h) are outside 1…\(RGB8Image.maximumDimension)"
        case let .sizeMismatch(source, expected, found):
            return "\(source): \(found) bytes of RGB8 rows, \(expected) expected (width·height·3)"
        case let .notPNG(source):
            return "\(source): not a PNG file (the 8-byte PNG signature is missing)"
        case let .malformedPNG(source, offset, problem):
            return "\(source): malformed PNG at byte \(offset): \(problem)"
        case let .notRGB8(source, depth, type):
            return "\(source): PNG is \(Self.colorTypeName(type)), bit depth \(depth); only RGB8 "
                + "(color type 2, bit depth 8) is accepted — convert it first, e.g. `ffmpeg -i IN -pix_fmt rgb24 OUT.png`"
        case let .hasTransparency(source):
            return "\(source): PNG is RGB8 but has a transparency (tRNS) chunk; only opaque RGB8 is accepted"
        case let .libpng(source, message):
            return "\(source): libpng: \(message)"
        case let .unknownFormat(source):
            return "\(source): unknown picture format: use a .png file, or a .rgb file (raw RGB8 rows) with --size WxH"
        case let .tooLarge(source, w, h, bound, lw, lh):
            return "\(source): \(w)×\(h) is \(w * h * 3) bytes of RGB8 rows, more than the "
                + "\(bound >> 20) MiB a picture may take (WAIHOST_MEMORY_LIMIT_MIB raises it); the largest picture of "
                + "this shape that fits is \(lw)×\(lh) (at most \(bound / 3) pixels)"
        }
    }

    static func colorTypeName(_ t: Int) -> String {
        switch t {
        case 0: return "grayscale (color type 0)"
        case 2: return "RGB (color type 2)"
        case 3: return "palette (color type 3)"
        case 4: return "grayscale with alpha (color type 4)"
        case 6: return "RGBA (color type 6)"
        default: return "color type \(t)"
        }
    }
}
