// exp, erf and the normal CDF from +, −, ×, ÷ only (IEEE-754 rounds those exactly), so the
// model generator writes the same CDF tables on every machine whatever its libm does.
// Only the generator uses floating point; decoding never does.
enum DeterministicMath {
    static let ln2 = 0.693_147_180_559_945_3
    static let twoOverSqrtPi = 1.128_379_167_095_512_6
    static let sqrtHalf = 0.707_106_781_186_547_5

    /// e^x for x ≥ −700 (below that, 0): x = k·ln2 + r with |r| ≤ ln2/2, a Taylor series
    /// for e^r, then an exact scaling by 2^k.
    static func exp(_ x: Double) -> Double {
        if x < -700 { return 0 }
        precondition(x <= 700, "exp argument \(x) out of range")
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0, sum = 1.0
        for n in 1...30 {
            term = term * r / Double(n)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// erf(x) = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)): every term positive, so no
    /// cancellation. |x| ≥ 6 gives ±1 (erfc(6) < 2.2·10⁻¹⁷).
    static func erf(_ x: Double) -> Double {
        let a = x < 0 ? -x : x
        if a >= 6 { return x < 0 ? -1 : 1 }
        let a2 = a * a
        var term = a, sum = a
        var n = 0
        while term > sum * 1e-18 {
            n += 1
            term = term * 2 * a2 / Double(2 * n + 1)
            sum += term
        }
        let value = min(1, twoOverSqrtPi * exp(-a2) * sum)
        return x < 0 ? -value : value
    }

    /// Φ(x), the standard normal CDF.
    static func normalCDF(_ x: Double) -> Double {
        0.5 * (1 + erf(x * sqrtHalf))
    }

    /// 2^(i/6) for integer i, from the six exactly-specified sixth roots: the scale ladder.
    static func twoToThe(sixths i: Int) -> Double {
        let whole = i >= 0 ? i / 6 : -((-i + 5) / 6)
        let frac = i - 6 * whole
        return exp(Double(frac) * ln2 / 6) * Double(sign: .plus, exponent: whole, significand: 1)
    }
}
