/// YUV4MPEG2 (docs/capabilities/video_int_hyper.md §7): a text stream header, then per
/// frame a `FRAME` line and the planes (Y, then Cb, then Cr, rows top to bottom). Sizes in
/// the header are untrusted: every one is bounded, and a frame's planes are sliced out of
/// the input only after the input is known to hold them, so nothing is allocated from them.

/// A ratio of two non-negative 32-bit integers (Y4M's `F` and `A`).
public struct Rational: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int
    public init(_ numerator: Int, _ denominator: Int) { self.numerator = numerator; self.denominator = denominator }
    public var description: String { "\(numerator):\(denominator)" }
    public var value: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    public static let maximumTerm = Int(Int32.max)
}

/// The chroma layouts read and written (the `C` parameter).
public enum Y4MChroma: String, Sendable, Codable, CaseIterable {
    /// 4:2:0, chroma centred between the four luma samples (the default when `C` is absent).
    case c420jpeg = "420jpeg"
    /// 4:2:0, chroma co-sited with the top-left luma sample of each pair of lines, alternating (PAL DV).
    case c420paldv = "420paldv"
    /// 4:2:0, chroma horizontally co-sited with the left luma sample, vertically centred.
    case c420mpeg2 = "420mpeg2"
    /// 4:2:0, siting unspecified (ffmpeg reads it as centred).
    case c420 = "420"
    case c444 = "444"

    public var isSubsampled: Bool { self != .c444 }

    /// Width and height of each chroma plane.
    public func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        isSubsampled ? ((width + 1) / 2, (height + 1) / 2) : (width, height)
    }

    /// Bytes of one frame's planes.
    public func frameBytes(width: Int, height: Int) -> Int {
        let c = chromaSize(width: width, height: height)
        return width * height + 2 * c.width * c.height
    }
}

public struct Y4MHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var frameRate: Rational
    /// Pixel aspect ratio; 0:0 is unknown.
    public var aspect: Rational
    public var chroma: Y4MChroma

    public init(width: Int, height: Int, frameRate: Rational, aspect: Rational = Rational(0, 0), chroma: Y4MChroma) {
        self.width = width; self.height = height; self.frameRate = frameRate; self.aspect = aspect; self.chroma = chroma
    }

    public var frameBytes: Int { chroma.frameBytes(width: width, height: height) }

    /// The header line this writer emits: always progressive, parameters in this order.
    public func serialized() -> [UInt8] {
        Array("YUV4MPEG2 W\(width) H\(height) F\(frameRate) Ip A\(aspect) C\(chroma.rawValue)\n".utf8)
    }
}

public struct Y4MStream: Sendable {
    public static let magic: [UInt8] = Array("YUV4MPEG2 ".utf8)
    /// A header line longer than this is refused (real headers are under 100 bytes).
    public static let maximumHeaderLine = 1024
    public static let maximumFrameLine = 1024
    /// One frame's planes may take at most this many bytes (about 16K × 16K in 4:4:4).
    public static let maximumFrameBytes = 1 << 30

    public var header: Y4MHeader
    public var bytes: [UInt8]
    /// Where each frame's planes lie in `bytes`.
    public var frames: [Range<Int>]

    public func planes(_ frame: Int) -> ArraySlice<UInt8> { bytes[frames[frame]] }

    /// Parses a whole stream. `maximumFrames` bounds the frame count.
    public static func parse(_ bytes: [UInt8], source: String, maximumFrames: Int) throws -> Y4MStream {
        var offset = 0
        let header = try parseHeader(bytes, source: source, offset: &offset)
        let size = header.frameBytes
        var frames: [Range<Int>] = []
        while offset < bytes.count {
            let n = frames.count
            guard n < maximumFrames else { throw Y4MError(source: source, offset: offset, frame: n, problem: .tooManyFrames(limit: maximumFrames)) }
            try skipFrameLine(bytes, source: source, frame: n, offset: &offset)
            guard bytes.count - offset >= size else {
                throw Y4MError(source: source, offset: offset, frame: n,
                               problem: .truncatedFrame(needed: size, available: bytes.count - offset))
            }
            frames.append(offset..<(offset + size))
            offset += size
        }
        guard !frames.isEmpty else { throw Y4MError(source: source, offset: offset, problem: .noFrames) }
        return Y4MStream(header: header, bytes: bytes, frames: frames)
    }

    static func parseHeader(_ bytes: [UInt8], source: String, offset: inout Int) throws -> Y4MHeader {
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
            throw Y4MError(source: source, offset: 0, problem: .notY4M)
        }
        let limit = min(bytes.count, maximumHeaderLine)
        guard let end = bytes[0..<limit].firstIndex(of: 0x0A) else {
            throw Y4MError(source: source, offset: 0, problem: .headerTooLong(limit: maximumHeaderLine))
        }
        var width: Int?, height: Int?, rate: Rational?, aspect: Rational?, chroma: Y4MChroma?, interlace: Bool = false
        var position = magic.count
        for token in bytes[magic.count..<end].split(separator: 0x20, omittingEmptySubsequences: false) {
            let at = position
            position += token.count + 1
            guard let tag = token.first else {
                throw Y4MError(source: source, offset: at, problem: .unknownParameter("(empty: two spaces in a row)"))
            }
            let value = String(decoding: token.dropFirst(), as: UTF8.self)
            let name = String(UnicodeScalar(tag))
            func fail(_ expected: String) -> Y4MError {
                Y4MError(source: source, offset: at, problem: .invalidValue(parameter: name, value: value, expected: expected))
            }
            func once<T>(_ slot: T?) throws {
                if slot != nil { throw Y4MError(source: source, offset: at, problem: .duplicateParameter(name)) }
            }
            switch tag {
            case UInt8(ascii: "W"), UInt8(ascii: "H"):
                guard let v = decimal(token.dropFirst()), (1...RGB8Image.maximumDimension).contains(v) else {
                    throw fail("an integer in 1…\(RGB8Image.maximumDimension)")
                }
                if tag == UInt8(ascii: "W") { try once(width); width = v } else { try once(height); height = v }
            case UInt8(ascii: "F"):
                try once(rate)
                guard let r = ratio(token.dropFirst()), r.numerator >= 1, r.denominator >= 1 else {
                    throw fail("N:D with N and D in 1…\(Rational.maximumTerm)")
                }
                rate = r
            case UInt8(ascii: "A"):
                try once(aspect)
                guard let r = ratio(token.dropFirst()), (r.numerator == 0) == (r.denominator == 0) else {
                    throw fail("N:D with N and D in 1…\(Rational.maximumTerm), or 0:0 (unknown)")
                }
                aspect = r
            case UInt8(ascii: "I"):
                if interlace { throw Y4MError(source: source, offset: at, problem: .duplicateParameter(name)) }
                interlace = true
                guard value == "p" || value == "?" else {
                    if ["t", "b", "m"].contains(value) { throw Y4MError(source: source, offset: at, problem: .interlaced(value)) }
                    throw fail("p, ?, t, b or m")
                }
            case UInt8(ascii: "C"):
                try once(chroma)
                guard let c = Y4MChroma(rawValue: value) else {
                    throw Y4MError(source: source, offset: at, problem: .unsupportedChroma(value))
                }
                chroma = c
            case UInt8(ascii: "X"):
                continue   // extensions (XYSCSS, XCOLORRANGE, …) carry nothing this reader uses
            default:
                throw Y4MError(source: source, offset: at, problem: .unknownParameter(printable(token)))
            }
        }
        offset = end + 1
        guard let width else { throw Y4MError(source: source, offset: end, problem: .missingParameter("W (width)")) }
        guard let height else { throw Y4MError(source: source, offset: end, problem: .missingParameter("H (height)")) }
        guard let rate else { throw Y4MError(source: source, offset: end, problem: .missingParameter("F (frame rate)")) }
        let header = Y4MHeader(width: width, height: height, frameRate: rate, aspect: aspect ?? Rational(0, 0),
                               chroma: chroma ?? .c420jpeg)
        guard header.frameBytes <= maximumFrameBytes else {
            throw Y4MError(source: source, offset: 0, problem: .frameTooLarge(width: width, height: height,
                                                                            bytes: header.frameBytes, limit: maximumFrameBytes))
        }
        return header
    }

    /// `FRAME`, optional parameters (ignored), end of line.
    static func skipFrameLine(_ bytes: [UInt8], source: String, frame: Int, offset: inout Int) throws {
        let marker = Array("FRAME".utf8)
        let limit = min(bytes.count, offset + maximumFrameLine)
        let window = bytes[offset..<limit]
        guard window.count > marker.count, window.prefix(marker.count).elementsEqual(marker),
              window[offset + marker.count] == 0x0A || window[offset + marker.count] == 0x20 else {
            throw Y4MError(source: source, offset: offset, frame: frame,
                           problem: .badFrameMarker(found: printable(window.prefix(12))))
        }
        guard let end = window.firstIndex(of: 0x0A) else {
            throw Y4MError(source: source, offset: offset, frame: frame, problem: .frameLineTooLong(limit: maximumFrameLine))
        }
        offset = end + 1
    }

    /// Digits only, at most 10 of them, at most Int32.max.
    static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard (1...10).contains(digits.count) else { return nil }
        var v = 0
        for d in digits {
            guard d >= 0x30, d <= 0x39 else { return nil }
            v = v * 10 + Int(d - 0x30)
        }
        return v <= Rational.maximumTerm ? v : nil
    }

    static func ratio(_ text: ArraySlice<UInt8>) -> Rational? {
        let parts = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 2, let n = decimal(parts[0]), let d = decimal(parts[1]) else { return nil }
        return Rational(n, d)
    }

    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { (0x20...0x7E).contains($0) ? String(UnicodeScalar($0)) : "\\x" + ($0 < 16 ? "0" : "") + String($0, radix: 16) }
            .joined()
    }
}

/// Writes a stream: the header once, then `FRAME\n` and the planes per frame.
public enum Y4MWriter {
    public static let frameLine: [UInt8] = Array("FRAME\n".utf8)

    public static func frame(_ planes: [UInt8], header: Y4MHeader) throws -> [UInt8] {
        guard planes.count == header.frameBytes else {
            throw Y4MError(source: "Y4M writer", offset: 0, problem: .frameSizeMismatch(expected: header.frameBytes, found: planes.count))
        }
        return frameLine + planes
    }
}
