/// Whether a picture fits the memory bound (docs/capabilities/int_hyper.md §3.1), checked
/// from its size alone — a payload's or a PNG's header — before anything sized by it is
/// allocated; a refusal states the largest picture of the same shape that fits.
public enum IntHyperSizeLimit {
    /// The host's memory bound (`MemoryBound`: 1 GiB unless `WAIHOST_MEMORY_LIMIT_MIB` says otherwise).
    public static var memoryBound: Int { MemoryBound.bytes }

    /// What a decode (or an encode) holds for the whole picture, besides one tile's graph:
    /// the RGB8 rows, y and its scale indices (int32), z, and for encoding the rANS output
    /// (at most about 2 bytes a y value for the rates these sets give; counted as 2).
    public static func wholePictureBytes(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool) -> Int {
        let g = IntHyperGeometry(width: width, height: height)
        let y = set.latentChannels * g.latentHeight * g.latentWidth
        let z = set.hyperChannels * g.hyperHeight * g.hyperWidth
        return width * height * 3 + 2 * y * 4 + z * 4 + (encoding ? 2 * (y + z) : 0)
    }

    /// One tile's graph: the budget, or less when the largest graph fits whole.
    public static func tileBytes(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool,
                                 budget: TileBudget = .standard) -> Int {
        let g = IntHyperGeometry(width: width, height: height)
        var graphs: [(IntegerGraph, Extent)] = [
            (set.hyperSynthesis, Extent(height: g.hyperHeight, width: g.hyperWidth)),
            (set.synthesis, Extent(height: g.latentHeight, width: g.latentWidth)),
        ]
        if encoding, let a = set.analysis {
            graphs += [(a.latent, Extent(height: g.paddedHeight, width: g.paddedWidth)),
                       (a.hyper, Extent(height: g.latentHeight, width: g.latentWidth))]
        }
        var whole = 0
        for (graph, input) in graphs {
            guard let t = try? TiledGraph(graph, input: input), let one = try? t.tile(Window(rows: 0..<t.region.height, cols: 0..<t.region.width)) else {
                return budget.bytes
            }
            whole = max(whole, one.elements * 4)
        }
        return min(budget.bytes, whole)
    }

    public static func estimatedBytes(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool,
                                      budget: TileBudget = .standard) -> Int {
        wholePictureBytes(set, width: width, height: height, encoding: encoding)
            + tileBytes(set, width: width, height: height, encoding: encoding, budget: budget)
    }

    /// Throws `IntHyperPayloadError.tooLarge` naming the bound, the estimate and the largest
    /// fitting size when the picture needs more than `bound`.
    public static func check(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool,
                             budget: TileBudget = .standard, bound: Int = memoryBound) throws {
        guard (1...RGB8Image.maximumDimension).contains(width), (1...RGB8Image.maximumDimension).contains(height) else {
            throw IntHyperPayloadError.tooLarge(width: width, height: height,
                                                reason: "width and height must be 1…\(RGB8Image.maximumDimension)")
        }
        let need = estimatedBytes(set, width: width, height: height, encoding: encoding, budget: budget)
        guard need > bound else { return }
        let (w, h) = largest(set, width: width, height: height, encoding: encoding, budget: budget, bound: bound)
        throw IntHyperPayloadError.tooLarge(
            width: width, height: height,
            reason: "\(encoding ? "encoding" : "decoding") it needs about \(need >> 20) MiB "
                + "(\(wholePictureBytes(set, width: width, height: height, encoding: encoding) >> 20) MiB for the whole picture's "
                + "rows and latents, \(tileBytes(set, width: width, height: height, encoding: encoding, budget: budget) >> 20) MiB for one tile's graph), more than the memory bound of "
                + "\(bound >> 20) MiB (WAIHOST_MEMORY_LIMIT_MIB raises it); the largest picture of this shape that fits is \(w)×\(h)")
    }

    /// Bisection on the scale of the picture's shape.
    static func largest(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool, budget: TileBudget,
                        bound: Int) -> (Int, Int) {
        func size(_ f: Double) -> (Int, Int) { (max(1, Int(Double(width) * f)), max(1, Int(Double(height) * f))) }
        func fits(_ f: Double) -> Bool {
            let (w, h) = size(f)
            return estimatedBytes(set, width: w, height: h, encoding: encoding, budget: budget) <= bound
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<40 {
            let mid = (lo + hi) / 2
            if fits(mid) { lo = mid } else { hi = mid }
        }
        return size(lo)
    }
}
