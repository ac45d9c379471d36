import BackendABI
import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities
#if canImport(Glibc)
import Glibc
#endif

/// The CPU backend plugin (Plugins/CPUBackend, libWaiCPUBackend.so) against the reference
/// interpreter: every op of docs/integer-ops.md §4 at both widths, seeded random shapes and
/// parameters, on every instruction-set path this CPU has, compared for equality.
///
/// Every path the CPU runs is a unit of the backend (Plugins/CPUBackend/README.md, "Units"),
/// so the exactness tests run every unit of one backend opened with WAI_CPU_ISA unset. The
/// plugin reads WAI_CPU_ISA when a backend object is opened, so a backend restricted to one
/// path is its own `BackendPlugin.load` with the variable set (dlopen hands back the same
/// library; `open` makes a new backend object). A path the CPU lacks makes `open` answer
/// `unsupported`, and that path is skipped for this machine.
final class CPUBackendTests: XCTestCase {
    static let isaPaths = ["scalar", "avx2", "avx512", "amx"]
    /// The name each path has in the unit's driver string.
    static let driverNames = ["scalar": "scalar", "avx2": "avx2", "avx512": "avx512-vnni", "amx": "amx-int8"]

    struct MissingPlugin: Error, CustomStringConvertible {
        let path: String
        let product: String
        var description: String {
            "\(path) is missing: the CPU backend is built beside the test bundle by `swift build` (product \(product))"
        }
    }

    /// .build/<config>/libWaiCPUBackend.so: the test bundle sits in the same folder, and the
    /// test command builds every product first. Missing: the test fails saying so. With
    /// `emulated`, the same backend over emulated AVX-512 and AMX intrinsics
    /// (Tests/EmulatedCPUBackend, libWaiCPUBackendEmulated.so).
    static func requirePlugin(emulated: Bool = false) throws -> String {
        let product = emulated ? "WaiCPUBackendEmulated" : "WaiCPUBackend"
        let path = TestPaths.product("lib\(product).so")
        guard FileManager.default.fileExists(atPath: path) else { throw MissingPlugin(path: path, product: product) }
        return path
    }

    /// The backend opened with WAI_CPU_ISA (and optionally WAI_CPU_THREADS) set; nil when
    /// this CPU lacks the path (the emulated backend has the AVX-512 and AMX paths on any CPU).
    static func load(isa: String?, threads: String? = nil, emulated: Bool = false) throws -> BackendPlugin? {
        let path = try requirePlugin(emulated: emulated)
        if let isa { setenv("WAI_CPU_ISA", isa, 1) } else { unsetenv("WAI_CPU_ISA") }
        if let threads { setenv("WAI_CPU_THREADS", threads, 1) } else { unsetenv("WAI_CPU_THREADS") }
        defer { unsetenv("WAI_CPU_ISA"); unsetenv("WAI_CPU_THREADS") }
        do {
            return try BackendPlugin.load(path: path)
        } catch PluginError.callFailed(_, "open", "unsupported", _) {
            return nil
        }
    }

    /// A unit to run graphs on: a backend, one of its unit indices, and a label for messages.
    struct TestUnit {
        var label: String
        var plugin: BackendPlugin
        var unit: Int
    }

    /// Every unit of the backend with every path this CPU runs, plus the scalar path on one
    /// thread (the pool's inline case).
    /// The AVX-512 and AMX paths this CPU lacks come from the emulated backend, so their
    /// logic is checked on every machine (EmulatedCPUBackendTests); where the CPU has a
    /// path, its real instructions are the ones checked.
    static func backends() throws -> [TestUnit] {
        let all = try XCTUnwrap(try Self.load(isa: nil))
        let units = try all.units()
        var result = units.map { TestUnit(label: $0.driver, plugin: all, unit: $0.index) }
        if let p = try Self.load(isa: "scalar", threads: "1") { result.append(TestUnit(label: "scalar/1 thread", plugin: p, unit: 0)) }
        XCTAssertGreaterThanOrEqual(result.count, 2, "the scalar path always exists")
        for isa in ["amx", "avx512"] where !units.contains(where: { $0.driver.hasSuffix(" " + (driverNames[isa] ?? isa)) }) {
            let p = try XCTUnwrap(try Self.load(isa: isa, emulated: true), "the emulated backend offers \(isa) on any CPU")
            result.append(TestUnit(label: try p.units()[0].driver, plugin: p, unit: 0))
        }
        return result
    }

    /// Runs `graph` on every unit and compares every output element with the reference.
    static func assertExact(_ name: String, _ graph: IntegerGraph, _ inputs: [TensorValue],
                     on backends: [TestUnit], file: StaticString = #filePath, line: UInt = #line) throws {
        try BackendCases.assertExact(name, graph, inputs, on: backends.map { ($0.label, $0.plugin, $0.unit) }, file: file, line: line)
    }

    // MARK: - the unit and the ABI surface

    func testUnitNamesTheCPUAndTheChosenPath() throws {
        for isa in Self.isaPaths {
            guard let plugin = try Self.load(isa: isa, threads: "3") else { continue }
            XCTAssertEqual(plugin.name, "cpu")
            let units = try plugin.units()
            XCTAssertEqual(units.count, 1)
            XCTAssertEqual(units[0].kind, .cpu)
            XCTAssertTrue(units[0].narrowStorage)
            XCTAssertTrue(units[0].device.hasSuffix("(3 threads)"), units[0].device)
            XCTAssertEqual(units[0].driver, "waihost-cpu 1.0 \(Self.driverNames[isa] ?? isa)")
        }
    }

    /// Unset WAI_CPU_ISA offers every path the CPU runs, fastest first, each its own unit
    /// with its own driver string (so its own probe-cache key); a list restricts and orders.
    func testEveryPathIsItsOwnUnit() throws {
        let supported = try Self.isaPaths.filter { try Self.load(isa: $0) != nil }
        XCTAssertTrue(supported.contains("scalar"))
        let all = try XCTUnwrap(try Self.load(isa: nil))
        let units = try all.units()
        XCTAssertEqual(units.map(\.index), Array(units.indices))
        XCTAssertEqual(units.map(\.driver), supported.reversed().map { "waihost-cpu 1.0 \(Self.driverNames[$0] ?? $0)" })
        XCTAssertEqual(Set(units.map(\.device)).count, 1)
        XCTAssertTrue(units.allSatisfy { $0.kind == .cpu && $0.narrowStorage })
        for value in ["auto", ""] {
            let same = try XCTUnwrap(try Self.load(isa: value))
            XCTAssertEqual(try same.units().map(\.driver), units.map(\.driver), "WAI_CPU_ISA=\(value)")
        }

        if supported.contains("avx2") {
            let listed = try XCTUnwrap(try Self.load(isa: "scalar,avx2"))
            XCTAssertEqual(try listed.units().map(\.driver), ["waihost-cpu 1.0 scalar", "waihost-cpu 1.0 avx2"])
        }
    }

    func testBadPathListsAreRefusedAtOpen() throws {
        let path = try Self.requirePlugin()
        for (value, status, mentions) in [("scalar,scalar", "invalid_argument", "twice"), ("avx2,", "invalid_argument", "\"\""),
                                          ("scalar,neon", "invalid_argument", "neon")] {
            setenv("WAI_CPU_ISA", value, 1)
            defer { unsetenv("WAI_CPU_ISA") }
            XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
                guard case let .callFailed(_, "open", s, message)? = error as? PluginError else { return XCTFail("\(error)") }
                XCTAssertEqual(s, status, value)
                XCTAssertTrue(message.contains("WAI_CPU_ISA=\(value)") && message.contains(mentions), message)
            }
        }
    }

    func testBadEnvironmentIsRefusedAtOpen() throws {
        let path = try Self.requirePlugin()
        for (name, value, status) in [("WAI_CPU_ISA", "sse9", "invalid_argument"), ("WAI_CPU_THREADS", "0", "invalid_argument"),
                                      ("WAI_CPU_THREADS", "many", "invalid_argument")] {
            setenv(name, value, 1)
            defer { unsetenv(name) }
            XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
                guard case let .callFailed(_, "open", s, message)? = error as? PluginError else { return XCTFail("\(error)") }
                XCTAssertEqual(s, status)
                XCTAssertTrue(message.contains(name) && message.contains(value), message)
            }
        }
    }

    /// The entry point and unit_info called directly, as a host of another version would.
    func testNegotiationAndUnitInfoSizes() throws {
        let path = try Self.requirePlugin()
        let handle = try XCTUnwrap(dlopen(path, RTLD_NOW | RTLD_LOCAL))
        let entry = unsafeBitCast(try XCTUnwrap(dlsym(handle, WAI_BACKEND_ENTRY_SYMBOL)), to: wai_backend_entry_fn.self)
        var message = [CChar](repeating: 0, count: 256)
        var table: UnsafePointer<wai_backend_iface>?
        XCTAssertEqual(entry(2, 0, &table, &message, message.count), WAI_ERR_ABI_MISMATCH)
        XCTAssertNil(table)
        XCTAssertTrue(String(cString: message).contains("ABI 1.\(WAI_ABI_MINOR)") && String(cString: message).contains("2.0"), String(cString: message))
        // A short buffer gets a truncated, terminated message.
        var tiny = [CChar](repeating: 0x7f, count: 8)
        XCTAssertEqual(entry(0, 0, &table, &tiny, tiny.count), WAI_ERR_ABI_MISMATCH)
        XCTAssertEqual(tiny[7], 0)
        XCTAssertEqual(entry(1, 7, &table, &message, message.count), WAI_OK)
        let t = try XCTUnwrap(table).pointee
        XCTAssertEqual(t.struct_size, MemoryLayout<wai_backend_iface>.size)
        XCTAssertEqual(t.abi_major, WAI_ABI_MAJOR)

        var backend: OpaquePointer?
        XCTAssertEqual(t.open!(&backend, &message, message.count), WAI_OK)
        defer { t.close!(backend) }
        var info = wai_unit_info()
        info.struct_size = MemoryLayout<wai_unit_info>.size - 8
        XCTAssertEqual(t.unit_info!(backend, 0, &info, &message, message.count), WAI_ERR_INVALID_ARGUMENT)
        XCTAssertTrue(String(cString: message).contains("struct_size"), String(cString: message))
        info.struct_size = MemoryLayout<wai_unit_info>.size
        XCTAssertEqual(t.unit_info!(backend, 4, &info, &message, message.count), WAI_ERR_INVALID_ARGUMENT)
        XCTAssertEqual(t.unit_info!(backend, 0, &info, &message, message.count), WAI_OK)
        XCTAssertEqual(info.struct_size, MemoryLayout<wai_unit_info>.size)

        // A graph descriptor shorter than 1.0 is refused before any member is read.
        var desc = wai_graph_desc()
        desc.struct_size = 16
        var prepared: OpaquePointer?
        XCTAssertEqual(t.graph_prepare!(backend, 0, &desc, &prepared, &message, message.count), WAI_ERR_INVALID_ARGUMENT)
        XCTAssertNil(prepared)
        // A unit past the last (at most 4 paths) is refused, naming the units there are.
        XCTAssertEqual(t.graph_prepare!(backend, 4, &desc, &prepared, &message, message.count), WAI_ERR_INVALID_ARGUMENT)
        XCTAssertNil(prepared)
        XCTAssertTrue(String(cString: message).contains("unit 4 does not exist") && String(cString: message).contains("scalar"),
                      String(cString: message))
    }

    func testMalformedGraphsAreRefusedWithAMessage() throws {
        guard let plugin = try Self.load(isa: "scalar") else { return XCTFail("scalar path missing") }
        let x = TensorSpec(name: "x", shape: Shape(2, 4, 4), storage: .narrow, interval: Interval(lo: -5, hi: 5))
        // The conv's output tensor has the wrong width: 4×4 with k3 p1 s2 gives 2×2.
        let y = TensorSpec(name: "y", shape: Shape(1, 2, 3), storage: .wide, interval: Interval(lo: -90, hi: 90))
        let conv = ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, weights: [Int16](repeating: 1, count: 18), bias: [0])
        let bad = IntegerGraph(tensors: [x, y], nodes: [Node(op: .conv2d(conv), inputs: [0], output: 1)], inputs: [0], outputs: [1])
        XCTAssertThrowsError(try plugin.prepare(unit: 0, graph: bad)) { error in
            guard case let .callFailed(_, "graph_prepare", status, message)? = error as? PluginError else { return XCTFail("\(error)") }
            XCTAssertEqual(status, "invalid_argument")
            XCTAssertTrue(message.contains("node 0") && message.contains("1×2×2"), message)
        }
        // A node reading a tensor nobody wrote.
        let z = TensorSpec(name: "z", shape: Shape(2, 4, 4), storage: .narrow, interval: Interval(lo: -5, hi: 5))
        let orphan = IntegerGraph(tensors: [x, z, z], nodes: [Node(op: .add, inputs: [0, 2], output: 1)], inputs: [0], outputs: [1])
        XCTAssertThrowsError(try plugin.prepare(unit: 0, graph: orphan)) { error in
            guard case let .callFailed(_, _, status, message)? = error as? PluginError else { return XCTFail("\(error)") }
            XCTAssertEqual(status, "invalid_argument")
            XCTAssertTrue(message.contains("tensor 2"), message)
        }
    }

    func testInputOutsideItsIntervalIsRefused() throws {
        guard let plugin = try Self.load(isa: "scalar") else { return XCTFail("scalar path missing") }
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 2, 2), storage: .narrow, interval: Interval(lo: -10, hi: 10))
        let y = try b.clamp(x, lo: -3, hi: 3)
        let prepared = try plugin.prepare(unit: 0, graph: try b.build(outputs: [y]))
        XCTAssertThrowsError(try prepared.run([TensorValue(shape: Shape(1, 2, 2), values: [0, 1, 40000, 2])])) { error in
            guard case let .callFailed(_, "graph_run", status, message)? = error as? PluginError else { return XCTFail("\(error)") }
            XCTAssertEqual(status, "invalid_argument")
            XCTAssertTrue(message.contains("element 2 = 40000"), message)
        }
        XCTAssertEqual(try prepared.run([TensorValue(shape: Shape(1, 2, 2), values: [0, 1, -10, 10])])[0].values, [0, 1, -3, 3])
    }

    // MARK: - every op against the reference

    func testConvolutionsBothWidths() throws {
        let backends = try Self.backends()
        for c in try BackendCases.convolutions() { try Self.assertExact(c.label, c.graph, c.inputs, on: backends) }
    }

    func testElementwiseOpsBothWidths() throws {
        let backends = try Self.backends()
        for c in try BackendCases.elementwise() { try Self.assertExact(c.label, c.graph, c.inputs, on: backends) }
    }

    func testInverseGDNBothWidths() throws {
        let backends = try Self.backends()
        for c in try BackendCases.inverseGDN() { try Self.assertExact(c.label, c.graph, c.inputs, on: backends) }
    }

    /// The warp on every path (its AVX2 and AVX-512 rows and the plain C tail).
    func testWarpBothWidths() throws {
        let backends = try Self.backends()
        for c in try BackendCases.warp() { try Self.assertExact(c.label, c.graph, c.inputs, on: backends) }
    }

    /// Shifts of negative values at every count and ties in both directions (§3), through a
    /// standalone requantize on wide storage and through one fused into a conv.
    func testShiftAndRoundingEdges() throws {
        let backends = try Self.backends()
        for c in try BackendCases.requantizeShifts() { try Self.assertExact(c.label, c.graph, c.inputs, on: backends) }
        // conv of a narrow input at −32768…32767 with weight 1, fused with every shift.
        for s in [1, 2, 7, 15, 16, 31] {
            var b = GraphBuilder()
            let x = b.input("x", Shape(2, 1, 9), storage: .narrow, interval: Interval(lo: -32768, hi: 32767))
            let c = try b.conv2d(x, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [1, 1], bias: [-1]))
            let y = try b.requantize(c, RequantizeParams(multiplier: [3], shift: [Int32(s)], lo: -40000, hi: 40000))
            let a: [Int32] = [-32768, -32768, -3, -2, -1, 0, 1, 32767, 32767]
            let bb: [Int32] = [-32768, 0, 0, 0, 0, 0, 2, 0, 32767]
            try Self.assertExact("fused conv shift \(s)", try b.build(outputs: [y]),
                            [TensorValue(shape: Shape(2, 1, 9), values: a + bb)], on: backends)
        }
    }

    /// docs/backend-abi.md §8 rule 2: runs of different prepared graphs may overlap; they
    /// share the backend's thread pool.
    func testConcurrentRunsOfDifferentGraphs() throws {
        guard let plugin = try Self.load(isa: nil) else { return XCTFail("no path") }
        try BackendCases.assertConcurrentRuns(on: plugin, repeats: 5)
    }

    /// The int_hyper synthesis shape, small: four 5×5 stride-2 transposed convs (pad 2,
    /// output_pad 1) with requantize after each and inverse GDN between.
    func testSynthesisShapedGraph() throws {
        let backends = try Self.backends()
        let c = try BackendCases.synthesis()
        XCTAssertEqual(c.graph.tensors[c.graph.outputs[0]].shape, Shape(3, 48, 64))
        try Self.assertExact(c.label, c.graph, c.inputs, on: backends)
    }
}

/// Seeded graphs for one op each, with parameters kept inside what the certificate allows
/// (docs/integer-ops.md §5). "wide" puts the op's input outside int16, so the backend's
/// 32-bit kernels run; otherwise its input is narrow and the 16-bit kernels run.
enum GraphCases {
    struct Case {
        var name: String
        var graph: IntegerGraph
        var inputs: [TensorValue]
    }

    /// Values inside `iv`, with both ends and zero well represented.
    static func values(_ rng: inout SplitMix64, count: Int, _ iv: Interval) -> [Int32] {
        (0..<count).map { _ in
            switch rng.int(0...7) {
            case 0: return Int32(iv.lo)
            case 1: return Int32(iv.hi)
            case 2: return Int32(max(iv.lo, min(iv.hi, 0)))
            default: return Int32(iv.lo + Int64(rng.int(0...Int(iv.hi - iv.lo))))
            }
        }
    }

    static func inputInterval(_ rng: inout SplitMix64, wide: Bool, magnitude: Int) -> Interval {
        if wide {
            let a = Int64(max(magnitude, 40000))
            return rng.oneIn(3) ? Interval(lo: -a, hi: Int64(rng.int(-100...100))) : Interval(lo: -a / 2, hi: a)
        }
        let a = Int64(min(magnitude, 32767))
        switch rng.int(0...3) {
        case 0 where a == 32767: return Interval(lo: -32768, hi: 32767)
        case 1: return Interval(lo: -a, hi: Int64(rng.int(-3...3)))
        case 2: return Interval(lo: 0, hi: a)
        default: return Interval(lo: -a, hi: a)
        }
    }

    static func single(_ name: String, _ b: GraphBuilder, _ outputs: [Int], _ rng: inout SplitMix64) throws -> Case {
        let graph = try b.build(outputs: outputs)
        let inputs = graph.inputs.map { t in
            TensorValue(shape: graph.tensors[t].shape, values: values(&rng, count: graph.tensors[t].shape.count, graph.tensors[t].interval))
        }
        return Case(name: name, graph: graph, inputs: inputs)
    }

    static func conv(_ rng: inout SplitMix64, transposed: Bool, wide: Bool) throws -> Case {
        let cin = rng.int(1...(rng.oneIn(3) ? 19 : 6)), cout = rng.int(1...(rng.oneIn(3) ? 21 : 6))
        let big = rng.oneIn(4)
        let kh = rng.int(1...(big ? 11 : 5)), kw = rng.int(1...(big ? 11 : 5))
        let stride = rng.int(1...(rng.oneIn(4) ? 8 : 3))
        let pad = rng.int(0...(min(kh, kw) - 1))
        let outputPad = transposed ? rng.int(0...(stride - 1)) : 0
        let h = rng.int(max(1, kh - 2 * pad)...max(1, kh - 2 * pad) + 6)
        let w = rng.int(max(1, kw - 2 * pad)...max(1, kw - 2 * pad) + (rng.oneIn(2) ? 110 : 12))
        let taps = cin * kh * kw
        // Sum of |w|·|x| over the taps stays below 2^30 (§5), bias below 2^29.
        var wmax = rng.oneIn(4) ? 32767 : rng.int(1...120)
        if wide { wmax = min(wmax, max(1, (1 << 30) / (taps * 40000))) }
        let magnitude = max(1, (1 << 30) / (taps * wmax))
        let iv = inputInterval(&rng, wide: wide, magnitude: magnitude)
        let weights = (0..<(cout * taps)).map { _ -> Int16 in
            rng.oneIn(6) ? (rng.oneIn(2) ? Int16(-wmax) : Int16(wmax)) : Int16(rng.int(-wmax...wmax))
        }
        let bias = (0..<cout).map { _ in Int32(rng.int(-(1 << 29)...(1 << 29))) }
        var b = GraphBuilder()
        let x = b.input("x", Shape(cin, h, w), storage: wide ? .wide : .narrow, interval: iv)
        let p = ConvParams(kernelH: kh, kernelW: kw, stride: stride, pad: pad, outputPad: outputPad, weights: weights, bias: bias)
        let y = transposed ? try b.convTranspose2d(x, p) : try b.conv2d(x, p)
        let name = "\(transposed ? "conv_transpose2d" : "conv2d") \(cin)×\(h)×\(w)→\(cout) k\(kh)×\(kw) s\(stride) p\(pad) op\(outputPad) x∈\(iv)"
        // The epilogue: none (conv output is the graph output), fused requantize or clamp,
        // or a requantize the conv cannot absorb because its output is also a graph output.
        switch rng.int(0...3) {
        case 0: return try single(name + " alone", b, [y], &rng)
        case 1:
            let r = try b.requantize(y, requantizeParams(&rng, channels: cout, bound: (1 << 30) + (1 << 29), narrow: rng.oneIn(2)))
            return try single(name + " +requantize", b, [r], &rng)
        case 2:
            let lo = Int32(rng.int(-70000...0)), hi = Int32(rng.int(0...70000))
            let c = try b.clamp(y, lo: lo, hi: hi)
            return try single(name + " +clamp", b, [c], &rng)
        default:
            let r = try b.requantize(y, requantizeParams(&rng, channels: cout, bound: (1 << 30) + (1 << 29), narrow: true))
            return try single(name + " +requantize, both outputs", b, [r, y], &rng)
        }
    }

    /// Per-channel multipliers and shifts for inputs bounded by ±bound, so that x·m and
    /// x·m + 2^(s−1) stay in int32.
    static func requantizeParams(_ rng: inout SplitMix64, channels: Int, bound: Int, narrow: Bool) -> RequantizeParams {
        var m: [Int32] = [], s: [Int32] = []
        for _ in 0..<channels {
            let shift = rng.int(0...31)
            let room = Int(Int32.max) - (shift == 0 ? 0 : 1 << (shift - 1))
            let limit = max(1, room / max(bound, 1))
            m.append(Int32(rng.oneIn(3) ? limit : rng.int(1...limit)))
            s.append(Int32(shift))
        }
        let lo = narrow ? Int32(rng.int(-32768...0)) : Int32(rng.int(-2_000_000_000...0))
        let hi = narrow ? Int32(rng.int(0...32767)) : Int32(rng.int(0...2_000_000_000))
        return RequantizeParams(multiplier: m, shift: s, lo: lo, hi: hi)
    }

    static func shape(_ rng: inout SplitMix64) -> Shape {
        Shape(rng.int(1...5), rng.int(1...9), rng.int(1...(rng.oneIn(2) ? 70 : 9)))
    }

    static func requantize(_ rng: inout SplitMix64, wide: Bool) throws -> Case {
        let s = shape(&rng)
        let iv = inputInterval(&rng, wide: wide, magnitude: wide ? rng.int(40000...2_000_000) : 32767)
        var b = GraphBuilder()
        let x = b.input("x", s, storage: wide ? .wide : .narrow, interval: iv)
        let bound = Int(max(-iv.lo, iv.hi))
        let y = try b.requantize(x, requantizeParams(&rng, channels: s.channels, bound: bound, narrow: rng.oneIn(2)))
        return try single("requantize \(s) x∈\(iv)", b, [y], &rng)
    }

    static func add(_ rng: inout SplitMix64, wide: Bool) throws -> Case {
        let s = shape(&rng)
        var b = GraphBuilder()
        let ia = inputInterval(&rng, wide: wide, magnitude: wide ? 1_000_000_000 : 32767)
        let ib = inputInterval(&rng, wide: wide && rng.oneIn(2), magnitude: wide ? 1_000_000 : rng.int(1...32767))
        let x = b.input("a", s, storage: ia.lo < -32768 || ia.hi > 32767 ? .wide : .narrow, interval: ia)
        let y = b.input("b", s, storage: ib.lo < -32768 || ib.hi > 32767 ? .wide : .narrow, interval: ib)
        let z = try b.add(x, y)
        return try single("add \(s) a∈\(ia) b∈\(ib)", b, [z], &rng)
    }

    static func clamp(_ rng: inout SplitMix64, wide: Bool) throws -> Case {
        let s = shape(&rng)
        let iv = inputInterval(&rng, wide: wide, magnitude: wide ? 2_000_000_000 : 32767)
        var b = GraphBuilder()
        let x = b.input("x", s, storage: wide ? .wide : .narrow, interval: iv)
        let lo = Int32(iv.lo + Int64(rng.int(0...Int(iv.hi - iv.lo) / 2)))
        let hi = Int32(min(Int64(Int32.max), Int64(lo) + Int64(rng.int(0...Int(iv.hi - iv.lo)))))
        let y = try b.clamp(x, lo: lo, hi: hi)
        return try single("clamp \(s) [\(lo), \(hi)] x∈\(iv)", b, [y], &rng)
    }

    static func depthToSpace(_ rng: inout SplitMix64, wide: Bool) throws -> Case {
        let r = rng.int(2...3)
        let s = Shape(rng.int(1...3) * r * r, rng.int(1...6), rng.int(1...20))
        let iv = inputInterval(&rng, wide: wide, magnitude: wide ? 2_000_000_000 : 32767)
        var b = GraphBuilder()
        let x = b.input("x", s, storage: wide ? .wide : .narrow, interval: iv)
        let y = try b.depthToSpace(x, block: r)
        return try single("depth_to_space \(s) r\(r)", b, [y], &rng)
    }

    static func concat(_ rng: inout SplitMix64, wide: Bool) throws -> Case {
        let h = rng.int(1...7), w = rng.int(1...30)
        var b = GraphBuilder()
        var parts: [Int] = []
        for k in 0..<rng.int(1...3) {
            let isWide = wide && (k == 0 || rng.oneIn(2))
            let iv = inputInterval(&rng, wide: isWide, magnitude: isWide ? 100_000 : 32767)
            parts.append(b.input("x\(k)", Shape(rng.int(1...4), h, w), storage: isWide ? .wide : .narrow, interval: iv))
        }
        let y = try b.concat(parts)
        return try single("concat of \(parts.count) at \(h)×\(w)", b, [y], &rng)
    }

    static func lookup(_ rng: inout SplitMix64, wide: Bool) throws -> Case {
        let s = shape(&rng)
        let length = rng.oneIn(4) ? 65536 : rng.int(1...300)
        let iv = inputInterval(&rng, wide: wide, magnitude: wide ? 1_000_000 : 32767)
        let offset = Int32(rng.int(-40000...40000))
        let table = (0..<length).map { _ in wide ? Int32(truncatingIfNeeded: rng.next()) : Int32(rng.int(-32768...32767)) }
        var b = GraphBuilder()
        let x = b.input("x", s, storage: wide ? .wide : .narrow, interval: iv)
        let y = try b.lookup(x, LookupParams(table: table, offset: offset))
        return try single("lookup \(s) len \(length) offset \(offset) x∈\(iv)", b, [y], &rng)
    }

    static func isqrt(_ n: Int) -> Int {
        var r = Int(Double(n).squareRoot())
        while r * r > n { r -= 1 }
        while (r + 1) * (r + 1) <= n { r += 1 }
        return r
    }

    /// `int16Math`: squares and gamma both fit int16, the backend's 16-bit dot-product path.
    static func inverseGDN(_ rng: inout SplitMix64, wide: Bool, int16Math: Bool) throws -> Case {
        let c = rng.int(1...(rng.oneIn(2) ? 21 : 5))
        let s = Shape(c, rng.int(1...6), rng.int(1...(rng.oneIn(2) ? 120 : 9)))
        let a = wide ? rng.int(32768...46340) : rng.int(1...32767)
        let iv = inputInterval(&rng, wide: false, magnitude: a)
        let hull = wide ? Interval(lo: -Int64(a), hi: Int64(a)) : iv
        let amax = Int(max(-hull.lo, hull.hi))
        var q = rng.int(0...30)
        if int16Math { while (amax * amax) >> q > 32767 { q += 1 } }
        let sqhi = (amax * amax) >> q
        var gmax = sqhi == 0 ? 1000 : max(0, (Int(Int32.max) / 2) / (c * sqhi))
        if int16Math { gmax = min(gmax, 32767) } else if gmax > 32767, rng.oneIn(2) { gmax = rng.int(32768...gmax) }
        let gamma = (0..<(c * c)).map { _ in Int32(rng.oneIn(4) ? 0 : rng.int(0...gmax)) }
        var beta: [Int32] = []
        var rmax = 0
        for o in 0..<c {
            let sum = (0..<c).reduce(0) { $0 + Int(gamma[o * c + $1]) * sqhi }
            let bmax = min(Int(Int32.max) - sum, 1 << 30)
            let bt = rng.oneIn(3) ? bmax : rng.int(0...bmax)
            beta.append(Int32(bt))
            rmax = max(rmax, isqrt(bt + sum))
        }
        var outShift = rng.int(0...31)
        while outShift > 0, amax * rmax + (1 << (outShift - 1)) > Int(Int32.max) { outShift -= 1 }
        var b = GraphBuilder()
        let x = b.input("x", s, storage: wide ? .wide : .narrow, interval: hull)
        let y = try b.inverseGDN(x, InverseGDNParams(beta: beta, gamma: gamma, squareShift: Int32(q), outShift: Int32(outShift)))
        var outputs = [y]
        if rng.oneIn(2) {
            // Absorbed into the inverse GDN's epilogue.
            let r = try b.requantize(y, requantizeParams(&rng, channels: c, bound: amax * rmax, narrow: true))
            outputs = [r]
        }
        return try single("inverse_gdn \(s) x∈\(hull) q\(q) s\(outShift) gamma≤\(gmax)", b, outputs, &rng)
    }
}
