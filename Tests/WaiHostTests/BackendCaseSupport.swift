import XCTest
import TestSupport
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The seeded cases every backend is checked against the reference on. One generator for
/// all backend test classes, so each backend sees the same seeds and the same cases.
enum BackendCases {
    struct Labelled {
        var label: String
        var graph: IntegerGraph
        var inputs: [TensorValue]
    }

    /// Convolutions and transposed convolutions, narrow and wide.
    static func convolutions() throws -> [Labelled] {
        var rng = SplitMix64(seed: 0xC0_2D)
        return try (0..<48).map { k in
            labelled(k, try GraphCases.conv(&rng, transposed: k % 2 == 1, wide: k % 4 >= 2))
        }
    }

    /// Every elementwise op, alternating narrow and wide.
    static func elementwise() throws -> [Labelled] {
        var rng = SplitMix64(seed: 0xE1E)
        var result: [Labelled] = []
        for k in 0..<12 {
            let wide = k % 2 == 1
            for c in try [GraphCases.requantize(&rng, wide: wide), GraphCases.add(&rng, wide: wide),
                          GraphCases.clamp(&rng, wide: wide), GraphCases.depthToSpace(&rng, wide: wide),
                          GraphCases.concat(&rng, wide: wide), GraphCases.lookup(&rng, wide: wide)] {
                result.append(labelled(k, c))
            }
        }
        return result
    }

    /// Inverse GDN, both widths, with int16 and int32 intermediate math.
    static func inverseGDN() throws -> [Labelled] {
        var rng = SplitMix64(seed: 0x6D4)
        return try (0..<16).map { k in
            labelled(k, try GraphCases.inverseGDN(&rng, wide: k % 2 == 1, int16Math: k % 4 < 2))
        }
    }

    /// docs/gpu-kernels.md §8: inverse GDN over more than one weight window: 136 channels
    /// (17 groups of 4352 bytes of gamma: two 64 KiB windows; over a 4 KiB cap, each group
    /// its own window read from global memory) on 549 positions (two tiles, the second
    /// partial).
    static func inverseGDNWindows() throws -> Labelled {
        try inverseGDNCase(seed: 0x6D45, channels: 136, h: 9, w: 61)
    }

    /// 2050 channels: one group's gamma (65600 bytes) larger than any 64 KiB uniform window.
    static func inverseGDNLargeGroup() throws -> Labelled {
        try inverseGDNCase(seed: 0x6D46, channels: 2050, h: 1, w: 2)
    }

    private static func inverseGDNCase(seed: UInt64, channels c: Int, h: Int, w: Int) throws -> Labelled {
        var rng = SplitMix64(seed: seed)
        let gamma = (0..<(c * c)).map { _ in Int32(rng.int(0...3)) }
        let beta = (0..<c).map { _ in Int32(rng.int(0...(1 << 20))) }
        var b = GraphBuilder()
        let x = b.input("x", Shape(c, h, w), storage: .narrow, interval: Interval(lo: -300, hi: 300))
        let y = try b.inverseGDN(x, InverseGDNParams(beta: beta, gamma: gamma, squareShift: 4, outShift: 8))
        let input = GraphCases.values(&rng, count: c * h * w, Interval(lo: -300, hi: 300))
        return Labelled(label: "inverse_gdn \(c)×\(h)×\(w) over windows", graph: try b.build(outputs: [y]),
                        inputs: [TensorValue(shape: Shape(c, h, w), values: input)])
    }

    /// A standalone requantize on wide storage at every shift count, fed negative values and
    /// ties in both directions (docs/integer-ops.md §3).
    static func requantizeShifts() throws -> [Labelled] {
        let probes: [Int32] = [Int32.min, Int32.min + 1, -65537, -32769, -32768, -3, -2, -1, 0, 1, 2, 3, 32767, 65535]
        return try (0...31).map { s in
            let top = Int64(Int32.max) - (s == 0 ? 0 : Int64(1) << (s - 1))
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, 1, probes.count + 1), storage: .wide, interval: Interval(lo: Int64(Int32.min), hi: top))
            let y = try b.requantize(x, RequantizeParams(multiplier: [1], shift: [Int32(s)], lo: Int32.min, hi: Int32.max))
            let values = probes + [Int32(top)]
            return Labelled(label: "requantize shift \(s)", graph: try b.build(outputs: [y]),
                            inputs: [TensorValue(shape: Shape(1, 1, values.count), values: values)])
        }
    }

    /// Four distinct convolutions for runs that overlap (docs/backend-abi.md §8 rule 2).
    static func concurrentConvolutions() throws -> [GraphCases.Case] {
        var rng = SplitMix64(seed: 0xC0C0)
        return try (0..<4).map { k in try GraphCases.conv(&rng, transposed: k % 2 == 0, wide: k == 3) }
    }

    /// The int_hyper synthesis shape, small: four 5×5 stride-2 transposed convs (pad 2,
    /// output_pad 1) with requantize after each and inverse GDN between.
    static func synthesis() throws -> Labelled {
        var rng = SplitMix64(seed: 0x5A17)
        let channels = [24, 16, 16, 16, 3]
        var b = GraphBuilder()
        var x = b.input("y_hat", Shape(channels[0], 3, 4), storage: .narrow, interval: Interval(lo: -512, hi: 511))
        for l in 0..<4 {
            let cin = channels[l], cout = channels[l + 1]
            let weights = (0..<(cin * cout * 25)).map { _ in Int16(rng.int(-40...40)) }
            let bias = (0..<cout).map { _ in Int32(rng.int(-5000...5000)) }
            let conv = try b.convTranspose2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1,
                                                           weights: weights, bias: bias), name: "deconv\(l)")
            let mult = (0..<cout).map { _ in Int32(rng.int(1...3)) }
            x = try b.requantize(conv, RequantizeParams(multiplier: mult, shift: [Int32](repeating: 11, count: cout),
                                                        lo: -1024, hi: 1023))
            if l < 3 {
                let gamma = (0..<(cout * cout)).map { _ in Int32(rng.int(0...20)) }
                x = try b.inverseGDN(x, InverseGDNParams(beta: [Int32](repeating: 1 << 16, count: cout), gamma: gamma,
                                                         squareShift: 6, outShift: 9))
            }
        }
        let graph = try b.build(outputs: [x])
        let input = GraphCases.values(&rng, count: channels[0] * 12, Interval(lo: -512, hi: 511))
        return Labelled(label: "synthesis", graph: graph, inputs: [TensorValue(shape: Shape(channels[0], 3, 4), values: input)])
    }

    /// The tiled convolution's edges (docs/gpu-kernels.md §4): outputs that end inside a tile
    /// on every axis (rows 4k + 1, columns 64k + 3, phase extents below a tile), channel counts
    /// across the 8-channel register block (1, 7, 9, 17), input channels across a staged chunk,
    /// phases with no tap at all (1×1 and 3×3 kernels at stride 2, stride 3), stride-2
    /// transposed borders with output_pad, the direct kernel of windows too large to stage,
    /// wide storage, and the fused requantize epilogue.
    static func tiledConvolutionEdges() throws -> [Labelled] {
        struct Shape5 { var transposed: Bool, cin: Int, cout: Int, h: Int, w: Int, k: Int, stride: Int, pad: Int, outputPad: Int
                        var wide = false, fused = false }
        let shapes: [(String, Shape5)] = [
            ("3×3 s1 partial rows and columns, 9 channels, 11 inputs over a 10-channel chunk",
             Shape5(transposed: false, cin: 11, cout: 9, h: 5, w: 67, k: 3, stride: 1, pad: 1, outputPad: 0)),
            ("5×5 s2, 3 inputs over 2-channel chunks, 16 channels, fused requantize",
             Shape5(transposed: false, cin: 3, cout: 16, h: 9, w: 133, k: 5, stride: 2, pad: 2, outputPad: 0, fused: true)),
            ("15×15 s4: direct kernel, 7 channels, wide",
             Shape5(transposed: false, cin: 2, cout: 7, h: 21, w: 71, k: 15, stride: 4, pad: 3, outputPad: 0, wide: true)),
            ("1×1 s1, 1 channel, a 1×1 picture",
             Shape5(transposed: false, cin: 1, cout: 1, h: 1, w: 1, k: 1, stride: 1, pad: 0, outputPad: 0)),
            ("transposed 5×5 s2 op1: phase tiles partial, 17 inputs, 9 channels, fused",
             Shape5(transposed: true, cin: 17, cout: 9, h: 3, w: 35, k: 5, stride: 2, pad: 2, outputPad: 1, fused: true)),
            ("transposed 5×5 s2 op0: odd output sizes, borders on both sides, 129 columns",
             Shape5(transposed: true, cin: 4, cout: 8, h: 5, w: 65, k: 5, stride: 2, pad: 2, outputPad: 0)),
            ("transposed 3×3 s2 p1 op1: phases with 2 and 1 taps, wide",
             Shape5(transposed: true, cin: 5, cout: 7, h: 4, w: 33, k: 3, stride: 2, pad: 1, outputPad: 1, wide: true)),
            ("transposed 1×1 s2 op1: phases without taps are the bias",
             Shape5(transposed: true, cin: 3, cout: 17, h: 3, w: 5, k: 1, stride: 2, pad: 0, outputPad: 1)),
            ("transposed 4×4 s3 p1 op2",
             Shape5(transposed: true, cin: 6, cout: 1, h: 6, w: 23, k: 4, stride: 3, pad: 1, outputPad: 2)),
            // docs/gpu-kernels.md §2: a group's weights past a 64 KiB uniform window, and
            // groups split over two windows of one phase.
            ("5×5 s1, 180 inputs: one group's weights exceed a 64 KiB window, 12 channels",
             Shape5(transposed: false, cin: 180, cout: 12, h: 3, w: 37, k: 5, stride: 1, pad: 2, outputPad: 0)),
            ("transposed 5×5 s2, 128 inputs, 32 channels: a phase's groups over two windows",
             Shape5(transposed: true, cin: 128, cout: 32, h: 2, w: 5, k: 5, stride: 2, pad: 2, outputPad: 1)),
        ]
        var rng = SplitMix64(seed: 0x711E)
        return try shapes.map { label, c in
            let storage: Storage = c.wide ? .wide : .narrow
            let iv = c.wide ? Interval(lo: -70_000, hi: 70_000) : Interval(lo: -1000, hi: 1000)
            var b = GraphBuilder()
            let x = b.input("x", Shape(c.cin, c.h, c.w), storage: storage, interval: iv)
            let weights = (0..<(c.cin * c.cout * c.k * c.k)).map { _ in Int16(rng.int(-60...60)) }
            let bias = (0..<c.cout).map { _ in Int32(rng.int(-9000...9000)) }
            let params = ConvParams(kernelH: c.k, kernelW: c.k, stride: c.stride, pad: c.pad, outputPad: c.outputPad,
                                    weights: weights, bias: bias)
            var y = c.transposed ? try b.convTranspose2d(x, params, storage: .wide) : try b.conv2d(x, params, storage: .wide)
            if c.fused {
                let mult = (0..<c.cout).map { _ in Int32(rng.int(1...5)) }
                let shift = (0..<c.cout).map { _ in Int32(rng.int(0...12)) }
                y = try b.requantize(y, RequantizeParams(multiplier: mult, shift: shift, lo: -2000, hi: 2000))
            }
            let input = GraphCases.values(&rng, count: c.cin * c.h * c.w, iv)
            return Labelled(label: "tiled edge: " + label, graph: try b.build(outputs: [y]),
                            inputs: [TensorValue(shape: Shape(c.cin, c.h, c.w), values: input)])
        }
    }

    private static func labelled(_ k: Int, _ c: GraphCases.Case) -> Labelled {
        Labelled(label: "case \(k) \(c.name)", graph: c.graph, inputs: c.inputs)
    }

    /// isqrt at the top of int32 (n up to 2^31 − 1, where a float estimate is off and
    /// (r + 1)² is near 2^32) and at perfect squares ± 1: gamma 0, so n = beta exactly and
    /// y = rnd(x·isqrt(beta), 0) = ±isqrt(beta).
    static func squareRootEdges() throws -> Labelled {
        let roots: [Int64] = [0, 1, 2, 3, 4095, 4096, 46339, 46340]
        var beta: [Int32] = []
        for r in roots { beta += [Int32(r * r), Int32(max(0, r * r - 1)), Int32(min(Int64(Int32.max), r * r + 1))] }
        beta += [Int32.max, Int32.max - 1, 2_147_395_599, 2_147_395_600, 2_147_395_601]
        var b = GraphBuilder()
        let x = b.input("x", Shape(beta.count, 1, 2), storage: .narrow, interval: Interval(lo: -1, hi: 1))
        let y = try b.inverseGDN(x, InverseGDNParams(beta: beta, gamma: [Int32](repeating: 0, count: beta.count * beta.count),
                                                     squareShift: 0, outShift: 0))
        let values = (0..<beta.count).flatMap { _ in [Int32(1), Int32(-1)] }
        return Labelled(label: "isqrt edges", graph: try b.build(outputs: [y]),
                        inputs: [TensorValue(shape: Shape(beta.count, 1, 2), values: values)])
    }

    /// A unit to check: its label (device and storage mode), the loaded plugin, the unit index.
    typealias Target = (String, BackendPlugin, Int)

    /// Every target gives the reference's integers for the graph, on two runs of one prepared
    /// graph (buffers and recorded work are reused across runs). One definition for every
    /// plugin backend's tests.
    static func assertExact(_ name: String, _ graph: IntegerGraph, _ inputs: [TensorValue], on targets: [Target],
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
        for (label, plugin, unit) in targets {
            let prepared: PreparedGraph
            do { prepared = try plugin.prepare(unit: unit, graph: graph) } catch {
                XCTFail("\(name) [\(label)]: prepare failed: \(error)", file: file, line: line)
                continue
            }
            for run in 0..<2 {
                let got = try prepared.run(inputs)
                XCTAssertEqual(got.count, expected.count, file: file, line: line)
                for (k, (e, g)) in zip(expected, got).enumerated() {
                    XCTAssertEqual(g.shape, e.shape, "\(name) [\(label)] output \(k)", file: file, line: line)
                    XCTAssertEqual(g.values.count, e.values.count, "\(name) [\(label)] output \(k)", file: file, line: line)
                    if let i = e.values.indices.first(where: { $0 < g.values.count && e.values[$0] != g.values[$0] }) {
                        XCTFail("\(name) [\(label)] run \(run) output \(k) element \(i): expected \(e.values[i]), got \(g.values[i])",
                                file: file, line: line)
                    }
                }
            }
        }
    }

    /// Every case on every target.
    static func assertExact(_ cases: [Labelled], on targets: [Target], file: StaticString = #filePath, line: UInt = #line) throws {
        for c in cases { try assertExact(c.label, c.graph, c.inputs, on: targets, file: file, line: line) }
    }

    /// docs/backend-abi.md §8: the concurrentConvolutions graphs, each prepared once on unit
    /// 0, run `repeats` times each, all at once; every last result is the reference's.
    static func assertConcurrentRuns(on plugin: BackendPlugin, repeats: Int,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let cases = try concurrentConvolutions()
        let expected = try cases.map { try ReferenceInterpreter.run($0.graph, inputs: $0.inputs) }
        let prepared = try cases.map { try plugin.prepare(unit: 0, graph: $0.graph) }
        let results = Locked<[Result<[TensorValue], Error>?]>(Array(repeating: nil, count: cases.count))
        DispatchQueue.concurrentPerform(iterations: cases.count) { k in
            for _ in 0..<repeats {
                let r = Result { try prepared[k].run(cases[k].inputs) }
                results.update { $0[k] = r }
            }
        }
        for (k, r) in results.value.enumerated() {
            let got = try XCTUnwrap(r, "\(cases[k].name): no run finished", file: file, line: line)
            XCTAssertEqual(try got.get().map(\.values), expected[k].map(\.values), cases[k].name, file: file, line: line)
        }
    }
}
