import TestSupport
import XCTest
@testable import WaiCore

/// The AVX-512 inverse GDN epilogues (docs/cpu-kernels.md §3.4, §3.5) on every unit of the
/// backend against the reference interpreter.
final class CPUIGDNSqrtTests: XCTestCase {
    static func squaresAround(_ roots: [Int]) -> [Int] {
        roots.flatMap { k in [k * k - 1, k * k, k * k + 1] }.filter { $0 >= 0 }
    }

    /// The integer square root: one correction after the single-precision root, and, where
    /// the certificate puts every n at or below 32766², vpmaddwd products instead of vpmulld.
    /// With gamma zero, n is beta, so each channel's n is chosen: perfect squares, one below
    /// and one above, at the ends of both modes.
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

    /// conv → requantize → inverse GDN, fused, with the squares written by the conv's
    /// epilogue: odd channel counts (a pair's high half with no channel), rows longer than
    /// the inverse GDN's 384-position strip and not a multiple of 16, the dense epilogue
    /// (conv2d), the two-phase one (stride-2 transposed) and the plain C one it falls back to
    /// (stride 3).
    func testSquaresFromTheConvEpilogue() throws {
        let units = try CPUBackendTests.backends()
        var rng = SplitMix64(seed: 0x5C0F)
        struct Layer { var transposed: Bool, cin: Int, cout: Int, h: Int, w: Int, k: Int, stride: Int, pad: Int, outputPad: Int }
        let layers = [
            Layer(transposed: false, cin: 4, cout: 5, h: 3, w: 400, k: 3, stride: 1, pad: 1, outputPad: 0),
            Layer(transposed: true, cin: 6, cout: 7, h: 2, w: 201, k: 5, stride: 2, pad: 2, outputPad: 1),
            Layer(transposed: true, cin: 8, cout: 9, h: 2, w: 20, k: 5, stride: 2, pad: 2, outputPad: 1),
            Layer(transposed: true, cin: 3, cout: 3, h: 2, w: 50, k: 3, stride: 3, pad: 0, outputPad: 0),
        ]
        for l in layers {
            var b = GraphBuilder()
            let shape = Shape(l.cin, l.h, l.w)
            let x = b.input("x", shape, storage: .narrow, interval: Interval(lo: -512, hi: 511))
            let p = ConvParams(kernelH: l.k, kernelW: l.k, stride: l.stride, pad: l.pad, outputPad: l.outputPad,
                               weights: (0..<(l.cin * l.cout * l.k * l.k)).map { _ in Int16(rng.int(-40...40)) },
                               bias: (0..<l.cout).map { _ in Int32(rng.int(-5000...5000)) })
            let conv = l.transposed ? try b.convTranspose2d(x, p) : try b.conv2d(x, p)
            let r = try b.requantize(conv, RequantizeParams(multiplier: (0..<l.cout).map { _ in Int32(rng.int(1...3)) },
                                                            shift: [Int32](repeating: 9, count: l.cout), lo: -1024, hi: 1023))
            let y = try b.inverseGDN(r, InverseGDNParams(beta: [Int32](repeating: 1 << 16, count: l.cout),
                                                         gamma: (0..<(l.cout * l.cout)).map { _ in Int32(rng.int(0...24)) },
                                                         squareShift: 6, outShift: 9))
            let graph = try b.build(outputs: [y])
            let values = GraphCases.values(&rng, count: shape.count, Interval(lo: -512, hi: 511))
            try CPUBackendTests.assertExact("fused squares \(l.transposed ? "conv_transpose2d" : "conv2d") \(l.cin)→\(l.cout) k\(l.k) s\(l.stride) \(shape)",
                                            graph, [TensorValue(shape: shape, values: values)], on: units)
        }
    }
}
