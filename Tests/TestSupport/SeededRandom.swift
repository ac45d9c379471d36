// Seeded test data: the tests draw from the probe's SplitMix64 (one generator in the
// project, a RandomNumberGenerator), so a failing case reproduces on every machine.

extension RandomNumberGenerator {
    /// Uniform in 0..<n (modulo bias is irrelevant for test data).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// True one time in `n`.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }
}
