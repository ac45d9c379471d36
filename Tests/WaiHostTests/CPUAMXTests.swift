import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The CPU backend's AMX tile path (docs/cpu-kernels.md): int16 products as one, two or four
/// int8 tile products chosen per layer from the input's certified interval and the weights,
/// against the reference interpreter, on every unit (the AMX unit where this CPU has one,
/// and every other path on the same graphs). The shapes are ones the tile path takes (at
/// least 8 output channels, int16 input storage) and make it use every blocking remainder:
/// several K chunks with a partial last one, odd numbers of 16-channel and 16-column blocks,
/// strided and transposed phases. Values sit at the byte-split edges (−32768, −129, −128,
/// −1, 0, 127, 128, 255, 256, 32767) where a wrong sign or carry of a byte product shows.
final class CPUAMXTests: XCTestCase {
    /// Which factors exceed int8, i.e. need the high/low byte split.
    struct Decomposition: CustomStringConvertible {
        var wideInput: Bool
        var wideWeights: Bool
        var description: String { "x \(wideInput ? "int16" : "int8") × w \(wideWeights ? "int16" : "int8")" }
        static let all = [false, true].flatMap { x in [false, true].map { Decomposition(wideInput: x, wideWeights: $0) } }
    }

    static let edgeInputs: [Int32] = [-32768, -32767, -257, -256, -129, -128, -127, -1, 0, 1, 127, 128, 255, 256, 32767]
    static let edgeWeights: [Int16] = [-32768, -256, -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767]

    static func pick<T>(_ rng: inout SplitMix64, _ from: [T]) -> T? {
        from.isEmpty ? nil : from[rng.int(0...(from.count - 1))]
    }

    /// A conv whose every partial sum the certificate accepts: the weights of each output
    /// channel share a budget of Σ|w| · max|x| < 2^30, one extreme weight per channel when
    /// the weights are int16.
    static func conv(_ rng: inout SplitMix64, _ d: Decomposition, transposed: Bool,
                     cin: Int, cout: Int, h: Int, w: Int, k: Int, stride: Int) throws -> GraphCases.Case {
        let xmax: Int64 = d.wideInput ? 32768 : 128
        let iv = d.wideInput ? Interval(lo: -32768, hi: 32767) : Interval(lo: -128, hi: 127)
        let taps = cin * k * k
        let budget = Int((Int64(1) << 30) / xmax)
        var weights: [Int16] = []
        var perChannel = [[Int16]](repeating: [], count: cout)
        for o in 0..<cout {
            let big: Int16 = d.wideWeights ? (o % 2 == 0 ? -32768 : 32767) : (o % 2 == 0 ? -128 : 127)
            let rest = max(1, min(d.wideWeights ? 300 : 127, (budget - Int(big.magnitude)) / taps))
            perChannel[o] = (0..<taps).map { t in
                if t == o % taps { return big }
                if rng.oneIn(5) { return pick(&rng, Self.edgeWeights.filter { Int($0.magnitude) <= rest }) ?? 0 }
                return Int16(rng.int(-rest...rest))
            }
        }
        // ConvParams order: conv [cout][cin][k][k], transposed [cin][cout][k][k].
        if transposed {
            for c in 0..<cin { for o in 0..<cout { weights += perChannel[o][(c * k * k)..<((c + 1) * k * k)] } }
        } else {
            for o in 0..<cout { weights += perChannel[o] }
        }
        let bias = (0..<cout).map { _ in Int32(rng.int(-(1 << 20)...(1 << 20))) }
        var b = GraphBuilder()
        let x = b.input("x", Shape(cin, h, w), storage: .narrow, interval: iv)
        let p = ConvParams(kernelH: k, kernelW: k, stride: stride, pad: k / 2, outputPad: transposed ? stride - 1 : 0,
                           weights: weights, bias: bias)
        let y = transposed ? try b.convTranspose2d(x, p) : try b.conv2d(x, p)
        let r = try b.requantize(y, RequantizeParams(multiplier: [Int32](repeating: 1, count: cout),
                                                     shift: [Int32](repeating: 9, count: cout), lo: -32768, hi: 32767))
        let graph = try b.build(outputs: [r, y])
        let values = (0..<(cin * h * w)).map { _ -> Int32 in
            if rng.oneIn(3) {
                return pick(&rng, Self.edgeInputs.filter { Int64($0) >= iv.lo && Int64($0) <= iv.hi }) ?? 0
            }
            return Int32(iv.lo + Int64(rng.int(0...Int(iv.hi - iv.lo))))
        }
        let name = "\(transposed ? "conv_transpose2d" : "conv2d") \(cin)×\(h)×\(w)→\(cout) k\(k) s\(stride) \(d)"
        return GraphCases.Case(name: name, graph: graph, inputs: [TensorValue(shape: Shape(cin, h, w), values: values)])
    }

    func testTileConvolutionsEveryDecomposition() throws {
        let units = try CPUBackendTests.backends()
        var rng = SplitMix64(seed: 0xA3C5)
        for d in Decomposition.all {
            // 70 channels: 18 quads, two K chunks, the second mostly padding; 37 outputs:
            // three 16-channel blocks, the last partial (the 1-block remainder of 2-block calls).
            // The last shape also makes the vector paths sum over several cache-blocked
            // channel chunks (conv.c, compute_row).
            for (transposed, cin, cout, h, w, k, stride) in [(true, 70, 37, 3, 21, 5, 2), (false, 20, 8, 5, 40, 3, 1),
                                                              (false, 33, 16, 6, 37, 3, 2), (true, 16, 24, 2, 9, 3, 3),
                                                              (false, 70, 12, 5, 100, 5, 1)] {
                let c = try Self.conv(&rng, d, transposed: transposed, cin: cin, cout: cout, h: h, w: w, k: k, stride: stride)
                try CPUBackendTests.assertExact(c.name, c.graph, c.inputs, on: units)
            }
        }
    }

    /// A transposed conv with fewer than 8 outputs runs on tiles as a stride-1 conv whose
    /// outputs are (channel, y-phase, x-phase) (docs/cpu-kernels.md §2.7): int_hyper's last
    /// layer (5×5, stride 2, 3 outputs), 2 outputs over 70 channels (8 phase channels, a
    /// partial second K chunk), and a 3×3 stride-2 one whose phases need an asymmetric pad,
    /// which stays on the vector kernels; every decomposition.
    func testFewOutputTransposedConvsAsPhaseChannels() throws {
        let units = try CPUBackendTests.backends()
        var rng = SplitMix64(seed: 0x9A5E)
        for d in Decomposition.all {
            for (cin, cout, h, w, k) in [(20, 3, 4, 21, 5), (70, 2, 3, 40, 5), (16, 3, 3, 9, 3)] {
                let c = try Self.conv(&rng, d, transposed: true, cin: cin, cout: cout, h: h, w: w, k: k, stride: 2)
                try CPUBackendTests.assertExact(c.name, c.graph, c.inputs, on: units)
            }
        }
    }

    /// A conv the certificate only just accepts: every input at −32768 and weights whose
    /// byte products sum far outside int32 in the high partial (−128 · −128 per term) while
    /// the true sum stays inside. The wrapping combination must still give it exactly.
    func testExtremeSumsCombineExactly() throws {
        let units = try CPUBackendTests.backends()
        let cin = 64, cout = 16
        // Σ|w| · 32768 ≤ 2^31 − 2^16 − 1: 65534 over 64 channels, ±1024 each with one −1022.
        var weights: [Int16] = []
        for o in 0..<cout {
            for c in 0..<cin { weights.append(c == o ? -1022 : (c % 2 == 0 ? -1024 : 1024)) }
        }
        var b = GraphBuilder()
        let x = b.input("x", Shape(cin, 1, 33), storage: .narrow, interval: Interval(lo: -32768, hi: 32767))
        let y = try b.conv2d(x, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: weights,
                                           bias: [Int32](repeating: -65535, count: cout)))
        let graph = try b.build(outputs: [y])
        var values = [Int32](repeating: -32768, count: cin * 33)
        for c in 0..<cin { values[c * 33 + 32] = 32767; values[c * 33 + 31] = c % 2 == 0 ? 32767 : -32768 }
        try CPUBackendTests.assertExact("extreme sums", graph, [TensorValue(shape: Shape(cin, 1, 33), values: values)], on: units)
    }

    /// inverse GDN's 1×1 convolution of the squares on tiles: squares whole (≤ 127) or split,
    /// gamma whole (≤ 127) or split, 40 channels (three 16-row blocks, the last partial) over
    /// 450 positions (a full strip of 384 and a partial one); inputs at the interval ends and zero.
    func testInverseGDNEveryDecomposition() throws {
        let units = try CPUBackendTests.backends()
        var rng = SplitMix64(seed: 0x16D4)
        let c = 40, shape = Shape(c, 9, 50)
        for (amax, q) in [(11, 0), (1000, 5)] {            // sqhi = 121 (whole) or 31250 (split)
            let sqhi = (amax * amax) >> q
            for gmax in [127, 32767] {
                let budget = (Int(Int32.max) / 2) / (c * sqhi)
                let top = min(gmax, budget)
                let gamma = (0..<(c * c)).map { k in Int32(k % 7 == 0 ? top : rng.int(0...top)) }
                let beta = (0..<c).map { _ in Int32(rng.int(1...(1 << 20))) }
                var b = GraphBuilder()
                let iv = Interval(lo: -Int64(amax), hi: Int64(amax))
                let x = b.input("x", shape, storage: .narrow, interval: iv)
                let y = try b.inverseGDN(x, InverseGDNParams(beta: beta, gamma: gamma, squareShift: Int32(q), outShift: 7))
                let graph = try b.build(outputs: [y])
                let values = (0..<shape.count).map { _ -> Int32 in
                    switch rng.int(0...3) {
                    case 0: return Int32(-amax)
                    case 1: return Int32(amax)
                    case 2: return 0
                    default: return Int32(rng.int(-amax...amax))
                    }
                }
                try CPUBackendTests.assertExact("inverse_gdn \(shape) |x|≤\(amax) q\(q) gamma≤\(top)", graph,
                                                [TensorValue(shape: shape, values: values)], on: units)
            }
        }
    }
}
