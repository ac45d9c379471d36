/// A deterministic test picture of any size: colour gradients with a disc, a rectangle, a
/// ring and a band of diagonal stripes — smooth areas, hard edges and fine detail — in
/// integer arithmetic only, so it is the same bytes everywhere. The bundled sample, the
/// benchmark picture and the generator's calibration all use it.
public enum SamplePicture {
    public static func make(width: Int, height: Int) throws -> RGB8Image {
        try RGB8Image.checkSize(width: width, height: height, source: "sample picture")
        let w1 = max(width - 1, 1), h1 = max(height - 1, 1)
        let short = min(width, height)
        let disc = (x: width * 3 / 10, y: height * 45 / 100, r: short * 22 / 100)
        let ring = (x: width * 7 / 10, y: height * 72 / 100, inner: short * 11 / 100, outer: short * 17 / 100)
        let stripe = max(2, short / 24)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var rgb = (x * 255 / w1, y * 255 / h1, 255 - (x + y) * 255 / (w1 + h1))
                let dx = x - disc.x, dy = y - disc.y
                if dx * dx + dy * dy <= disc.r * disc.r { rgb = (230, 200, 40) }
                if x >= width * 55 / 100, x < width * 85 / 100, y >= height * 15 / 100, y < height * 45 / 100 {
                    rgb = (30, 60, 170)
                }
                let rx = x - ring.x, ry = y - ring.y, d2 = rx * rx + ry * ry
                if d2 >= ring.inner * ring.inner, d2 <= ring.outer * ring.outer { rgb = (200, 30, 40) }
                if y >= height * 80 / 100, x < width * 45 / 100 {
                    rgb = ((x + y) / stripe) % 2 == 0 ? (245, 245, 245) : (20, 20, 20)
                }
                let k = (y * width + x) * 3
                pixels[k] = UInt8(rgb.0); pixels[k + 1] = UInt8(rgb.1); pixels[k + 2] = UInt8(rgb.2)
            }
        }
        return try RGB8Image(width: width, height: height, pixels: pixels)
    }
}
