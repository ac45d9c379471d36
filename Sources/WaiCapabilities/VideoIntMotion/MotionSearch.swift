/// The encoder's block motion search (docs/capabilities/video_int_motion.md §7.1), for model
/// sets whose manifest names the y_m channels that carry the flow's dx and dy: for every
/// latent position, the integer displacement whose 16×16 block of the reference best matches
/// the current frame's, written into those channels. Encoder-only: a decoder never reads it,
/// so the model-set id does not cover it (as `analysis_shift`).
public struct MotionSearch: Codable, Equatable, Sendable {
    public var dxChannel: Int
    public var dyChannel: Int
    /// y_m steps per pixel of flow.
    public var stepsPerPixel: Int
    /// Candidates are −range…range pixels on each axis.
    public var range: Int

    public init(dxChannel: Int, dyChannel: Int, stepsPerPixel: Int, range: Int) {
        self.dxChannel = dxChannel; self.dyChannel = dyChannel; self.stepsPerPixel = stepsPerPixel; self.range = range
    }

    enum CodingKeys: String, CodingKey {
        case dxChannel = "dx_channel", dyChannel = "dy_channel", stepsPerPixel = "steps_per_pixel", range
    }

    func validate(file: String) throws {
        func bad(_ problem: String) -> ModelSetError { ModelSetError(file: file, location: "$.motion_search", problem: problem) }
        guard dxChannel >= 0, dyChannel >= 0, dxChannel != dyChannel else { throw bad("dx_channel and dy_channel must be two channels ≥ 0") }
        guard (1...64).contains(stepsPerPixel) else { throw bad("steps_per_pixel \(stepsPerPixel) is outside 1…64") }
        guard (0...64).contains(range) else { throw bad("range \(range) is outside 0…64") }
    }

    /// §7.1: per latent position (bi, bj) of a `yh × yw` grid, the (dx, dy) in pixels, each with
    /// `dx·steps_per_pixel` inside `contract`, minimising the sum over the block's pixels and
    /// channels of |current(i, j) − ref(clamp(i + dy), clamp(j + dx))| on the extended frames
    /// (clamped to their edges); ties go to the smaller |dx| + |dy|, then the smaller dy, then dx.
    func vectors(current: TensorValue, reference: TensorValue, contract: Interval) -> [(dx: Int, dy: Int)] {
        let (h, w) = (current.shape.height, current.shape.width)
        let (yh, yw) = (h / 16, w / 16)
        // The contract's multiples of the step (floor and ceiling division by hand: Swift's `/` truncates).
        let s = Int64(stepsPerPixel)
        let ceilLo = contract.lo >= 0 ? (contract.lo + s - 1) / s : -((-contract.lo) / s)
        let floorHi = contract.hi >= 0 ? contract.hi / s : -((-contract.hi + s - 1) / s)
        let lo = Int(max(-Int64(range), ceilLo)), hi = Int(min(Int64(range), floorHi))
        let plane = h * w
        var out: [(dx: Int, dy: Int)] = []
        out.reserveCapacity(yh * yw)
        current.values.withUnsafeBufferPointer { cur in
            reference.values.withUnsafeBufferPointer { ref in
                for bi in 0..<yh {
                    for bj in 0..<yw {
                        var best = (cost: Int.max, dx: 0, dy: 0)
                        for dy in lo...max(lo, hi) {
                            for dx in lo...max(lo, hi) {
                                var cost = 0
                                for c in 0..<3 {
                                    for i in (16 * bi)..<(16 * bi + 16) {
                                        let ri = min(max(i + dy, 0), h - 1)
                                        for j in (16 * bj)..<(16 * bj + 16) {
                                            let rj = min(max(j + dx, 0), w - 1)
                                            cost += abs(Int(cur[c * plane + i * w + j]) - Int(ref[c * plane + ri * w + rj]))
                                        }
                                    }
                                    if cost > best.cost { break }
                                }
                                let better = cost < best.cost
                                    || (cost == best.cost && abs(dx) + abs(dy) < abs(best.dx) + abs(best.dy))
                                if better { best = (cost, dx, dy) }
                            }
                        }
                        out.append((best.dx, best.dy))
                    }
                }
            }
        }
        return out
    }
}
