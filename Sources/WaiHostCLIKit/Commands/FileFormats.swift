import WaiHost

/// What a file argument holds, from its extension (docs/cli.md, "Files"): `-` is standard
/// input or output; an extension a command cannot write or read is refused at parse time,
/// naming the ones it can.
enum PictureFormat: Equatable {
    case png, rgb
    /// `-`: raw RGB8 rows (output), or PNG / raw rows with --size (input); for the commands
    /// that take sequences also Y4M (decode writes a sequence as Y4M, encode tells Y4M input
    /// from its magic).
    case standardStream
    /// YUV4MPEG2, a `wai.video.int_hyper` sequence's frames (docs/capabilities/video_int_hyper.md §7);
    /// only where `sequences` is allowed (encode and decode).
    case y4m

    static let written = ".png, .rgb or - (raw RGB8 rows on standard output)"
    static let read = ".png, .rgb (with --size) or - (standard input: PNG, or raw RGB8 rows with --size)"
    static let writtenWithSequences = written + "; a sequence: .y4m, .rgb (RGB8 frames) or - (Y4M)"
    static let readWithSequences = read + "; a sequence: .y4m, - (Y4M) or .rgb frames (with --size and --fps)"

    static func of(_ path: String, sequences: Bool = false) -> PictureFormat? {
        if path == "-" { return .standardStream }
        let lower = path.lowercased()
        if lower.hasSuffix(".png") { return .png }
        if lower.hasSuffix(".rgb") { return .rgb }
        if sequences, lower.hasSuffix(".y4m") { return .y4m }
        return nil
    }

    static func output(_ path: String, _ p: ParsedArguments, option: String = "-o",
                       sequences: Bool = false) throws(UsageError) -> PictureFormat {
        guard let f = of(path, sequences: sequences) else {
            throw p.error("\(option) \(path): cannot write \(extensionOf(path)); it writes \(sequences ? writtenWithSequences : written)")
        }
        return f
    }

    static func input(_ path: String, _ p: ParsedArguments, what: String,
                      sequences: Bool = false) throws(UsageError) -> PictureFormat {
        guard let f = of(path, sequences: sequences) else {
            throw p.error("\(what) \(path): cannot read \(extensionOf(path)); it reads \(sequences ? readWithSequences : read)")
        }
        return f
    }

    /// "'.jpg'" or "a file without an extension".
    static func extensionOf(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "a name without an extension" }
        return "'" + name[dot...] + "'"
    }
}

/// Reading and writing pictures by name, `-` included.
enum PictureIO {
    /// A picture from a file or standard input (PNG, or raw rows when `size` is given).
    /// `standardInput`: standard input already read (to tell Y4M from a picture).
    static func read(_ path: String, size: (width: Int, height: Int)?, standardInput: [UInt8]? = nil,
                     check: (_ width: Int, _ height: Int) throws -> Void) throws -> RGB8Image {
        guard path == "-" else { return try PictureFile.read(path: path, size: size, check: check) }
        if let size {
            try check(size.width, size.height)
            let bytes = try standardInput ?? LocalFile.readStandardInput(limit: size.width * size.height * 3 + 1)
            return try RawRGB.decode(bytes, width: size.width, height: size.height, source: "standard input")
        }
        let bytes = try standardInput ?? LocalFile.readStandardInput(limit: PictureFile.maximumPNGFileSize)
        guard PNGCodec.hasSignature(bytes) else { throw ImageError.notPNG(source: "standard input (raw RGB8 rows need --size WxH)") }
        let header = try PNGCodec.dimensions(bytes, source: "standard input")
        try check(header.width, header.height)
        return try PNGCodec.decode(bytes, source: "standard input")
    }

    static func write(_ image: RGB8Image, to path: String) throws {
        if path == "-" {
            try LocalFile.writeStandardOutput(image.pixels)
        } else {
            try PictureFile.write(image, path: path)
        }
    }
}

/// Bytes from a file or standard input, bounded.
enum ByteIO {
    static func read(_ path: String, limit: Int) throws -> [UInt8] {
        path == "-" ? try LocalFile.readStandardInput(limit: limit) : try LocalFile.read(path, limit: limit)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        path == "-" ? try LocalFile.writeStandardOutput(bytes) : try LocalFile.write(bytes, to: path)
    }

    /// Before the work whose result goes to `path`: LocalFile.checkWritable, unless it is `-`.
    static func checkWritable(_ path: String?) throws {
        if let path, path != "-" { try LocalFile.checkWritable(path) }
    }
}
