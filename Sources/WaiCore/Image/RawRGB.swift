/// Raw RGB8 rows (`.rgb`, `-o -`): no header, so the size comes from elsewhere.
public enum RawRGB {
    public static func decode(_ bytes: [UInt8], width: Int, height: Int, source: String) throws -> RGB8Image {
        guard (1...RGB8Image.maximumDimension).contains(width), (1...RGB8Image.maximumDimension).contains(height) else {
            throw ImageError.invalidDimensions(source: source, width: width, height: height)
        }
        guard bytes.count == width * height * 3 else {
            throw ImageError.sizeMismatch(source: source, expected: width * height * 3, found: bytes.count)
        }
        return try RGB8Image(width: width, height: height, pixels: bytes)
    }

    public static func read(path: String, width: Int, height: Int) throws -> RGB8Image {
        try decode(try LocalFile.read(path, limit: 3 * RGB8Image.maximumDimension * RGB8Image.maximumDimension),
                   width: width, height: height, source: path)
    }
}
