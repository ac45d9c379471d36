import BackendABI
import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// A backend written in plain C against the header alone (Tests/CPlugins/ref_backend.c),
/// compiled here with `cc`, loads through the host and computes exactly; each of its
/// deliberately wrong variants is refused for its own reason (docs/backend-abi.md §12).
final class CPluginTests: XCTestCase {
    private let builder = CPluginBuilder.shared

    override class func tearDown() {
        CPluginBuilder.shared.removeAll()
        super.tearDown()
    }

    // MARK: loading

    func testGoodBackendLoadsAndDescribesItsUnit() throws {
        let plugin = try BackendPlugin.load(path: try builder.plugin(.good))
        XCTAssertEqual(plugin.name, "plainc")
        XCTAssertEqual(plugin.version, "1.0.0")
        XCTAssertEqual(plugin.abiMinor, WAI_ABI_MINOR)
        XCTAssertEqual(try plugin.units(), [UnitInfo(index: 0, kind: .cpu, device: "plain C test unit",
                                                     driver: "ref_backend.c 1.0.0 (ABI 1.1)",
                                                     narrowStorage: true)])
    }

    func testLoadFailuresNameTheirCause() throws {
        let abiMajor = try builder.plugin(.abiMajor)
        XCTAssertThrowsError(try BackendPlugin.load(path: abiMajor)) { error in
            guard case let .entryRefused(path, status, message)? = error as? PluginError else {
                return XCTFail("ABI 2 plugin: expected entryRefused, got \(error)")
            }
            XCTAssertEqual(path, abiMajor)
            XCTAssertEqual(status, "abi_mismatch")
            XCTAssertTrue(message.contains("ABI 2.0") && message.contains("host offers 1.\(WAI_ABI_MINOR)"), message)
        }

        XCTAssertThrowsError(try BackendPlugin.load(path: try builder.plugin(.tableMajor))) { error in
            guard case let .badTable(_, reason)? = error as? PluginError else {
                return XCTFail("table claiming ABI 2: expected badTable, got \(error)")
            }
            XCTAssertTrue(reason.contains("ABI major 2") && reason.contains("host speaks 1"), reason)
        }

        // The short table ends where graph_run would start.
        let shortSize = try XCTUnwrap(MemoryLayout<wai_backend_iface>.offset(of: \.graph_run))
        XCTAssertThrowsError(try BackendPlugin.load(path: try builder.plugin(.shortTable))) { error in
            guard case let .badTable(_, reason)? = error as? PluginError else {
                return XCTFail("short table: expected badTable, got \(error)")
            }
            XCTAssertTrue(reason.contains("struct_size \(shortSize)")
                          && reason.contains("\(MemoryLayout<wai_backend_iface>.size) bytes"), reason)
        }

        XCTAssertThrowsError(try BackendPlugin.load(path: try builder.plugin(.noEntry))) { error in
            XCTAssertEqual(error as? PluginError,
                           .missingEntry(path: try! builder.plugin(.noEntry), symbol: "wai_backend_entry"))
            XCTAssertTrue("\(error)".contains("wai_backend_entry"), "\(error)")
        }

        let dir = try builder.makeDirectory("not-elf")
        let text = dir + "/bad.so"
        try "this is a text file, not a shared object\n".write(toFile: text, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try BackendPlugin.load(path: text)) { error in
            XCTAssertEqual(error as? PluginError, .notELF(path: text))
            XCTAssertTrue("\(error)".contains("not an ELF shared object"), "\(error)")
        }
    }

    // MARK: computing

    /// Every op at both widths, values at the edges of narrow storage, two inputs, and a
    /// graph input listed as an output: the plain C backend gives the reference's integers.
    func testGoodBackendComputesEveryOpExactly() throws {
        let (graph, inputs) = try Self.everyOpGraph()
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
        let plugin = try BackendPlugin.load(path: try builder.plugin(.good))
        let prepared = try plugin.prepare(unit: 0, graph: graph)
        XCTAssertEqual(try prepared.run(inputs), expected)
        // Prepared once, run many times: a second run with other values is exact too.
        var rng = SplitMix64(seed: 99)
        let again = inputs.enumerated().map { k, v in
            TensorValue(shape: v.shape, values: v.values.map { _ in
                k == 0 ? rng.int32(-32768, 32767) : rng.int32(-100, 100)
            })
        }
        XCTAssertEqual(try prepared.run(again), try ReferenceInterpreter.run(graph, inputs: again))
    }

    /// Each arithmetic defect really changes a result on a graph aimed at it, while the
    /// good build matches the reference there: if the probe accepts one of them, the probe
    /// is what is wrong.
    func testEachArithmeticDefectChangesAResult() throws {
        let good = try BackendPlugin.load(path: try builder.plugin(.good))
        for (variant, (graph, inputs)) in try Self.defectTargets() {
            let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
            XCTAssertEqual(try good.prepare(unit: 0, graph: graph).run(inputs), expected, "good build, \(variant)'s graph")
            let bad = try BackendPlugin.load(path: try builder.plugin(variant))
            XCTAssertNotEqual(try bad.prepare(unit: 0, graph: graph).run(inputs), expected, "\(variant)")
        }
    }

    // MARK: building against the ABI as a third party

    /// The skeleton printed in docs/backend-abi.md §11.2 compiles warning-free and loads.
    func testSkeletonOfTheABIDocBuildsAndLoads() throws {
        let doc = try String(contentsOfFile: builder.packageRoot + "/docs/backend-abi.md", encoding: .utf8)
        let blocks = doc.components(separatedBy: "```c\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        let skeleton = try XCTUnwrap(blocks.first { $0.hasPrefix("/* skeleton.c") },
                                     "docs/backend-abi.md has no ```c block starting with /* skeleton.c")
        let dir = try builder.makeDirectory("skeleton")
        try skeleton.write(toFile: dir + "/skeleton.c", atomically: true, encoding: .utf8)
        try builder.compile(source: dir + "/skeleton.c", output: dir + "/libWaiSkeleton.so",
                            flags: ["-I", builder.includeDir, "-fvisibility=hidden"])

        let plugin = try BackendPlugin.load(path: dir + "/libWaiSkeleton.so")
        XCTAssertEqual(plugin.name, "skeleton")
        XCTAssertEqual(try plugin.units(), [UnitInfo(index: 0, kind: .cpu, device: "skeleton unit",
                                                     driver: "skeleton 0.1", narrowStorage: false)])
        let (graph, _) = try Self.defectTargets()[0].1
        XCTAssertThrowsError(try plugin.prepare(unit: 0, graph: graph)) { error in
            guard case let .callFailed(_, call, status, message)? = error as? PluginError else {
                return XCTFail("expected callFailed, got \(error)")
            }
            XCTAssertEqual(call, "graph_prepare")
            XCTAssertEqual(status, "unsupported")
            XCTAssertEqual(message, "skeleton: runs no graphs")
        }
    }

    /// scripts/install-abi.sh into a temporary prefix; pkg-config's flags alone build the
    /// plain C backend, which loads and runs.
    func testPkgConfigInstallBuildsALoadableBackend() throws {
        let prefix = try builder.makeDirectory("prefix")
        let install = try Subprocess("/bin/bash", [builder.packageRoot + "/scripts/install-abi.sh", prefix]).run()
        XCTAssertEqual(install.status, 0, install.stderrText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/include/waihost/wai_backend.h"))

        let pkgConfig = try CPluginBuilder.tool("pkg-config", why: "the ABI's pkg-config file is tested with it (apt-get install pkg-config)")
        var env = ProcessInfo.processInfo.environment
        env["PKG_CONFIG_PATH"] = prefix + "/lib/pkgconfig"
        let cflags = try Subprocess(pkgConfig, ["--cflags", "waihost-backend"], environment: env).run()
        XCTAssertEqual(cflags.status, 0, cflags.stderrText)
        XCTAssertEqual(cflags.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "-I\(prefix)/include/waihost")
        let version = try Subprocess(pkgConfig, ["--modversion", "waihost-backend"], environment: env).run()
        XCTAssertEqual(version.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "\(WAI_ABI_MAJOR).\(WAI_ABI_MINOR)")
        let pluginsDir = try Subprocess(pkgConfig, ["--variable=pluginsdir", "waihost-backend"], environment: env).run()
        XCTAssertEqual(pluginsDir.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), prefix + "/lib/waihost/plugins.d")

        // Built from a copy outside the repository, so only pkg-config can find the header.
        let source = prefix + "/my_backend.c"
        try FileManager.default.copyItem(atPath: builder.source, toPath: source)
        let flags = cflags.stdoutText.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        try builder.compile(source: source, output: prefix + "/libWaiMine.so", flags: flags)
        let plugin = try BackendPlugin.load(path: prefix + "/libWaiMine.so")
        XCTAssertEqual(plugin.name, "plainc")
        let (graph, inputs) = try Self.defectTargets()[0].1
        XCTAssertEqual(try plugin.prepare(unit: 0, graph: graph).run(inputs),
                       try ReferenceInterpreter.run(graph, inputs: inputs))
    }

    // MARK: graphs

    /// conv2d → requantize → conv_transpose2d (output_pad 1) → requantize, then lookup,
    /// clamp + inverse GDN, concat + depth_to_space and three adds; narrow and wide tensors.
    static func everyOpGraph() throws -> (IntegerGraph, [TensorValue]) {
        var rng = SplitMix64(seed: 2024)
        var b = GraphBuilder()
        let x = b.input("x", Shape(2, 4, 4), storage: .narrow, interval: Interval(lo: -32768, hi: 32767))
        let y = b.input("y", Shape(2, 8, 8), storage: .wide, interval: Interval(lo: -100, hi: 100))
        let conv = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1,
                                              weights: (0..<(4 * 2 * 9)).map { _ in rng.int16(-3, 3) },
                                              bias: (0..<4).map { _ in rng.int32(-1000, 1000) }), name: "conv")
        let req = try b.requantize(conv, RequantizeParams(multiplier: [3, 5, 7, 11], shift: [4, 9, 14, 20],
                                                          lo: -32768, hi: 32767), name: "req")
        let tconv = try b.convTranspose2d(req, ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, outputPad: 1,
                                                          weights: (0..<(4 * 2 * 9)).map { _ in rng.int16(-2, 2) },
                                                          bias: [17, -23]), name: "tconv")
        let q2 = try b.requantize(tconv, RequantizeParams(multiplier: [1, 1], shift: [3, 5], lo: -32768, hi: 32767), name: "q2")
        let lk = try b.lookup(q2, LookupParams(table: (0..<64).map { _ in rng.int32(-500, 500) }, offset: -32), name: "lk")
        let cl = try b.clamp(q2, lo: -1000, hi: 1000, name: "cl")
        let gdn = try b.inverseGDN(cl, InverseGDNParams(beta: [1, 7], gamma: [1, 2, 3, 1], squareShift: 3, outShift: 5), name: "gdn")
        let d2s = try b.depthToSpace(try b.concat([req, req], name: "cat"), block: 2, name: "d2s")
        let sum = try b.add(try b.add(try b.add(gdn, lk, name: "s1"), d2s, name: "s2"), y, name: "out")
        let graph = try b.build(outputs: [sum, tconv, x])

        var xs = (0..<32).map { _ in rng.int32(-32768, 32767) }
        xs[0] = -32768
        xs[1] = 32767
        let ys = (0..<128).map { _ in rng.int32(-100, 100) }
        return (graph, [TensorValue(shape: Shape(2, 4, 4), values: xs), TensorValue(shape: Shape(2, 8, 8), values: ys)])
    }

    /// One small graph per arithmetic defect, on which that defect must show.
    static func defectTargets() throws -> [(CPluginVariant, (IntegerGraph, [TensorValue]))] {
        // Negative values shifted, with ties in both directions (−3/2, −1/2, 3/2, 1/2).
        var r = GraphBuilder()
        let rx = r.input("x", Shape(1, 1, 6), storage: .wide, interval: Interval(lo: -8, hi: 8))
        let rq = try r.requantize(rx, RequantizeParams(multiplier: [1], shift: [1], lo: -100, hi: 100))
        let shifts = (try r.build(outputs: [rq]), [TensorValue(shape: Shape(1, 1, 6), values: [-3, -1, 3, 1, -8, -5])])

        // −32768 and 32767 written by a convolution into a narrow tensor.
        var n = GraphBuilder()
        let nx = n.input("x", Shape(1, 1, 4), storage: .narrow, interval: Interval(lo: -32768, hi: 32767))
        let nc = try n.conv2d(nx, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [1], bias: [0]),
                              storage: .narrow)
        let narrow = (try n.build(outputs: [nc]), [TensorValue(shape: Shape(1, 1, 4), values: [-32768, 32767, 0, -1])])

        // A transposed conv whose output_pad is not 0.
        var t = GraphBuilder()
        let tx = t.input("x", Shape(1, 3, 3), storage: .wide, interval: Interval(lo: -50, hi: 50))
        let tc = try t.convTranspose2d(tx, ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, outputPad: 1,
                                                      weights: [1, 2, 3, 4, 5, 6, 7, 8, 9], bias: [0]))
        let tconv = (try t.build(outputs: [tc]), [TensorValue(shape: Shape(1, 3, 3), values: [1, -2, 3, -4, 5, -6, 7, -8, 9])])

        return [(.shiftZeroFill, shifts), (.tiesDown, shifts), (.narrowWrap, narrow), (.tconvPad, tconv)]
    }
}
