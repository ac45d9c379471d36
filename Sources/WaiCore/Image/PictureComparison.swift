#if canImport(Glibc)
import Glibc
#endif

/// A decoded picture against its original: PSNR over the R, G and B samples together
/// (10·log10(255² / MSE), dB) and the bits per pixel the coded input took.
public struct PictureComparison: Codable, Sendable, Equatable {
    public var original: String
    public var meanSquaredError: Double
    /// nil when the pictures are identical (PSNR is infinite).
    public var psnrDB: Double?
    public var bitsPerPixel: Double

    enum CodingKeys: String, CodingKey {
        case original, meanSquaredError = "mse", psnrDB = "psnr_db", bitsPerPixel = "bits_per_pixel"
    }

    public init(decoded: RGB8Image, original: RGB8Image, originalName: String, codedBytes: Int) throws {
        guard decoded.width == original.width, decoded.height == original.height else {
            throw ImageError.sizeMismatch(source: originalName + " (--compare: it is \(original.width)×\(original.height), "
                + "the decoded picture \(decoded.width)×\(decoded.height))",
                expected: decoded.pixels.count, found: original.pixels.count)
        }
        var sum: UInt64 = 0
        for (a, b) in zip(decoded.pixels, original.pixels) {
            let d = Int(a) - Int(b)
            sum += UInt64(d * d)
        }
        let mse = Double(sum) / Double(decoded.pixels.count)
        self.original = originalName
        meanSquaredError = mse
        psnrDB = mse == 0 ? nil : 10 * log10(255 * 255 / mse)
        bitsPerPixel = Double(codedBytes * 8) / Double(decoded.width * decoded.height)
    }
}
