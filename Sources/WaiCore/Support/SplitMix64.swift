/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and the same sequence on every
/// machine, which is all the probe needs — its graphs must not change between runs or
/// hosts, or the cache key's suite version would not mean anything.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform enough in lo...hi (modulo bias is irrelevant for test data).
    public mutating func int(_ lo: Int64, _ hi: Int64) -> Int64 {
        precondition(lo <= hi)
        let span = UInt64(bitPattern: hi &- lo) &+ 1
        if span == 0 { return Int64(bitPattern: next()) }
        return lo &+ Int64(bitPattern: next() % span)
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int(int(Int64(range.lowerBound), Int64(range.upperBound)))
    }

    public mutating func int32(_ lo: Int32, _ hi: Int32) -> Int32 {
        Int32(int(Int64(lo), Int64(hi)))
    }

    public mutating func int16(_ lo: Int16, _ hi: Int16) -> Int16 {
        Int16(int(Int64(lo), Int64(hi)))
    }

    public mutating func bool() -> Bool { next() & 1 == 1 }

    public mutating func pick<T>(_ options: [T]) -> T { options[int(0...(options.count - 1))] }
}
