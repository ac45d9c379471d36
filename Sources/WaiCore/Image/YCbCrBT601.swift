/// The exact integer BT.601 limited-range ("studio swing") conversion between RGB8 and
/// 8-bit Y'CbCr planes (docs/capabilities/video_int_hyper.md §5). The decoder's direction
/// (RGB → Y'CbCr) is part of the decoded bytes, so it is specified to the bit: coefficients
/// are BT.601's scaled by 2^16 and rounded, sums are exact in Int, `>>` is an arithmetic
/// (flooring) shift, and 4:2:0 chroma is the rounded mean of each 2×2 block.
public enum YCbCrBT601 {
    // Rows of BT.601's studio-swing matrix (65.481 128.553 24.966 / −37.797 −74.203 112 / 112 −93.786 −18.214, ÷ 255) × 2^16;
    // the Y row sums to 219/255 · 2^16, the Cb and Cr rows to exactly 0.
    static let yR = 16829, yG = 33039, yB = 6416
    static let cbR = -9714, cbG = -19070, cbB = 28784
    static let crR = 28784, crG = -24103, crB = -4681

    @inline(__always) static func luma(_ r: Int, _ g: Int, _ b: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: ((yR * r + yG * g + yB * b + 32768) >> 16) + 16)
    }

    /// The Y', Cb, Cr planes of `image` in the layout of `chroma`: one frame's Y4M bytes.
    public static func planes(_ image: RGB8Image, chroma: Y4MChroma) -> [UInt8] {
        let w = image.width, h = image.height
        let c = chroma.chromaSize(width: w, height: h)
        var out = [UInt8](repeating: 0, count: w * h + 2 * c.width * c.height)
        image.pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<(w * h) {
                    o[i] = luma(Int(p[3 * i]), Int(p[3 * i + 1]), Int(p[3 * i + 2]))
                }
                let cb = w * h, cr = cb + c.width * c.height
                for bi in 0..<c.height {
                    for bj in 0..<c.width {
                        var sb = 0, sr = 0
                        if chroma.isSubsampled {
                            // The 2×2 block; past the last row or column its samples repeat, so
                            // every block sums four.
                            let i0 = 2 * bi, i1 = min(2 * bi + 1, h - 1), j0 = 2 * bj, j1 = min(2 * bj + 1, w - 1)
                            for k in [3 * (i0 * w + j0), 3 * (i0 * w + j1), 3 * (i1 * w + j0), 3 * (i1 * w + j1)] {
                                let r = Int(p[k]), g = Int(p[k + 1]), b = Int(p[k + 2])
                                sb += cbR * r + cbG * g + cbB * b
                                sr += crR * r + crG * g + crB * b
                            }
                            o[cb + bi * c.width + bj] = UInt8(truncatingIfNeeded: ((sb + (1 << 17)) >> 18) + 128)
                            o[cr + bi * c.width + bj] = UInt8(truncatingIfNeeded: ((sr + (1 << 17)) >> 18) + 128)
                        } else {
                            let k = 3 * (bi * w + bj)
                            let r = Int(p[k]), g = Int(p[k + 1]), b = Int(p[k + 2])
                            sb = cbR * r + cbG * g + cbB * b
                            sr = crR * r + crG * g + crB * b
                            o[cb + bi * c.width + bj] = UInt8(truncatingIfNeeded: ((sb + (1 << 15)) >> 16) + 128)
                            o[cr + bi * c.width + bj] = UInt8(truncatingIfNeeded: ((sr + (1 << 15)) >> 16) + 128)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Y'CbCr planes back to RGB8 (the encoder's direction, §5): the inverse matrix × 2^16,
    /// rounded and clamped to 0…255; 4:2:0 chroma is repeated over its 2×2 block (no
    /// interpolation, whatever the siting).
    public static func rgb(planes: ArraySlice<UInt8>, width w: Int, height h: Int, chroma: Y4MChroma) throws -> RGB8Image {
        let c = chroma.chromaSize(width: w, height: h)
        guard planes.count == chroma.frameBytes(width: w, height: h) else {
            throw ImageError.sizeMismatch(source: "Y4M frame", expected: chroma.frameBytes(width: w, height: h), found: planes.count)
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        let base = planes.startIndex, cb = base + w * h, cr = cb + c.width * c.height
        let shift = chroma.isSubsampled ? 1 : 0
        for i in 0..<h {
            for j in 0..<w {
                let y = 76309 * (Int(planes[base + i * w + j]) - 16)
                let ck = (i >> shift) * c.width + (j >> shift)
                let u = Int(planes[cb + ck]) - 128, v = Int(planes[cr + ck]) - 128
                let k = 3 * (i * w + j)
                pixels[k] = UInt8(clamping: (y + 104597 * v + 32768) >> 16)
                pixels[k + 1] = UInt8(clamping: (y - 25675 * u - 53279 * v + 32768) >> 16)
                pixels[k + 2] = UInt8(clamping: (y + 132201 * u + 32768) >> 16)
            }
        }
        return try RGB8Image(width: w, height: h, pixels: pixels)
    }
}
