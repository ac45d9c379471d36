// The arithmetic of docs/integer-ops.md §3, in one place: the certificate verifier and the
// reference interpreter both call these, so the two cannot disagree on a rounding rule.
// Everything is exact Int64; callers keep operands small enough (products of int32 and
// int32 at most) that nothing here can overflow.

package enum IntegerMath {
    static let int32Range = Interval(lo: Int64(Int32.min), hi: Int64(Int32.max))

    /// `x >> s`: floor division by 2^s (§3). Swift's `>>` on a signed integer is an
    /// arithmetic shift, which is exactly floor division for every sign.
    @inline(__always)
    static func floorShift(_ x: Int64, _ s: Int64) -> Int64 {
        precondition(s >= 0 && s <= 62, "shift count out of range")
        return x >> s
    }

    /// `rnd(x, s) = (x + 2^(s−1)) >> s` for s ≥ 1, `x` for s = 0 (§3): ties toward +∞.
    @inline(__always)
    static func rnd(_ x: Int64, _ s: Int64) -> Int64 {
        s == 0 ? x : floorShift(x + roundingBias(s), s)
    }

    /// The 2^(s−1) that `rnd` adds (0 for s = 0); an intermediate the certificate bounds.
    @inline(__always)
    package static func roundingBias(_ s: Int64) -> Int64 {
        s == 0 ? 0 : Int64(1) << (s - 1)
    }

    /// `clamp(x, lo, hi) = min(max(x, lo), hi)` (§3).
    @inline(__always)
    static func clamp(_ x: Int64, _ lo: Int64, _ hi: Int64) -> Int64 {
        min(max(x, lo), hi)
    }

    /// The largest r ≥ 0 with r·r ≤ n, for 0 ≤ n < 2^62 (§3). Digit-by-digit (base 4)
    /// square root: exact, no floating point, a fixed 31 rounds.
    static func isqrt(_ n: Int64) -> Int64 {
        precondition(n >= 0 && n < (Int64(1) << 62), "isqrt argument out of range")
        var rem = n
        var root: Int64 = 0
        var bit = Int64(1) << 60
        while bit > rem { bit >>= 2 }
        while bit != 0 {
            if rem >= root + bit {
                rem -= root + bit
                root = (root >> 1) + bit
            } else {
                root >>= 1
            }
            bit >>= 2
        }
        return root
    }

    @inline(__always)
    static func fitsInt32(_ x: Int64) -> Bool { x >= Int64(Int32.min) && x <= Int64(Int32.max) }
}
