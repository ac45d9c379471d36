/// Reading and writing pictures by file name: `.png` through libpng, `.rgb` raw rows.
public enum PictureFile {
    public static let maximumPNGFileSize = 1 << 30

    /// `size` is needed (and only used) for `.rgb`.
    public static func read(path: String, size: (width: Int, height: Int)? = nil) throws -> RGB8Image {
        if path.lowercased().hasSuffix(".rgb") {
            guard let size else {
                throw ImageError.unknownFormat(source: path + " (a .rgb file needs --size WxH)")
            }
            return try RawRGB.read(path: path, width: size.width, height: size.height)
        }
        let bytes = try LocalFile.read(path, limit: maximumPNGFileSize)
        guard PNGCodec.hasSignature(bytes) else {
            throw path.lowercased().hasSuffix(".png") ? ImageError.notPNG(source: path) : ImageError.unknownFormat(source: path)
        }
        return try PNGCodec.decode(bytes, source: path)
    }

    /// `.rgb` → raw rows; anything else → PNG.
    public static func write(_ image: RGB8Image, path: String) throws {
        if path.lowercased().hasSuffix(".rgb") {
            try LocalFile.write(image.pixels, to: path)
        } else {
            try LocalFile.write(try PNGCodec.encode(image), to: path)
        }
    }
}
