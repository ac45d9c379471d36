/// Whether a picture fits a model set's graphs (no tensor over 2^28 elements,
/// docs/integer-ops.md §1), checked from the picture's size alone, before its pixels are
/// decoded; a refusal states the largest picture of the same shape that fits.
public enum IntHyperSizeLimit {
    /// Throws `IntHyperPayloadError.tooLarge` naming the largest fitting size when the
    /// graphs (with the analysis side when `encoding`) cannot be instantiated at this size.
    public static func check(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool) throws {
        do {
            try instantiate(set, width: width, height: height, encoding: encoding)
        } catch let IntHyperPayloadError.tooLarge(w, h, reason) {
            let fit = largest(set, width: width, height: height, encoding: encoding)
            let hint = fit.map { "; the largest picture of this shape that this model set takes is \($0.0)×\($0.1)" } ?? ""
            throw IntHyperPayloadError.tooLarge(width: w, height: h, reason: reason + hint)
        }
    }

    static func instantiate(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool) throws {
        let inst = try IntHyperDecoder.instance(set, width: width, height: height)
        guard encoding, let analysis = set.analysis else { return }
        do {
            _ = try GraphResizing.resized(analysis.latent, height: inst.geometry.paddedHeight, width: inst.geometry.paddedWidth)
            _ = try GraphResizing.resized(analysis.hyper, height: inst.geometry.latentHeight, width: inst.geometry.latentWidth)
        } catch let e as GraphError {
            throw IntHyperPayloadError.tooLarge(width: width, height: height, reason: "\(e)")
        }
    }

    /// Bisection on the scale of the picture's shape (each step re-instantiates the graphs).
    static func largest(_ set: IntHyperModelSet, width: Int, height: Int, encoding: Bool) -> (Int, Int)? {
        func size(_ f: Double) -> (Int, Int) { (max(1, Int(Double(width) * f)), max(1, Int(Double(height) * f))) }
        func fits(_ f: Double) -> Bool {
            let (w, h) = size(f)
            return (try? instantiate(set, width: w, height: h, encoding: encoding)) != nil
        }
        var lo = 0.0, hi = 1.0
        guard fits(1.0 / Double(max(width, height))) else { return nil }
        lo = 1.0 / Double(max(width, height))
        for _ in 0..<24 {
            let mid = (lo + hi) / 2
            if fits(mid) { lo = mid } else { hi = mid }
        }
        return size(lo)
    }
}
