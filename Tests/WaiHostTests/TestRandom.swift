import WaiHost

/// The tests draw their seeded data from the probe's SplitMix64 (one generator in the
/// project), so a failing case reproduces on every machine.
extension SplitMix64 {
    /// Uniform in 0..<n.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// True one time in `n`.
    mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }
}
