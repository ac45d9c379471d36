import TestSupport
import XCTest
@testable import WaiCore

/// The AVX-512 inverse GDN epilogue's integer square root (docs/cpu-kernels.md §3.4): one
/// correction after the single-precision root, and, where the certificate puts every n at or
/// below 32766², vpmaddwd products instead of vpmulld. With gamma zero, n is beta, so each
/// channel's n is chosen: perfect squares, one below and one above, at the ends of both
/// modes, for every unit of the backend against the reference interpreter.
final class CPUIGDNSqrtTests: XCTestCase {
    static func squaresAround(_ roots: [Int]) -> [Int] {
        roots.flatMap { k in [k * k - 1, k * k, k * k + 1] }.filter { $0 >= 0 }
    }

    func testSquareRootEdgesInBothModes() throws {
        let units = try CPUBackendTests.backends()
        // n ≤ 32766²: the vpmaddwd mode; the largest n of the channel set decides.
        let small = [0, 2, 3] + Self.squaresAround([1, 2, 3, 181, 4095, 4096, 32765]) + [32766 * 32766 - 1, 32766 * 32766]
        // Past it: vpmulld, up to n = 2^31 − 1 (isqrt 46340).
        let large = Self.squaresAround([1, 4096, 32766, 32767, 32768, 40000, 46339, 46340]) + [Int(Int32.max)]
        var rng = SplitMix64(seed: 0x5A27)
        for (mode, ns) in [("small", small), ("large", large)] {
            for q in [15, 0] {                      // squares in int16 (pair mode) or not
                let c = ns.count, shape = Shape(c, 3, 37)
                var b = GraphBuilder()
                let x = b.input("x", shape, storage: .narrow, interval: Interval(lo: -32768, hi: 32767))
                let y = try b.inverseGDN(x, InverseGDNParams(beta: ns.map { Int32($0) },
                                                            gamma: [Int32](repeating: 0, count: c * c),
                                                            squareShift: Int32(q), outShift: 7))
                let graph = try b.build(outputs: [y])
                let values = (0..<shape.count).map { _ -> Int32 in
                    switch rng.int(0...4) {
                    case 0: return -32768
                    case 1: return 32767
                    case 2: return Int32(rng.int(-1...1))
                    default: return Int32(rng.int(-32768...32767))
                    }
                }
                try CPUBackendTests.assertExact("inverse_gdn isqrt \(mode) q\(q)", graph,
                                                [TensorValue(shape: shape, values: values)], on: units)
            }
        }
    }
}
