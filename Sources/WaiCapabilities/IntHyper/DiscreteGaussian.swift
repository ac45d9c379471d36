/// Quantised zero-mean Gaussians as rANS frequency tables: what the model generator ships
/// in entropy.json. Deterministic (DeterministicMath), so a seed always gives the same bytes.
enum DiscreteGaussian {
    /// Values beyond this many standard deviations are escaped rather than given a symbol.
    static let tailSigmas = 5.0

    /// The table for N(0, σ²) discretised to integers (mass of [v − ½, v + ½] for value v),
    /// with the direct range [−R, R] ∩ `contract`, R = max(1, ⌈5σ⌉), and the escape as the last
    /// symbol carrying the tail mass. Every frequency ≥ 1; they sum to 2^precision.
    static func table(sigma: Double, contract: ClosedRange<Int>, precision: Int) throws -> FrequencyTable {
        let reach = max(1, Int((tailSigmas * sigma).rounded(.up)))
        let lo = max(contract.lowerBound, -reach)
        let hi = min(contract.upperBound, reach)
        var probabilities: [Double] = []
        for v in lo...hi {
            probabilities.append(DeterministicMath.normalCDF((Double(v) + 0.5) / sigma)
                - DeterministicMath.normalCDF((Double(v) - 0.5) / sigma))
        }
        let tail = DeterministicMath.normalCDF((Double(lo) - 0.5) / sigma)
            + (1 - DeterministicMath.normalCDF((Double(hi) + 0.5) / sigma))
        probabilities.append(max(0, tail))
        let frequencies = quantise(probabilities, total: 1 << precision)
        return try FrequencyTable(precision: precision, frequencies: frequencies,
                                  escapeSymbol: frequencies.count - 1, offset: Int32(lo))
    }

    /// 1 + ⌊p·(T − K)⌋ for each symbol (so every one is codable), and what is left of T to
    /// the most probable symbol.
    static func quantise(_ p: [Double], total: Int) -> [Int] {
        let spare = Double(total - p.count)
        var f = p.map { 1 + Int(($0 * spare).rounded(.down)) }
        let used = f.reduce(0, +)
        var best = 0
        for (i, v) in p.enumerated() where v > p[best] { best = i }
        f[best] += total - used
        return f
    }
}
