/// Reading and writing pictures by file name: `.png` through libpng, `.rgb` raw rows.
public enum PictureFile {
    public static let maximumPNGFileSize = 1 << 30

    /// `size` is needed (and only used) for `.rgb`. `check` sees the picture's size before
    /// its pixels are decoded (a PNG's from its header), so a caller's own size limit refuses
    /// a picture before anything sized by it is allocated.
    public static func read(path: String, size: (width: Int, height: Int)? = nil,
                            check: (_ width: Int, _ height: Int) throws -> Void = { _, _ in }) throws -> RGB8Image {
        if path.lowercased().hasSuffix(".rgb") {
            guard let size else {
                throw ImageError.unknownFormat(source: path + " (a .rgb file needs --size WxH)")
            }
            try check(size.width, size.height)
            return try RawRGB.read(path: path, width: size.width, height: size.height)
        }
        let bytes = try LocalFile.read(path, limit: maximumPNGFileSize)
        guard PNGCodec.hasSignature(bytes) else {
            throw path.lowercased().hasSuffix(".png") ? ImageError.notPNG(source: path) : ImageError.unknownFormat(source: path)
        }
        let header = try PNGCodec.dimensions(bytes, source: path)
        try check(header.width, header.height)
        return try PNGCodec.decode(bytes, source: path)
    }

    /// `.rgb` → raw rows; anything else → PNG.
    public static func write(_ image: RGB8Image, path: String) throws {
        if path.lowercased().hasSuffix(".rgb") {
            try LocalFile.write(image.pixels, to: path)
        } else {
            try LocalFile.write(to: path) { fd in try PNGCodec.write(image, to: fd, path: path) }
        }
    }
}
