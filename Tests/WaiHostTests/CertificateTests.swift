import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// docs/integer-ops.md §1, §4 (structure, shapes) and §5 (the bounds certificate).
final class CertificateTests: XCTestCase {
    private func iv(_ lo: Int64, _ hi: Int64) -> Interval { Interval(lo: lo, hi: hi) }

    /// A one-node graph: input x (declared interval), node → y; y's interval is computed.
    private func oneNode(_ op: Op, input shape: Shape, _ interval: Interval, storage: Storage = .wide,
                         output: Shape? = nil, outStorage: Storage = .wide) -> IntegerGraph {
        IntegerGraph(tensors: [TensorSpec(name: "x", shape: shape, storage: storage, interval: interval),
                               TensorSpec(name: "y", shape: output ?? shape, storage: outStorage, interval: iv(0, 0))],
                     nodes: [Node(op: op, inputs: [0], output: 1)], inputs: [0], outputs: [1])
    }

    private func interval(_ op: Op, _ shape: Shape, _ x: Interval, output: Shape? = nil) throws -> Interval {
        try CertificateVerifier.computeIntervals(oneNode(op, input: shape, x, output: output))[1]
    }

    private func conv(_ w: [Int16], bias: [Int32], k: Int = 1, stride: Int = 1, pad: Int = 0, outputPad: Int = 0) -> ConvParams {
        ConvParams(kernelH: k, kernelW: k, stride: stride, pad: pad, outputPad: outputPad, weights: w, bias: bias)
    }

    /// Asserts the error is `.intermediate` at node 0 naming `what`.
    private func assertIntermediate(_ graph: IntegerGraph, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CertificateVerifier.computeIntervals(graph), file: file, line: line) { error in
            guard case .intermediate(let node, _, let tensor, let name, _, let intermediate, _, _)? = error as? GraphError else {
                return XCTFail("expected an intermediate overflow, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(node, 0, file: file, line: line)
            XCTAssertEqual(tensor, 1, file: file, line: line)
            XCTAssertEqual(name, "y", file: file, line: line)
            XCTAssertTrue(intermediate.contains(what), "\(intermediate) should name \(what)", file: file, line: line)
        }
    }

    /// Asserts a structural refusal of node 0 whose problem mentions `text`.
    private func assertNodeError(_ graph: IntegerGraph, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CertificateVerifier.verify(graph), file: file, line: line) { error in
            guard case .node(let index, _, let problem)? = error as? GraphError else {
                return XCTFail("expected a node error, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(index, 0, file: file, line: line)
            XCTAssertTrue(problem.contains(text), "'\(problem)' should mention '\(text)'", file: file, line: line)
        }
    }

    // MARK: §5 rules, hand-computed

    func testConvIntervalSumsTermsContainingZero() throws {
        // Terms: w = 2 on [−1, 4] → [−2, 8]; w = −3 → [−12, 3]. S = [−14, 11], + 5.
        let c = try interval(.conv2d(conv([2, -3], bias: [5])), Shape(2, 1, 1), iv(-1, 4), output: Shape(1, 1, 1))
        XCTAssertEqual(c, iv(-9, 16))
        // Zero is in every term even when the input interval is all positive.
        let positive = try interval(.conv2d(conv([2, 3], bias: [0])), Shape(2, 1, 1), iv(1, 4), output: Shape(1, 1, 1))
        XCTAssertEqual(positive, iv(0, 20))
    }

    /// §5 stated term by term here (each weight's [min(w·a, w·b, 0), max(w·a, w·b, 0)], the
    /// partial sum checked after every input channel), independently of IntervalRules, and
    /// compared with it, answers and refusals alike, on random convolutions of both kinds
    /// (weights over the whole int16 range, inputs from [0, 0] to about ±2^19).
    func testConvIntervalEqualsTheTermByTermRule() throws {
        var random = SplitMix64(seed: 515)
        func draw(_ range: ClosedRange<Int64>) -> Int64 { range.lowerBound + Int64(random.next() % UInt64(range.upperBound - range.lowerBound + 1)) }
        var refused = 0, answered = 0
        for round in 0..<300 {
            let transposed = round % 2 == 1
            let (cin, cout, k) = (Int(draw(1...6)), Int(draw(1...5)), Int(2 * draw(0...1) + 1))   // 1 or 3: 4×4 stays 4×4
            let weights = (0..<(cin * cout * k * k)).map { _ in Int16(truncatingIfNeeded: draw(-32768...32767) >> draw(0...15)) }
            let bias = (0..<cout).map { _ in Int32(draw(-1000...1000)) }
            let magnitude = Int64(1) << draw(0...19)
            let (u, v) = (draw(-magnitude...magnitude), draw(-magnitude...magnitude))
            let x = iv(min(u, v), max(u, v))
            // §5, term by term.
            enum Rule { case answer(Interval), refusal(String) }
            var expected: Rule?
            outer: for o in 0..<cout {
                var lo: Int64 = 0, hi: Int64 = 0
                for c in 0..<cin {
                    for t in 0..<(k * k) {
                        let w = Int64(weights[(transposed ? c * cout + o : o * cin + c) * k * k + t])
                        lo += min(w * x.lo, w * x.hi, 0)
                        hi += max(w * x.lo, w * x.hi, 0)
                    }
                    if lo < Int64(Int32.min) || hi > Int64(Int32.max) {
                        expected = .refusal("output channel \(o) (already after input channels 0…\(c))")
                        break outer
                    }
                }
                let channel = iv(Int64(bias[o]) + lo, Int64(bias[o]) + hi)
                if case .answer(let sofar)? = expected { expected = .answer(sofar.hull(channel)) } else { expected = .answer(channel) }
            }
            let p = conv(weights, bias: bias, k: k, pad: k / 2)
            let op: Op = transposed ? .convTranspose2d(p) : .conv2d(p)
            let shape = Shape(cin, 4, 4)
            switch expected {
            case .answer(let want)?:
                let got = try interval(op, shape, x, output: Shape(cout, 4, 4))
                XCTAssertEqual(got, want, "round \(round)")
                answered += 1
            case .refusal(let what)?:
                assertIntermediate(oneNode(op, input: shape, x, output: Shape(cout, 4, 4)), what)
                refused += 1
            case nil:
                XCTFail("no output channel")
            }
        }
        XCTAssertGreaterThan(refused, 20)
        XCTAssertGreaterThan(answered, 100)
    }

    func testConvTransposeIntervalIsHullOverOutputChannels() throws {
        // w[c=0][o=0] = 2, w[0][1] = −3; biases 0, 100: channel 0 [−2, 8], channel 1 [88, 103].
        let c = try interval(.convTranspose2d(conv([2, -3], bias: [0, 100])), Shape(1, 1, 1), iv(-1, 4), output: Shape(2, 1, 1))
        XCTAssertEqual(c, iv(-2, 103))
    }

    func testRequantizeInterval() throws {
        let s = Shape(1, 1, 1)
        XCTAssertEqual(try interval(.requantize(RequantizeParams(multiplier: [3], shift: [2], lo: -2, hi: 2)), s, iv(-5, 5)), iv(-2, 2))
        XCTAssertEqual(try interval(.requantize(RequantizeParams(multiplier: [3], shift: [2], lo: -100, hi: 100)), s, iv(-5, 5)), iv(-4, 4))
        let two = Shape(2, 1, 1)
        XCTAssertEqual(try interval(.requantize(RequantizeParams(multiplier: [1, 8], shift: [0, 1], lo: -100, hi: 100)), two, iv(-5, 5)),
                       iv(-20, 20))
    }

    func testSimpleRules() throws {
        let s = Shape(4, 1, 1)
        XCTAssertEqual(try interval(.clamp(lo: 0, hi: 5), s, iv(-10, 3)), iv(0, 3))
        XCTAssertEqual(try interval(.clamp(lo: 0, hi: 5), s, iv(-10, -3)), iv(0, 0))
        XCTAssertEqual(try interval(.depthToSpace(block: 2), s, iv(-7, 9), output: Shape(1, 2, 2)), iv(-7, 9))
        let table = LookupParams(table: [5, -6, 7], offset: 10)
        XCTAssertEqual(try interval(.lookup(table), s, iv(11, 11)), iv(-6, -6))
        XCTAssertEqual(try interval(.lookup(table), s, iv(-100, 100)), iv(-6, 7))
        XCTAssertEqual(try interval(.lookup(table), s, iv(12, 100)), iv(7, 7))
        XCTAssertEqual(try interval(.lookup(table), s, iv(-100, 10)), iv(5, 5))
    }

    func testAddAndConcat() throws {
        let s = Shape(1, 1, 1)
        let g = IntegerGraph(tensors: [TensorSpec(name: "a", shape: s, storage: .wide, interval: iv(-10, 3)),
                                       TensorSpec(name: "b", shape: s, storage: .narrow, interval: iv(1, 20)),
                                       TensorSpec(name: "sum", shape: s, storage: .wide, interval: iv(0, 0)),
                                       TensorSpec(name: "cat", shape: Shape(2, 1, 1), storage: .wide, interval: iv(0, 0))],
                             nodes: [Node(op: .add, inputs: [0, 1], output: 2), Node(op: .concat, inputs: [0, 1], output: 3)],
                             inputs: [0, 1], outputs: [2, 3])
        let c = try CertificateVerifier.computeIntervals(g)
        XCTAssertEqual(c, [iv(-10, 3), iv(1, 20), iv(-9, 23), iv(-10, 20)])
    }

    func testInverseGDNInterval() throws {
        // x ∈ [−3, 3], q = 1, s = 1: sq ∈ [0, 4]. Channel 0: n ∈ [1, 9], r ∈ [1, 3], corners
        // ±9 → [rnd(−9, 1), rnd(9, 1)] = [−4, 5]. Channel 1: n ∈ [0, 8], r ∈ [0, 2] → [−3, 3].
        let p = InverseGDNParams(beta: [1, 0], gamma: [1, 1, 0, 2], squareShift: 1, outShift: 1)
        XCTAssertEqual(try interval(.inverseGDN(p), Shape(2, 1, 1), iv(-3, 3)), iv(-4, 5))
        // All positive input: sqlo = min(a², b²) >> q = 4 >> 1 = 2. n ∈ [1+2+2, 1+4+4] = [5, 9] → r ∈ [2, 3];
        // corners {2, 3}×{2, 3} → [4, 9] → [rnd(4,1), rnd(9,1)] = [2, 5]; channel 1: n ∈ [4, 8], r = 2 → [2, 3].
        XCTAssertEqual(try interval(.inverseGDN(p), Shape(2, 1, 1), iv(2, 3)), iv(2, 5))
    }

    // MARK: §5 rule 1: a lying certificate is refused

    func testCertificateOffByOneIsRefusedNamingTheTensor() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(2, 1, 1), storage: .narrow, interval: iv(-1, 4))
        let y = try b.conv2d(x, conv([2, -3], bias: [5]), name: "features")
        let z = try b.clamp(y, lo: 0, hi: 100, name: "relu")
        let good = try b.build(outputs: [z])
        XCTAssertNoThrow(try CertificateVerifier.verify(good))
        for delta in [Interval(lo: -1, hi: 0), Interval(lo: 1, hi: 0), Interval(lo: 0, hi: 1), Interval(lo: 0, hi: -1)] {
            var bad = good
            bad.tensors[y].interval.lo += delta.lo
            bad.tensors[y].interval.hi += delta.hi
            XCTAssertThrowsError(try CertificateVerifier.verify(bad)) { error in
                XCTAssertEqual(error as? GraphError, .certificateMismatch(
                    node: 0, op: "conv2d", tensor: y, name: "features", rule: "conv2d",
                    declared: bad.tensors[y].interval, computed: iv(-9, 16)))
                XCTAssertTrue("\(error)".contains("features"))
            }
        }
    }

    // MARK: §5 rule 2: storage

    func testIntervalsMustFitStorage() {
        let narrowIn = oneNode(.clamp(lo: 0, hi: 1), input: Shape(1, 1, 1), iv(-40000, 0), storage: .narrow)
        XCTAssertThrowsError(try CertificateVerifier.verify(narrowIn)) {
            XCTAssertEqual($0 as? GraphError, .storage(node: nil, op: nil, tensor: 0, name: "x", storage: .narrow, interval: iv(-40000, 0)))
        }
        let wideIn = oneNode(.clamp(lo: 0, hi: 1), input: Shape(1, 1, 1), iv(0, Int64(Int32.max) + 1))
        XCTAssertThrowsError(try CertificateVerifier.verify(wideIn)) {
            XCTAssertEqual($0 as? GraphError, .storage(node: nil, op: nil, tensor: 0, name: "x", storage: .wide,
                                                       interval: iv(0, Int64(Int32.max) + 1)))
        }
        let narrowOut = oneNode(.conv2d(conv([2], bias: [0])), input: Shape(1, 1, 1), iv(0, 20000), outStorage: .narrow)
        XCTAssertThrowsError(try CertificateVerifier.verify(narrowOut)) {
            XCTAssertEqual($0 as? GraphError, .storage(node: 0, op: "conv2d", tensor: 1, name: "y", storage: .narrow, interval: iv(0, 40000)))
        }
    }

    // MARK: §5 rule 3: intermediates

    func testConvAccumulatorOverflowIsRefused() {
        let full = iv(-32768, 32767)
        // Two terms reach ±2^31 − ~2^17: fine. Three do not fit.
        XCTAssertNoThrow(try CertificateVerifier.computeIntervals(
            oneNode(.conv2d(conv([32767, 32767], bias: [0])), input: Shape(2, 1, 1), full, storage: .narrow, output: Shape(1, 1, 1))))
        assertIntermediate(oneNode(.conv2d(conv([32767, 32767, 32767], bias: [0])), input: Shape(3, 1, 1), full,
                                   storage: .narrow, output: Shape(1, 1, 1)), "S_o")
        // S_o fits, b[o] + S_o does not.
        assertIntermediate(oneNode(.conv2d(conv([32767, 32767], bias: [200_000])), input: Shape(2, 1, 1), full,
                                   storage: .narrow, output: Shape(1, 1, 1)), "b[o] + S_o")
        // The same through a transposed conv with a 5×5 kernel: 25 taps of 2^30.
        let w = [Int16](repeating: 32767, count: 25)
        assertIntermediate(oneNode(.convTranspose2d(conv(w, bias: [0], k: 5, stride: 2, pad: 2, outputPad: 1)),
                                   input: Shape(1, 4, 4), full, storage: .narrow, output: Shape(1, 8, 8)), "S_o")
    }

    func testConvOverflowWithManyChannelsStopsEarly() {
        // 4096 input channels of huge terms: refused, and the partial sums never overflow Int64.
        let cin = 4096
        let w = [Int16](repeating: Int16.min, count: cin)
        assertIntermediate(oneNode(.conv2d(conv(w, bias: [Int32.max])), input: Shape(cin, 1, 1),
                                   iv(Int64(Int32.min), Int64(Int32.max)), output: Shape(1, 1, 1)), "S_o")
    }

    func testAddOverflowIsRefused() {
        let s = Shape(1, 1, 1)
        let g = IntegerGraph(tensors: [TensorSpec(name: "a", shape: s, storage: .wide, interval: iv(0, Int64(Int32.max))),
                                       TensorSpec(name: "y", shape: s, storage: .wide, interval: iv(0, 0))],
                             nodes: [Node(op: .add, inputs: [0, 0], output: 1)], inputs: [0], outputs: [1])
        assertIntermediate(g, "a + b")
    }

    func testRequantizeIntermediatesAreChecked() {
        let s = Shape(1, 1, 1)
        let full = iv(Int64(Int32.min), Int64(Int32.max))
        // x·m + 2^30 overflows at x = INT32_MAX.
        assertIntermediate(oneNode(.requantize(RequantizeParams(multiplier: [1], shift: [31], lo: -1, hi: 1)), input: s, full),
                           "x·m + 2^(s−1)")
        // Non-positive inputs are fine at shift 31.
        XCTAssertNoThrow(try CertificateVerifier.computeIntervals(
            oneNode(.requantize(RequantizeParams(multiplier: [1], shift: [31], lo: -1, hi: 1)), input: s, iv(Int64(Int32.min), 0))))
        assertIntermediate(oneNode(.requantize(RequantizeParams(multiplier: [Int32.max], shift: [31], lo: -1, hi: 1)), input: s, iv(0, 2)),
                           "x·m")
    }

    func testLookupOffsetOverflowIsRefused() {
        assertIntermediate(oneNode(.lookup(LookupParams(table: [1], offset: 1)), input: Shape(1, 1, 1), iv(Int64(Int32.min), 0)),
                           "x − offset")
    }

    func testInverseGDNLimits() {
        let s = Shape(1, 1, 1)
        let unit = InverseGDNParams(beta: [0], gamma: [1], squareShift: 0, outShift: 0)
        XCTAssertNoThrow(try CertificateVerifier.computeIntervals(oneNode(.inverseGDN(unit), input: s, iv(-46340, 46340))))
        XCTAssertThrowsError(try CertificateVerifier.computeIntervals(oneNode(.inverseGDN(unit), input: s, iv(-46341, 0)))) { error in
            guard case .intermediate(_, _, _, _, _, _, let bound, let allowed)? = error as? GraphError else { return XCTFail("\(error)") }
            XCTAssertEqual(bound, iv(-46341, 0))
            XCTAssertEqual(allowed, iv(-46340, 46340))
        }
        // n = beta + gamma·sq leaves int32.
        assertIntermediate(oneNode(.inverseGDN(InverseGDNParams(beta: [Int32.max], gamma: [1], squareShift: 0, outShift: 0)),
                                   input: s, iv(1, 1)), "n = beta")
        // x·isqrt(n) ≈ ±2^31 fits, + 2^30 does not.
        assertIntermediate(oneNode(.inverseGDN(InverseGDNParams(beta: [0], gamma: [1], squareShift: 0, outShift: 31)),
                                   input: s, iv(-46340, 46340)), "x·isqrt(n) + 2^(s−1)")
    }

    // MARK: §1 and §4: structure

    func testParameterRangesAreChecked() {
        let s = Shape(1, 4, 4)
        func convGraph(_ p: ConvParams, transposed: Bool = false) -> IntegerGraph {
            oneNode(transposed ? .convTranspose2d(p) : .conv2d(p), input: s, iv(0, 1))
        }
        assertNodeError(convGraph(conv([], bias: [0], k: 0)), "kernel")
        assertNodeError(convGraph(ConvParams(kernelH: 16, kernelW: 1, stride: 1, pad: 0, weights: [Int16](repeating: 0, count: 16), bias: [0])), "kernel")
        assertNodeError(convGraph(conv([1], bias: [0], stride: 0)), "stride")
        assertNodeError(convGraph(conv([1], bias: [0], stride: 9)), "stride")
        assertNodeError(convGraph(conv([Int16](repeating: 0, count: 9), bias: [0], k: 3, pad: 3)), "pad")
        assertNodeError(convGraph(ConvParams(kernelH: 3, kernelW: 1, stride: 1, pad: 1, weights: [0, 0, 0], bias: [0])), "pad")
        assertNodeError(convGraph(conv([1], bias: [0], pad: -1)), "pad")
        assertNodeError(convGraph(conv([1], bias: [0], stride: 2, outputPad: 1)), "output_pad")
        assertNodeError(convGraph(conv([1], bias: [0], stride: 2, outputPad: 2), transposed: true), "output_pad")
        assertNodeError(convGraph(conv([1, 2], bias: [0])), "weights")
        assertNodeError(convGraph(conv([], bias: [])), "bias")
        assertNodeError(oneNode(.conv2d(conv([Int16](repeating: 0, count: 25), bias: [0], k: 5)), input: Shape(1, 1, 1), iv(0, 1)),
                        "larger than padded input")
        assertNodeError(oneNode(.convTranspose2d(conv([Int16](repeating: 0, count: 9), bias: [0], k: 3, pad: 2)),
                                input: Shape(1, 1, 1), iv(0, 1)), "not positive")

        let one = Shape(1, 1, 1)
        assertNodeError(oneNode(.requantize(RequantizeParams(multiplier: [0], shift: [0], lo: 0, hi: 0)), input: one, iv(0, 1)), "multiplier")
        assertNodeError(oneNode(.requantize(RequantizeParams(multiplier: [1], shift: [32], lo: 0, hi: 0)), input: one, iv(0, 1)), "shift")
        assertNodeError(oneNode(.requantize(RequantizeParams(multiplier: [1], shift: [-1], lo: 0, hi: 0)), input: one, iv(0, 1)), "shift")
        assertNodeError(oneNode(.requantize(RequantizeParams(multiplier: [1, 1], shift: [0, 0], lo: 0, hi: 0)), input: one, iv(0, 1)), "channels")
        assertNodeError(oneNode(.requantize(RequantizeParams(multiplier: [1], shift: [0], lo: 1, hi: 0)), input: one, iv(0, 1)), "lo")
        assertNodeError(oneNode(.clamp(lo: 1, hi: 0), input: one, iv(0, 1)), "clamp_lo")
        assertNodeError(oneNode(.depthToSpace(block: 1), input: Shape(4, 1, 1), iv(0, 1)), "block")
        assertNodeError(oneNode(.depthToSpace(block: 2), input: Shape(6, 1, 1), iv(0, 1)), "block")
        assertNodeError(oneNode(.depthToSpace(block: Int.max), input: Shape(4, 1, 1), iv(0, 1)), "block")
        assertNodeError(oneNode(.lookup(LookupParams(table: [], offset: 0)), input: one, iv(0, 1)), "table length")
        assertNodeError(oneNode(.lookup(LookupParams(table: [Int32](repeating: 0, count: 65537), offset: 0)), input: one, iv(0, 1)),
                        "table length")
        assertNodeError(oneNode(.inverseGDN(InverseGDNParams(beta: [-1], gamma: [0], squareShift: 0, outShift: 0)), input: one, iv(0, 1)), "beta")
        assertNodeError(oneNode(.inverseGDN(InverseGDNParams(beta: [0], gamma: [-1], squareShift: 0, outShift: 0)), input: one, iv(0, 1)), "gamma")
        assertNodeError(oneNode(.inverseGDN(InverseGDNParams(beta: [0], gamma: [0, 0], squareShift: 0, outShift: 0)), input: one, iv(0, 1)), "gamma")
        assertNodeError(oneNode(.inverseGDN(InverseGDNParams(beta: [0], gamma: [0], squareShift: 31, outShift: 0)), input: one, iv(0, 1)), "square_shift")
        assertNodeError(oneNode(.inverseGDN(InverseGDNParams(beta: [0], gamma: [0], squareShift: 0, outShift: 32)), input: one, iv(0, 1)), "out_shift")
        assertNodeError(oneNode(.add, input: one, iv(0, 1)), "takes 2 inputs")
    }

    func testGraphStructureIsChecked() {
        let s = Shape(1, 1, 1)
        let t = { (name: String) in TensorSpec(name: name, shape: s, storage: .wide, interval: Interval(lo: 0, hi: 0)) }
        let clamp = Op.clamp(lo: 0, hi: 0)
        func refuses(_ g: IntegerGraph, _ expected: GraphError, line: UInt = #line) {
            XCTAssertThrowsError(try CertificateVerifier.verify(g), line: line) { XCTAssertEqual($0 as? GraphError, expected, line: line) }
        }
        refuses(IntegerGraph(tensors: [], nodes: [], inputs: [], outputs: []), .graph(problem: "has no tensors"))
        refuses(IntegerGraph(tensors: [t("a")], nodes: [], inputs: [], outputs: [0]), .graph(problem: "has no inputs (§1)"))
        refuses(IntegerGraph(tensors: [t("a")], nodes: [], inputs: [0], outputs: []), .graph(problem: "has no outputs (§1)"))
        refuses(IntegerGraph(tensors: [t("a")], nodes: [], inputs: [0, 0], outputs: [0]),
                .graph(problem: "tensor 0 'a' is listed as an input twice"))
        refuses(IntegerGraph(tensors: [t("a")], nodes: [], inputs: [1], outputs: [0]),
                .graph(problem: "input 0 names tensor 1; the graph has 1 tensors"))
        refuses(IntegerGraph(tensors: [t("a")], nodes: [], inputs: [0], outputs: [-1]),
                .graph(problem: "output 0 names tensor -1; the graph has 1 tensors"))
        // Reads before the write: nodes out of topological order.
        refuses(IntegerGraph(tensors: [t("a"), t("b"), t("c")],
                             nodes: [Node(op: clamp, inputs: [1], output: 2), Node(op: clamp, inputs: [0], output: 1)],
                             inputs: [0], outputs: [2]),
                .node(index: 0, op: "clamp", problem: "reads tensor 1 'b' before any node writes it (§1: topological order)"))
        refuses(IntegerGraph(tensors: [t("a"), t("b")],
                             nodes: [Node(op: clamp, inputs: [0], output: 1), Node(op: clamp, inputs: [0], output: 1)],
                             inputs: [0], outputs: [1]),
                .node(index: 1, op: "clamp", problem: "writes tensor 1 'b', which is already written by an earlier node (§1: single writer)"))
        refuses(IntegerGraph(tensors: [t("a")], nodes: [Node(op: clamp, inputs: [0], output: 0)], inputs: [0], outputs: [0]),
                .node(index: 0, op: "clamp", problem: "writes tensor 0 'a', which is a graph input (§1: single writer)"))
        refuses(IntegerGraph(tensors: [t("a"), t("b")], nodes: [], inputs: [0], outputs: [0]),
                .tensor(index: 1, name: "b", problem: "is neither a graph input nor written by any node (§1)"))
        refuses(IntegerGraph(tensors: [t("a"), t("b")], nodes: [Node(op: clamp, inputs: [0], output: 7)], inputs: [0], outputs: [1]),
                .node(index: 0, op: "clamp", problem: "output names tensor 7; the graph has 2 tensors"))
    }

    func testShapesAreInferredAndCompared() {
        let g = oneNode(.convTranspose2d(conv([Int16](repeating: 1, count: 25), bias: [0], k: 5, stride: 2, pad: 2, outputPad: 1)),
                        input: Shape(1, 3, 4), iv(0, 1), output: Shape(1, 6, 9))
        XCTAssertThrowsError(try CertificateVerifier.verify(g)) {
            XCTAssertEqual($0 as? GraphError, .shapeMismatch(node: 0, op: "conv_transpose2d", tensor: 1, name: "y",
                                                            declared: Shape(1, 6, 9), inferred: Shape(1, 6, 8)))
        }
    }

    func testTensorSizeLimit() {
        let limit = 1 << 28
        XCTAssertNotNil(GraphStructure.elementCount(limit, 1, 1))
        XCTAssertNil(GraphStructure.elementCount(limit + 1, 1, 1))
        XCTAssertNil(GraphStructure.elementCount(1 << 14, 1 << 14, 2))
        XCTAssertNil(GraphStructure.elementCount(Int.max, Int.max, 2))
        XCTAssertNil(GraphStructure.elementCount(0, 1, 1))
        let g = oneNode(.clamp(lo: 0, hi: 0), input: Shape(1 << 14, 1 << 14, 2), iv(0, 0))
        XCTAssertThrowsError(try CertificateVerifier.verify(g)) { error in
            guard case .tensor(0, "x", _)? = error as? GraphError else { return XCTFail("\(error)") }
        }
        let empty = oneNode(.clamp(lo: 0, hi: 0), input: Shape(1, 1, 1), iv(1, 0))
        XCTAssertThrowsError(try CertificateVerifier.verify(empty)) {
            XCTAssertEqual($0 as? GraphError, .tensor(index: 0, name: "x", problem: "interval [1, 0] is empty (lo > hi)"))
        }
    }

    func testErrorDescriptionsNameEverything() {
        let e = GraphError.certificateMismatch(node: 3, op: "conv2d", tensor: 7, name: "h1", rule: "conv2d",
                                               declared: iv(0, 9), computed: iv(0, 10))
        let text = e.description
        for part in ["node 3", "conv2d", "tensor 7", "'h1'", "[0, 9]", "[0, 10]", "§5"] {
            XCTAssertTrue(text.contains(part), "\(text) lacks \(part)")
        }
    }
}
