import BackendABI
import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime

/// The warp (docs/integer-ops.md §4.10) end to end: the reference against a case computed
/// by hand from the spec, the certificate's rule (§5), the container, the region engine
/// (not spatially local, docs/probe.md §7) and spot checks, the CPU, OpenCL and Vulkan
/// backends against the reference. (A backend without the op, accepted for the others:
/// CPluginProbeTests, the plain-C backend's ABI 1.0 build.)
final class WarpTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    /// S = 2, C = 1, 2×3, F = 1 (E = 2, E³ = 8). Per position, from §4.10:
    /// (0,0) dx ½: X = 1, blend cols 0,1 of scale 0: acc = 2·2·(0 + 10) = 40 → rnd(40, 3) = 5.
    /// (0,1) dx ½, dy ½, ds ½: all eight weights 1: acc = (10+20+41+50) + (110+120+140−51) = 440 → 55.
    /// (0,2) dx 2½, dy −1½, ds 2½: clamped to col 2, row 0, scale 1 → 120.
    /// (1,0) dx −½, ds −½: X clamped to 0 before splitting (fraction 0) → 30, not a blend (35).
    /// (1,1) dx ½ over 41, 50: acc = 4·91 = 364 → (364 + 4) >> 3 = 46 (tie 45½ toward +∞).
    /// (1,2) ds ½ over 50, −51: acc = 4·(50 − 51) = −4 → (−4 + 4) >> 3 = 0 (tie −½ toward +∞).
    static func handCase() throws -> (IntegerGraph, [TensorValue], [Int32]) {
        var b = GraphBuilder()
        let v = b.input("volume", Shape(2, 2, 3), storage: .narrow, interval: Interval(lo: -51, hi: 140))
        let f = b.input("flow", Shape(3, 2, 3), storage: .narrow, interval: Interval(lo: -3, hi: 5))
        let y = try b.warp(v, f, WarpParams(scales: 2, fracBits: 1), name: "y")
        let graph = try b.build(outputs: [y])
        let volume: [Int32] = [0, 10, 20, 30, 41, 50, 100, 110, 120, 130, 140, -51]
        let flow: [Int32] = [1, 1, 5, -1, 1, 0, /* dy */ 0, 1, -3, 0, 0, 0, /* ds */ 0, 1, 5, -1, 0, 1]
        return (graph, [TensorValue(shape: Shape(2, 2, 3), values: volume), TensorValue(shape: Shape(3, 2, 3), values: flow)],
                [5, 55, 120, 30, 46, 0])
    }

    func testReferenceComputesTheHandWorkedCase() throws {
        let (graph, inputs, expected) = try Self.handCase()
        XCTAssertEqual(graph.tensors[graph.outputs[0]].shape, Shape(1, 2, 3))
        XCTAssertEqual(graph.tensors[graph.outputs[0]].interval, Interval(lo: -51, hi: 140), "§5: the volume's interval")
        XCTAssertEqual(try ReferenceInterpreter.run(graph, inputs: inputs)[0].values, expected)
    }

    func testZeroFlowIsTheIdentityOnScaleZero() throws {
        let c = try WarpCases.zeroFlowIdentity()
        let y = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)[0]
        XCTAssertEqual(y.values, Array(c.inputs[0].values.prefix(y.values.count)))
    }

    /// §5: the accumulator bound decides how many fractional bits a volume allows, and the
    /// coordinates must fit int32; §4.10's structure rules name what is wrong.
    func testCertificateAndStructureRefuseWhatDoesNotFit() throws {
        func build(volume: Interval, flow: Interval, fracBits: Int, scales: Int = 2, vShape: Shape = Shape(2, 4, 4),
                   fShape: Shape = Shape(3, 4, 4)) throws -> IntegerGraph {
            var b = GraphBuilder()
            let v = b.input("volume", vShape, storage: .wide, interval: volume)
            let f = b.input("flow", fShape, storage: .wide, interval: flow)
            let y = try b.warp(v, f, WarpParams(scales: scales, fracBits: fracBits))
            return try b.build(outputs: [y])
        }
        let narrow = Interval(lo: -32768, hi: 32767)
        XCTAssertNoThrow(try build(volume: narrow, flow: Interval(lo: -64, hi: 64), fracBits: 5))
        XCTAssertThrowsError(try build(volume: narrow, flow: Interval(lo: -64, hi: 64), fracBits: 6)) {
            XCTAssertTrue("\($0)".contains("partial sums of acc"), "\($0)")
        }
        // F = 10, v ∈ [−2, 1]: acc reaches exactly INT32_MIN, allowed; v down to −3 is not.
        XCTAssertNoThrow(try build(volume: Interval(lo: -2, hi: 1), flow: Interval(lo: 0, hi: 0), fracBits: 10))
        XCTAssertThrowsError(try build(volume: Interval(lo: -3, hi: 1), flow: Interval(lo: 0, hi: 0), fracBits: 10))
        XCTAssertThrowsError(try build(volume: Interval(lo: 0, hi: 1), flow: Interval(lo: 0, hi: Int64(Int32.max) - 1), fracBits: 1)) {
            XCTAssertTrue("\($0)".contains("sample coordinates"), "\($0)")
        }
        XCTAssertThrowsError(try build(volume: narrow, flow: Interval(lo: 0, hi: 0), fracBits: 11)) {
            XCTAssertTrue("\($0)".contains("frac_bits 11 outside 0…10"), "\($0)")
        }
        XCTAssertThrowsError(try build(volume: narrow, flow: Interval(lo: 0, hi: 0), fracBits: 1, scales: 3)) {
            XCTAssertTrue("\($0)".contains("not a multiple of 3 scales"), "\($0)")
        }
        XCTAssertThrowsError(try build(volume: narrow, flow: Interval(lo: 0, hi: 0), fracBits: 1, fShape: Shape(2, 4, 4))) {
            XCTAssertTrue("\($0)".contains("3×4×4 expected"), "\($0)")
        }
    }

    func testContainerRoundTrip() throws {
        let (graph, inputs, expected) = try Self.handCase()
        let decoded = try ModelContainer.decode(ModelContainer.encode(graph), source: "warp")
        XCTAssertEqual(decoded, graph)
        XCTAssertEqual(try ReferenceInterpreter.run(decoded, inputs: inputs)[0].values, expected)
    }

    /// A conv feeding the volume, then the warp: every window the region engine evaluates
    /// equals the whole reference run (the volume's window is the whole plane, §7), and
    /// tiling planning refuses the graph by name instead of tiling it wrongly.
    func testRegionEngineWindowsEqualTheWholeRun() throws {
        var rng = SplitMix64(seed: 0x57_4150)
        let (h, w) = (7, 9)
        var b = GraphBuilder()
        // One input (what tiling plans): the flow is a clamp of it, the volume a conv of it.
        let x = b.input("x", Shape(3, h, w), storage: .narrow, interval: Interval(lo: -100, hi: 100))
        let f = try b.clamp(x, lo: -40, hi: 40, name: "flow")
        let weights = (0..<54).map { _ in Int16(rng.int(-3...3)) }
        let vol = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1, weights: weights, bias: [0, 5]))
        let y = try b.warp(vol, f, WarpParams(scales: 2, fracBits: 3), name: "y")
        let graph = try b.build(outputs: [y])
        let inputs = [TensorValue(shape: Shape(3, h, w), values: ProbeGraphs.values(&rng, count: 3 * h * w, in: Interval(lo: -100, hi: 100)))]
        let whole = try ReferenceInterpreter.run(graph, inputs: inputs)[0]
        let need = RegionEngine.requiredWindows(graph, output: y, window: Window(rows: 2..<4, cols: 3..<5))
        XCTAssertEqual(need[vol], Window(rows: 0..<h, cols: 0..<w), "the volume: the whole plane")
        XCTAssertEqual(need[f], Window(rows: 2..<4, cols: 3..<5), "the flow: the window itself")
        for window in [Window(rows: 0..<2, cols: 0..<2), Window(rows: 2..<4, cols: 3..<5), Window(rows: 3..<7, cols: 5..<9)] {
            let got = try RegionEngine.evaluate(graph, inputs: inputs, output: y, window: window)
            let full = WindowValue(window: Window(rows: 0..<h, cols: 0..<w), channels: 1, values: whole.values)
            XCTAssertEqual(got.values, full.crop(window), "\(window)")
        }
        XCTAssertThrowsError(try SpatialExtents.of(graph, input: Extent(height: h, width: w))) {
            XCTAssertTrue("\($0)".contains("not spatially local"), "\($0)")
        }
        XCTAssertNil(SpatialExtents.offsets(graph, origin: (0, 0)))
    }

    /// A window evaluation reads the volume only where the window's own flows reach
    /// (docs/probe.md §7): small flows need a small volume window (so a spot check of a
    /// 640×360 P-frame does not recompute its whole scale-space volume), flows that point
    /// far past the borders are clamped there, and in both cases every window equals the
    /// whole reference run.
    func testWindowEvaluationReadsTheVolumeOnlyWhereTheFlowsReach() throws {
        var rng = SplitMix64(seed: 0x52_4541)
        let (h, w) = (40, 52)
        for (limit, fracBits) in [(8, 3), (700, 3), (1 << 12, 6)] {
            var b = GraphBuilder()
            let x = b.input("x", Shape(3, h, w), storage: .narrow, interval: Interval(lo: -100, hi: 100))
            let f = try b.requantize(x, RequantizeParams(multiplier: [Int32](repeating: Int32(max(1, limit / 100)), count: 3),
                                                         shift: [0, 0, 0], lo: Int32(-limit), hi: Int32(limit)), name: "flow")
            let weights = (0..<(2 * 3 * 25)).map { _ in Int16(rng.int(-3...3)) }
            let blurred = try b.conv2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 1, pad: 2, weights: weights, bias: [0, 5]))
            let mixed = try b.conv2d(blurred, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1,
                                                         weights: (0..<36).map { _ in Int16(rng.int(-2...2)) }, bias: [1, -1]))
            let vol = try b.clamp(mixed, lo: -2000, hi: 2000, name: "volume")  // E³·2000 fits int32 at F = 6
            let y = try b.warp(vol, f, WarpParams(scales: 2, fracBits: fracBits), name: "y")
            let graph = try b.build(outputs: [y])
            let inputs = [TensorValue(shape: Shape(3, h, w), values: ProbeGraphs.values(&rng, count: 3 * h * w,
                                                                                         in: Interval(lo: -100, hi: 100)))]
            let whole = try ReferenceInterpreter.run(graph, inputs: inputs)[0]
            let full = WindowValue(window: Window(rows: 0..<h, cols: 0..<w), channels: 1, values: whole.values)
            let windows = [Window(rows: 20..<22, cols: 30..<32), Window(rows: 0..<4, cols: 0..<4),
                           Window(rows: (h - 4)..<h, cols: (w - 4)..<w), Window(rows: 7..<9, cols: 44..<46)]
            for window in windows {
                let got = try RegionEngine.evaluate(graph, inputs: inputs, output: y, window: window)
                XCTAssertEqual(got.values, full.crop(window), "flows within ±\(limit) at F \(fracBits), \(window)")
            }
            if limit == 8 {  // ±1 column and row: the reach is the window and one sample around it
                let window = windows[0]
                let flow = try RegionEngine.evaluate(graph, inputs: inputs, output: f, window: window)
                let reach = ReferenceKernels.warpReach(flow: flow.values, graph.tensors[vol].shape,
                                                       WarpParams(scales: 2, fracBits: fracBits), rows: window.rows, cols: window.cols)
                XCTAssertTrue(reach.rows.lowerBound >= 19 && reach.rows.upperBound <= 24 && reach.cols.lowerBound >= 29
                              && reach.cols.upperBound <= 34, "\(reach)")
                let plan = try RegionEngine.evaluationPlan(graph, inputs: inputs, output: y, window: window, cache: nil)
                XCTAssertEqual(plan[vol], reach, "the volume is evaluated where the flows reach, not whole")
                XCTAssertEqual(plan[x], Window(rows: (reach.rows.lowerBound - 3)..<(reach.rows.upperBound + 3),
                                               cols: (reach.cols.lowerBound - 3)..<(reach.cols.upperBound + 3)),
                               "through the 3×3 and 5×5 convs: 3 more on every side (and the flow's window inside)")
            }
        }
    }

    /// Spot checks on a graph with a warp (docs/probe.md §7): a unit that passes the probe
    /// and goes wrong after 40 runs of a prepared graph (each row's last partial vector of 8
    /// copied from the row above) is checked on every run — the volume's whole plane on the
    /// reference — and demoted on the first wrong one, whose bytes are never returned.
    func testSpotChecksOfAWarpGraphCatchAUnitThatGoesWrong() throws {
        let dir = try HostTestSupport.temporaryDirectory("warp-after-runs")
        let b = CPluginBuilder.shared
        try b.compile(source: b.packageRoot + "/Tests/CPlugins/defect_backend.c",
                      output: dir + "/" + DefectVariant.afterRuns.fileName,
                      flags: ["-I", b.includeDir, "-DDEFECT_AFTER_RUNS", "-DAFTER_RUNS_LIMIT=40"])
        let host = BackendHost(configuration: HostTestSupport.configuration(
            plugins: [dir], cache: try HostTestSupport.temporaryDirectory("warp-after-runs-cache"), timeout: 600))
        XCTAssertEqual(try host.probe(fresh: true).accepted.map(\.backend), ["defect-after-runs"])

        // 13 columns: each row ends in a partial vector of 5. One input: the flow a clamp
        // of it, the volume a conv of it.
        let (h, w) = (9, 13)
        var g = GraphBuilder()
        let x = g.input("x", Shape(3, h, w), storage: .narrow, interval: Interval(lo: -60, hi: 60))
        let flow = try g.clamp(x, lo: -50, hi: 50, name: "flow")
        var rng = SplitMix64(seed: 0x5350_4F54)
        let weights = (0..<(4 * 3 * 9)).map { _ in Int16(rng.int(-4...4)) }
        let volume = try g.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1, weights: weights, bias: [0, 1, 2, 3]))
        let y = try g.warp(volume, flow, WarpParams(scales: 2, fracBits: 3), name: "y")
        let graph = try g.build(outputs: [y])
        var demotion: RunReport?
        for run in 1...41 {
            let input = TensorValue(shape: Shape(3, h, w), values: (0..<(3 * h * w)).map { _ in rng.int32(-60, 60) })
            let (outputs, report) = try host.run(graph, inputs: [input], on: .best)
            XCTAssertEqual(outputs, try ReferenceInterpreter.run(graph, inputs: [input]), "run \(run): never wrong bytes")
            if run <= 40 {
                XCTAssertEqual(report.backend, "defect-after-runs", "run \(run)")
                XCTAssertNotNil(report.spotCheckCPUMilliseconds, "run \(run) was checked")
            } else {
                demotion = report
            }
        }
        let r = try XCTUnwrap(demotion)
        XCTAssertEqual(r.dispatch, .unitDemoted, r.reason)
        XCTAssertTrue(r.reason.contains("demoted by a spot check") && r.reason.contains("tensor y"), r.reason)
    }

    /// Every unit of the CPU backend (and its one-thread scalar path) against the reference:
    /// the probe's warp graphs and larger seeded ones spanning several row tasks.
    func testCPUBackendMatchesTheReference() throws {
        let units = try CPUBackendTests.backends()
        let (graph, inputs, _) = try Self.handCase()
        try CPUBackendTests.assertExact("warp_hand_case", graph, inputs, on: units)
        for c in try WarpCases.semantics() + WarpCases.arithmetic() + WarpCases.scale() {
            try CPUBackendTests.assertExact(c.name, c.graph, c.inputs, on: units)
        }
        var rng = SplitMix64(seed: 0x4350_5557)
        for k in 0..<6 {
            let c = try WarpCases.random(&rng, narrow: k % 2 == 0, name: "warp_random_\(k)")
            try CPUBackendTests.assertExact(c.name, c.graph, c.inputs, on: units)
        }
        // A larger case: 3 channels, 6 scales, 37×53, F = 4: many row tasks, every pool thread.
        var b = GraphBuilder()
        let (h, w) = (37, 53)
        let v = b.input("volume", Shape(18, h, w), storage: .narrow, interval: Interval(lo: 0, hi: 255))
        let f = b.input("flow", Shape(3, h, w), storage: .narrow, interval: Interval(lo: -300, hi: 300))
        let y = try b.warp(v, f, WarpParams(scales: 6, fracBits: 4))
        try CPUBackendTests.assertExact("warp_frame", try b.build(outputs: [y]),
                                        [TensorValue(shape: Shape(18, h, w), values: ProbeGraphs.values(&rng, count: 18 * h * w, in: Interval(lo: 0, hi: 255))),
                                         TensorValue(shape: Shape(3, h, w), values: ProbeGraphs.values(&rng, count: 3 * h * w, in: Interval(lo: -300, hi: 300)))],
                                        on: units)
    }

    /// The GPU backends' warp kernels (PoCL and lavapipe in CI) against the reference on the
    /// probe's warp graphs and the hand case, at both storage widths (WAI_OPENCL_NARROW,
    /// WAI_VULKAN_NARROW). A machine without the drivers fails here, as their own tests do.
    func testGPUBackendsMatchTheReference() throws {
        // The OpenCL program is built into a folder of this test's, never the user's cache.
        setenv("WAI_OPENCL_CACHE_DIR", try HostTestSupport.temporaryDirectory("warp-opencl-programs"), 1)
        defer { unsetenv("WAI_OPENCL_CACHE_DIR") }
        var targets: [BackendCases.Target] = []
        for (file, variable) in [("libWaiOpenCLBackend.so", "WAI_OPENCL_NARROW"), ("libWaiVulkanBackend.so", "WAI_VULKAN_NARROW")] {
            for narrow in [true, false] {
                setenv(variable, narrow ? "1" : "0", 1)
                defer { unsetenv(variable) }
                let plugin = try BackendPlugin.load(path: TestPaths.product(file))
                let units = try plugin.units()
                XCTAssertFalse(units.isEmpty, "\(file) lists no unit")
                targets += units.map { ("\(file) \($0.device) [\(narrow ? "narrow" : "int32")]", plugin, $0.index) }
            }
        }
        let (graph, inputs, _) = try Self.handCase()
        try BackendCases.assertExact("warp_hand_case", graph, inputs, on: targets)
        for c in try WarpCases.semantics() + WarpCases.arithmetic() + WarpCases.scale() {
            try BackendCases.assertExact(c.name, c.graph, c.inputs, on: targets)
        }
    }
}
