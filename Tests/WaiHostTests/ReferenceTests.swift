import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// docs/integer-ops.md §3 and §4 against hand-computed values, and the reference's fast
/// loops against the formulas evaluated literally.
final class ReferenceTests: XCTestCase {
    // MARK: §3 arithmetic

    func testFloorShiftOfNegatives() {
        XCTAssertEqual(IntegerMath.floorShift(-1, 1), -1)
        XCTAssertEqual(IntegerMath.floorShift(-3, 1), -2)
        XCTAssertEqual(IntegerMath.floorShift(-4, 1), -2)
        XCTAssertEqual(IntegerMath.floorShift(3, 1), 1)
        XCTAssertEqual(IntegerMath.floorShift(Int64(Int32.min), 31), -1)
        XCTAssertEqual(IntegerMath.floorShift(Int64(Int32.min) + 1, 31), -1)
        XCTAssertEqual(IntegerMath.floorShift(Int64(Int32.max), 31), 0)
        XCTAssertEqual(IntegerMath.floorShift(Int64(Int32.min), 30), -2)
        XCTAssertEqual(IntegerMath.floorShift(-1, 31), -1)
        XCTAssertEqual(IntegerMath.floorShift(-5, 0), -5)
    }

    func testRoundingTiesGoTowardPlusInfinity() {
        XCTAssertEqual(IntegerMath.rnd(-3, 1), -1)   // −1.5 → −1
        XCTAssertEqual(IntegerMath.rnd(3, 1), 2)     // 1.5 → 2
        XCTAssertEqual(IntegerMath.rnd(-1, 1), 0)    // −0.5 → 0
        XCTAssertEqual(IntegerMath.rnd(1, 1), 1)     // 0.5 → 1
        XCTAssertEqual(IntegerMath.rnd(-6, 2), -1)   // −1.5 → −1
        XCTAssertEqual(IntegerMath.rnd(6, 2), 2)     // 1.5 → 2
        XCTAssertEqual(IntegerMath.rnd(-5, 2), -1)   // −1.25 → −1
        XCTAssertEqual(IntegerMath.rnd(-7, 2), -2)   // −1.75 → −2
        XCTAssertEqual(IntegerMath.rnd(-7, 0), -7)
        XCTAssertEqual(IntegerMath.rnd(Int64(Int32.min), 31), -1)
        XCTAssertEqual(IntegerMath.rnd(-(Int64(1) << 30), 31), 0)   // −0.5 → 0
        XCTAssertEqual(IntegerMath.rnd(-(Int64(1) << 30) - 1, 31), -1)
    }

    func testIsqrtAtSquaresAndSquaresMinusOne() {
        XCTAssertEqual(IntegerMath.isqrt(0), 0)
        XCTAssertEqual(IntegerMath.isqrt(1), 1)
        XCTAssertEqual(IntegerMath.isqrt(2), 1)
        XCTAssertEqual(IntegerMath.isqrt(3), 1)
        for r: Int64 in [2, 3, 7, 1000, 46340, 46341, 65535, 65536, 3_037_000_499 / 2] {
            XCTAssertEqual(IntegerMath.isqrt(r * r), r, "isqrt(\(r)²)")
            XCTAssertEqual(IntegerMath.isqrt(r * r - 1), r - 1, "isqrt(\(r)² − 1)")
            XCTAssertEqual(IntegerMath.isqrt(r * r + 1), r, "isqrt(\(r)² + 1)")
        }
        XCTAssertEqual(IntegerMath.isqrt(Int64(Int32.max)), 46340)
        for n: Int64 in 0...5000 {
            let r = IntegerMath.isqrt(n)
            XCTAssertTrue(r * r <= n && (r + 1) * (r + 1) > n, "isqrt(\(n)) = \(r)")
        }
    }

    func testClamp() {
        XCTAssertEqual(IntegerMath.clamp(-5, -2, 3), -2)
        XCTAssertEqual(IntegerMath.clamp(5, -2, 3), 3)
        XCTAssertEqual(IntegerMath.clamp(1, -2, 3), 1)
    }

    // MARK: helpers

    private func wide(_ lo: Int64, _ hi: Int64) -> Interval { Interval(lo: lo, hi: hi) }

    private func runOne(_ shape: Shape, _ values: [Int32], interval: Interval, storage: Storage = .wide,
                        _ make: (inout GraphBuilder, Int) throws -> Int) throws -> TensorValue {
        var b = GraphBuilder()
        let x = b.input("x", shape, storage: storage, interval: interval)
        let y = try make(&b, x)
        let g = try b.build(outputs: [y])
        let out = try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: shape, values: values)])
        return out[0]
    }

    // MARK: §4 ops, hand-worked

    func testRequantizeRoundsAndClamps() throws {
        // m = 3, s = 2, clamp to [−2, 2]: x·3 then rnd(·, 2).
        let xs: [Int32] = [-5, -2, -1, 0, 1, 2, 3, 5]
        let y = try runOne(Shape(1, 1, 8), xs, interval: wide(-5, 5)) { b, x in
            try b.requantize(x, RequantizeParams(multiplier: [3], shift: [2], lo: -2, hi: 2))
        }
        // −15→−4→−2, −6→−1 (tie −1.5→−1), −3→−1, 0, 3→1, 6→2 (tie 1.5→2), 9→2, 15→4→2
        XCTAssertEqual(y.values, [-2, -1, -1, 0, 1, 2, 2, 2])
    }

    func testRequantizeAtShift31() throws {
        let xs: [Int32] = [Int32.min, -(1 << 30) - 1, -(1 << 30), -1, 0]
        let y = try runOne(Shape(1, 1, 5), xs, interval: wide(Int64(Int32.min), 0)) { b, x in
            try b.requantize(x, RequantizeParams(multiplier: [1], shift: [31], lo: Int32.min, hi: Int32.max))
        }
        XCTAssertEqual(y.values, [-1, -1, 0, 0, 0])
    }

    func testRequantizePerChannel() throws {
        let y = try runOne(Shape(2, 1, 2), [7, -7, 7, -7], interval: wide(-7, 7)) { b, x in
            try b.requantize(x, RequantizeParams(multiplier: [1, 5], shift: [1, 0], lo: -100, hi: 100))
        }
        // channel 0: rnd(±7, 1) = 4, −3; channel 1: ±35.
        XCTAssertEqual(y.values, [4, -3, 35, -35])
    }

    func testAddAndClamp() throws {
        var b = GraphBuilder()
        let s = Shape(1, 1, 3)
        let x = b.input("x", s, storage: .wide, interval: wide(-10, 10))
        let z = b.input("z", s, storage: .wide, interval: wide(-10, 10))
        let sum = try b.add(x, z)
        let relu = try b.clamp(sum, lo: 0, hi: 5)
        let g = try b.build(outputs: [sum, relu])
        let out = try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: s, values: [-10, 3, 10]),
                                                           TensorValue(shape: s, values: [-10, 1, 10])])
        XCTAssertEqual(out[0].values, [-20, 4, 20])
        XCTAssertEqual(out[1].values, [0, 4, 5])
    }

    func testDepthToSpacePermutation() throws {
        // x channel k holds [10k, 10k+1]; y[0][u][2j+v] = x[2u+v][0][j].
        let xs: [Int32] = [0, 1, 10, 11, 20, 21, 30, 31]
        let y = try runOne(Shape(4, 1, 2), xs, interval: wide(0, 31)) { b, x in try b.depthToSpace(x, block: 2) }
        XCTAssertEqual(y.shape, Shape(1, 2, 4))
        XCTAssertEqual(y.values, [0, 10, 1, 11, 20, 30, 21, 31])
    }

    func testDepthToSpaceKeepsEveryChannelGroup() throws {
        // 8 channels, r = 2: two output channels, each from its own 4 input channels.
        let xs = (0..<8).map { Int32($0) }   // 8×1×1
        let y = try runOne(Shape(8, 1, 1), xs, interval: wide(0, 7)) { b, x in try b.depthToSpace(x, block: 2) }
        XCTAssertEqual(y.shape, Shape(2, 2, 2))
        XCTAssertEqual(y.values, [0, 1, 2, 3, 4, 5, 6, 7])
    }

    func testConcatKeepsInputOrder() throws {
        var b = GraphBuilder()
        let p = b.input("p", Shape(1, 1, 2), storage: .narrow, interval: wide(0, 9))
        let q = b.input("q", Shape(2, 1, 2), storage: .narrow, interval: wide(-9, 0))
        let c = try b.concat([q, p])
        let g = try b.build(outputs: [c])
        XCTAssertEqual(g.tensors[c].interval, wide(-9, 9))
        let out = try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: Shape(1, 1, 2), values: [1, 2]),
                                                           TensorValue(shape: Shape(2, 1, 2), values: [-1, -2, -3, -4])])
        XCTAssertEqual(out[0].shape, Shape(3, 1, 2))
        XCTAssertEqual(out[0].values, [-1, -2, -3, -4, 1, 2])
    }

    func testLookupClampsAtBothEnds() throws {
        let xs: [Int32] = [-100, 8, 9, 10, 11, 12, 13, 100]
        let y = try runOne(Shape(1, 1, 8), xs, interval: wide(-100, 100)) { b, x in
            try b.lookup(x, LookupParams(table: [5, -6, 7], offset: 10))
        }
        XCTAssertEqual(y.values, [5, 5, 5, 5, -6, 7, 7, 7])
    }

    func testConv2dShiftKernelWithPaddingAndBias() throws {
        // Only tap (u, v) = (1, 2) is non-zero: y[i][j] = 100 + 2·x[i][j+1] (0 past the edge).
        var w = [Int16](repeating: 0, count: 9)
        w[1 * 3 + 2] = 2
        let xs: [Int32] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        let y = try runOne(Shape(1, 3, 3), xs, interval: wide(0, 9)) { b, x in
            try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1, weights: w, bias: [100]))
        }
        XCTAssertEqual(y.shape, Shape(1, 3, 3))
        XCTAssertEqual(y.values, [104, 106, 100, 110, 112, 100, 116, 118, 100])
    }

    func testConv2dStride2TwoChannels() throws {
        // 2 input channels, all-ones 3×3 kernel on channel 0, −1 centre tap on channel 1.
        // Ho = (3 + 2 − 3) / 2 + 1 = 2; output (i, j) covers rows 2i−1…2i+1.
        var w = [Int16](repeating: 1, count: 9) + [Int16](repeating: 0, count: 9)
        w[9 + 4] = -1
        let ch0: [Int32] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        let ch1: [Int32] = [10, 20, 30, 40, 50, 60, 70, 80, 90]
        let y = try runOne(Shape(2, 3, 3), ch0 + ch1, interval: wide(0, 90)) { b, x in
            try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, weights: w, bias: [0]))
        }
        XCTAssertEqual(y.shape, Shape(1, 2, 2))
        // (0,0): 1+2+4+5 − 10; (0,1): 2+3+5+6 − 30; (1,0): 4+5+7+8 − 70; (1,1): 5+6+8+9 − 90.
        XCTAssertEqual(y.values, [2, -14, -46, -62])
    }

    func testConvTranspose2dK5S2P2OutputPad1DoublesSize() throws {
        // w[u][v] = 10u + v, 1 → 1 channel, x is 2×1 = [1, 100]: Ho = 2·2, Wo = 2·1.
        // y[i][j] = Σ_a w[i + 2 − 2a][j + 2] · x[a] over taps inside 0…4.
        let w: [Int16] = (0..<25).map { (i: Int) -> Int16 in Int16(i / 5 * 10 + i % 5) }
        let y = try runOne(Shape(1, 2, 1), [1, 100], interval: wide(0, 100)) { b, x in
            try b.convTranspose2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1, weights: w, bias: [7]))
        }
        XCTAssertEqual(y.shape, Shape(1, 4, 2))
        let expected: [Int32] = [229, 330, 1239, 1340, 2249, 2350, 3207, 3307]  // hand sums above, + bias 7
        XCTAssertEqual(y.values, expected)
    }

    func testConvTranspose2dSingleInputPicksCentreTaps() throws {
        let w: [Int16] = (0..<25).map { (i: Int) -> Int16 in Int16(i / 5 * 10 + i % 5) }
        let y = try runOne(Shape(1, 1, 1), [1], interval: wide(1, 1)) { b, x in
            try b.convTranspose2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1, weights: w, bias: [0]))
        }
        XCTAssertEqual(y.shape, Shape(1, 2, 2))
        XCTAssertEqual(y.values, [22, 23, 32, 33])
    }

    func testInverseGDNHandWorked() throws {
        // One position, 2 channels: x = (3, −2), q = 1, s = 1, beta = (1, 0),
        // gamma = [[1, 1], [0, 2]]. sq = (9>>1, 4>>1) = (4, 2); n = (1+4+2, 0+0+4) = (7, 4);
        // isqrt = (2, 2); y = (rnd(6, 1), rnd(−4, 1)) = (3, −2).
        let y = try runOne(Shape(2, 1, 1), [3, -2], interval: wide(-3, 3)) { b, x in
            try b.inverseGDN(x, InverseGDNParams(beta: [1, 0], gamma: [1, 1, 0, 2], squareShift: 1, outShift: 1))
        }
        XCTAssertEqual(y.values, [3, -2])
    }

    func testInverseGDNIsqrtAtSquareAndSquareMinusOne() throws {
        // gamma = 0, so n = beta: 16 → 4 and 15 → 3; x = 3, −3 at s = 0.
        for (beta, r): (Int32, Int32) in [(16, 4), (15, 3), (0, 0), (1, 1), (2_147_395_600, 46340), (2_147_395_599, 46339)] {
            let y = try runOne(Shape(1, 1, 2), [1, -1], interval: wide(-1, 1)) { b, x in
                try b.inverseGDN(x, InverseGDNParams(beta: [beta], gamma: [0], squareShift: 0, outShift: 0))
            }
            XCTAssertEqual(y.values, [r, -r], "beta \(beta)")
        }
    }

    // MARK: input contract and defensive checks

    func testInputContract() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, 2), storage: .narrow, interval: wide(-4, 4))
        let g = try b.build(outputs: [x])
        XCTAssertNoThrow(try checkInputContract(g, [TensorValue(shape: Shape(1, 1, 2), values: [-4, 4])]))
        XCTAssertThrowsError(try checkInputContract(g, [])) {
            XCTAssertEqual($0 as? InputContractError, .count(expected: 1, got: 0))
        }
        XCTAssertThrowsError(try checkInputContract(g, [TensorValue(shape: Shape(1, 2, 1), values: [0, 0])])) {
            XCTAssertEqual($0 as? InputContractError,
                           .shape(input: 0, tensor: 0, name: "x", expected: Shape(1, 1, 2), got: Shape(1, 2, 1)))
        }
        XCTAssertThrowsError(try checkInputContract(g, [TensorValue(shape: Shape(1, 1, 2), values: [0])])) {
            XCTAssertEqual($0 as? InputContractError, .valueCount(input: 0, tensor: 0, name: "x", expected: 2, got: 1))
        }
        XCTAssertThrowsError(try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: Shape(1, 1, 2), values: [0, 5])])) {
            XCTAssertEqual($0 as? InputContractError, .value(input: 0, tensor: 0, name: "x", index: 1, value: 5, interval: wide(-4, 4)))
        }
    }

    /// A graph whose certificate is a lie (never verified) makes the reference throw, not trap.
    func testUnverifiedGraphOverflowThrows() throws {
        let big = wide(Int64(Int32.min), Int64(Int32.max))
        let g = IntegerGraph(
            tensors: [TensorSpec(name: "a", shape: Shape(1, 1, 2), storage: .wide, interval: big),
                      TensorSpec(name: "s", shape: Shape(1, 1, 2), storage: .wide, interval: big)],
            nodes: [Node(op: .add, inputs: [0, 0], output: 1)], inputs: [0], outputs: [1])
        XCTAssertThrowsError(try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: Shape(1, 1, 2), values: [1, Int32.max])])) {
            XCTAssertEqual($0 as? ReferenceError, .overflow(node: 0, op: "add", tensor: 1, name: "s", index: 1,
                                                            intermediate: "a + b", value: 2 * Int64(Int32.max)))
        }
        // Narrow storage claimed for a tensor that receives a wide value.
        var narrow = g
        narrow.tensors[1].storage = .narrow
        XCTAssertThrowsError(try ReferenceInterpreter.run(narrow, inputs: [TensorValue(shape: Shape(1, 1, 2), values: [1, 20000])])) {
            XCTAssertEqual($0 as? ReferenceError, .narrowOverflow(node: 0, op: "add", tensor: 1, name: "s", index: 1, value: 40000))
        }
        // A certificate interval narrower than what the node produces.
        var lying = g
        lying.tensors[1].interval = wide(0, 10)
        XCTAssertThrowsError(try ReferenceInterpreter.run(lying, inputs: [TensorValue(shape: Shape(1, 1, 2), values: [1, 6])])) {
            XCTAssertEqual($0 as? ReferenceError, .outsideCertificate(node: 0, op: "add", tensor: 1, name: "s", index: 1,
                                                                      value: 12, interval: wide(0, 10)))
        }
    }

    func testUnverifiedConvOverflowThrowsNamingElement() throws {
        let big = wide(Int64(Int32.min), Int64(Int32.max))
        let p = ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [2], bias: [0])
        let g = IntegerGraph(
            tensors: [TensorSpec(name: "x", shape: Shape(1, 1, 3), storage: .wide, interval: big),
                      TensorSpec(name: "y", shape: Shape(1, 1, 3), storage: .wide, interval: big)],
            nodes: [Node(op: .conv2d(p), inputs: [0], output: 1)], inputs: [0], outputs: [1])
        XCTAssertThrowsError(try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: Shape(1, 1, 3), values: [0, 1, Int32.min])])) {
            XCTAssertEqual($0 as? ReferenceError, .overflow(node: 0, op: "conv2d", tensor: 1, name: "y", index: 2,
                                                            intermediate: "partial sum", value: 2 * Int64(Int32.min)))
        }
    }

    func testMalformedGraphThrowsNotTraps() {
        let t = TensorSpec(name: "x", shape: Shape(1, 1, 1), storage: .wide, interval: wide(0, 0))
        let g = IntegerGraph(tensors: [t], nodes: [Node(op: .add, inputs: [0, 5], output: 0)], inputs: [0], outputs: [0])
        XCTAssertThrowsError(try ReferenceInterpreter.run(g, inputs: [TensorValue(shape: Shape(1, 1, 1), values: [0])])) {
            XCTAssertEqual($0 as? GraphError, .node(index: 0, op: "add", problem: "input names tensor 5; the graph has 1 tensors"))
        }
    }

    // MARK: fast loops against the formulas evaluated literally

    /// §4.1 and §4.2 exactly as written: a sum over every (c, u, v) or (c, u, v, a, bb).
    private func literalConv(_ x: TensorValue, _ p: ConvParams, transposed: Bool, out: Shape) -> [Int32] {
        let (cin, h, w) = (x.shape.channels, x.shape.height, x.shape.width)
        let (kh, kw, s, pad) = (p.kernelH, p.kernelW, p.stride, p.pad)
        var y = [Int32](repeating: 0, count: out.count)
        for o in 0..<out.channels {
            for i in 0..<out.height {
                for j in 0..<out.width {
                    var acc = Int64(p.bias[o])
                    for c in 0..<cin {
                        for u in 0..<kh {
                            for v in 0..<kw {
                                if transposed {
                                    for a in 0..<h where a * s - pad + u == i {
                                        for bb in 0..<w where bb * s - pad + v == j {
                                            acc += Int64(p.weights[((c * out.channels + o) * kh + u) * kw + v])
                                                * Int64(x.values[(c * h + a) * w + bb])
                                        }
                                    }
                                } else {
                                    let r = i * s - pad + u, q = j * s - pad + v
                                    if r >= 0 && r < h && q >= 0 && q < w {
                                        acc += Int64(p.weights[((o * cin + c) * kh + u) * kw + v])
                                            * Int64(x.values[(c * h + r) * w + q])
                                    }
                                }
                            }
                        }
                    }
                    y[(o * out.height + i) * out.width + j] = Int32(acc)
                }
            }
        }
        return y
    }

    func testConvLoopsMatchLiteralFormulas() throws {
        var rng = SplitMix64(seed: 0x5eed)
        for trial in 0..<60 {
            let transposed = trial % 2 == 1
            let kh = 1 + rng.below(5), kw = 1 + rng.below(5)
            let stride = 1 + rng.below(3)
            let pad = rng.below(min(kh, kw))
            let outputPad = transposed ? rng.below(stride) : 0
            let cin = 1 + rng.below(3), cout = 1 + rng.below(3)
            var h = max(1, kh - 2 * pad) + rng.below(4), w = max(1, kw - 2 * pad) + rng.below(4)
            while transposed && (h - 1) * stride - 2 * pad + kh + outputPad < 1 { h += 1 }
            while transposed && (w - 1) * stride - 2 * pad + kw + outputPad < 1 { w += 1 }
            let weights = (0..<(cout * cin * kh * kw)).map { _ in Int16(rng.below(201)) - 100 }
            let bias = (0..<cout).map { _ in Int32(rng.below(2001)) - 1000 }
            let p = ConvParams(kernelH: kh, kernelW: kw, stride: stride, pad: pad, outputPad: outputPad,
                               weights: weights, bias: bias)
            let shape = Shape(cin, h, w)
            let x = TensorValue(shape: shape, values: (0..<shape.count).map { _ in Int32(rng.below(511)) - 255 })
            var b = GraphBuilder()
            let xi = b.input("x", shape, storage: .narrow, interval: wide(-255, 255))
            let yi = transposed ? try b.convTranspose2d(xi, p) : try b.conv2d(xi, p)
            let g = try b.build(outputs: [yi])
            let got = try ReferenceInterpreter.run(g, inputs: [x])[0]
            XCTAssertEqual(got.values, literalConv(x, p, transposed: transposed, out: got.shape),
                           "trial \(trial): \(transposed ? "transposed" : "conv") k\(kh)×\(kw) s\(stride) p\(pad) op\(outputPad) in \(shape)")
        }
    }
}

extension ReferenceTests {
    /// §4.9 position by position, exactly as written.
    private func literalInverseGDN(_ x: TensorValue, _ p: InverseGDNParams) -> [Int32] {
        let c = x.shape.channels, plane = x.shape.height * x.shape.width
        var y = [Int32](repeating: 0, count: x.values.count)
        for pos in 0..<plane {
            let xs = (0..<c).map { Int64(x.values[$0 * plane + pos]) }
            let sq = xs.map { ($0 * $0) >> Int64(p.squareShift) }
            for ch in 0..<c {
                var n = Int64(p.beta[ch])
                for k in 0..<c { n += Int64(p.gamma[ch * c + k]) * sq[k] }
                var r: Int64 = 0
                while (r + 1) * (r + 1) <= n { r += 1 }
                let s = Int64(p.outShift)
                let v = xs[ch] * r
                y[ch * plane + pos] = Int32(s == 0 ? v : (v + (1 << (s - 1))) >> s)
            }
        }
        return y
    }

    func testInverseGDNLoopsMatchLiteralFormula() throws {
        var rng = SplitMix64(seed: 0x6d6e)
        for trial in 0..<30 {
            let c = 1 + rng.below(4), h = 1 + rng.below(3), w = 1 + rng.below(3)
            let bound = Int64(1 + rng.below(300))
            let p = InverseGDNParams(beta: (0..<c).map { _ in Int32(rng.below(1000)) },
                                     gamma: (0..<(c * c)).map { _ in Int32(rng.below(8)) },
                                     squareShift: Int32(rng.below(6)), outShift: Int32(rng.below(9)))
            let shape = Shape(c, h, w)
            let x = TensorValue(shape: shape, values: (0..<shape.count).map { _ in Int32(Int64(rng.below(Int(2 * bound + 1))) - bound) })
            var b = GraphBuilder()
            let xi = b.input("x", shape, storage: .narrow, interval: Interval(lo: -bound, hi: bound))
            let yi = try b.inverseGDN(xi, p)
            let g = try b.build(outputs: [yi])
            XCTAssertEqual(try ReferenceInterpreter.run(g, inputs: [x])[0].values, literalInverseGDN(x, p), "trial \(trial)")
        }
    }
}
