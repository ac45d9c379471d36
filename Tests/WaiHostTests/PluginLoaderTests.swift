import BackendABI
import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Paths and folders the host-side tests share: the build products beside the test
/// bundle (the real CPU plugin, the `waihost` binary) and private temporary folders.
enum HostTestSupport {
    /// The folder of the running test binary: .build/<triple>/<config>.
    static var buildDirectory: String { TestPaths.buildProducts }

    static var waihost: String { buildDirectory + "/waihost" }
    static var unitWorker: String { buildDirectory + "/" + HostConfiguration.unitWorkerName }

    /// The CPU backend built by `swift build`; a test that needs it fails (never skips)
    /// when it is missing.
    static func cpuPlugin(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = buildDirectory + "/libWaiCPUBackend.so"
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("\(path) is missing: build the package (swift build) before testing", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    /// A fresh folder under one per-process root, removed by `removeTemporaryDirectories`.
    static func temporaryDirectory(_ name: String) throws -> String { try root.directory(name) }

    private static let root = TemporaryRoot("waihost-host-tests")

    /// Called by each test class's class tearDown.
    static func removeTemporaryDirectories() { root.removeAll() }

    /// A plugin folder holding a copy of the CPU plugin.
    static func folderWithCPUPlugin(_ name: String) throws -> String {
        let dir = try temporaryDirectory(name)
        try FileManager.default.copyItem(atPath: try cpuPlugin(), toPath: dir + "/libWaiCPUBackend.so")
        return dir
    }

    static func configuration(plugins: [String], cache: String?, worker: String? = nil,
                              timeout: Double = 120) -> HostConfiguration {
        HostConfiguration(pluginDirectories: plugins, cacheDirectory: cache,
                          unitWorker: worker ?? unitWorker, probeTimeout: timeout)
    }

    /// A small verified graph touching several ops, with inputs inside its contract.
    static func smallGraph() throws -> (IntegerGraph, [TensorValue]) {
        var b = GraphBuilder()
        let x = b.input("x", Shape(2, 4, 4), storage: .narrow, interval: Interval(lo: -300, hi: 300))
        let c = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1,
                                           weights: (0..<36).map { Int16($0 % 7 - 3) }, bias: [5, -5]))
        let r = try b.requantize(c, RequantizeParams(multiplier: [3, 5], shift: [2, 3], lo: -1000, hi: 1000))
        let y = try b.clamp(r, lo: -200, hi: 200, name: "out")
        let g = try b.build(outputs: [y])
        let values = (0..<32).map { Int32(($0 * 37) % 601 - 300) }
        return (g, [TensorValue(shape: Shape(2, 4, 4), values: values)])
    }
}

final class PluginLoaderTests: XCTestCase {
    override class func tearDown() { HostTestSupport.removeTemporaryDirectories() }

    func testTextFileIsNotAnELFSharedObject() throws {
        let dir = try HostTestSupport.temporaryDirectory("notelf")
        let path = dir + "/libText.so"
        try "just text\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            XCTAssertEqual(error as? PluginError, .notELF(path: path))
            XCTAssertTrue("\(error)".contains("not an ELF shared object"))
        }
    }

    func testRelocatableObjectIsNotASharedObject() throws {
        // A relocatable object file is ELF but not a shared object.
        let dir = try HostTestSupport.temporaryDirectory("object")
        let path = dir + "/libObject.so"
        var header = [UInt8](repeating: 0, count: 64)
        header[0...3] = [0x7f, 0x45, 0x4c, 0x46]
        header[4] = 2; header[5] = 1; header[16] = 1  // ELFCLASS64, little endian, ET_REL
        try Data(header).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            XCTAssertEqual(error as? PluginError, .notELF(path: path))
        }
    }

    func testMissingFileSaysSo() {
        let path = "/nonexistent-\(UUID().uuidString)/libX.so"
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            guard case .unreadableFile(let p, let reason)? = error as? PluginError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(p, path)
            XCTAssertTrue(reason.contains("No such file"), reason)
        }
    }

    func testTruncatedELFFailsInDlopenWithItsMessage() throws {
        let dir = try HostTestSupport.temporaryDirectory("truncated")
        let path = dir + "/libTruncated.so"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try HostTestSupport.cpuPlugin()))
        try bytes.prefix(200).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            guard case .dlopenFailed(let p, let message)? = error as? PluginError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(p, path)
            XCTAssertFalse(message.isEmpty)
        }
    }

    func testDiscoveryListsSharedObjectsInOrderAndReportsMissingFolders() throws {
        let a = try HostTestSupport.temporaryDirectory("scan-a")
        let b = try HostTestSupport.temporaryDirectory("scan-b")
        for name in ["libZ.so", "libA.so", "README", ".hidden.so", "libA.so.1"] {
            try "x".write(toFile: a + "/" + name, atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: a + "/dir.so", withIntermediateDirectories: false)
        try "x".write(toFile: b + "/libB.so", atomically: true, encoding: .utf8)
        // The same file reached twice (through a link) is listed once.
        try FileManager.default.createSymbolicLink(atPath: b + "/libLink.so", withDestinationPath: a + "/libZ.so")
        let missing = a + "/no-such-folder"
        let scan = PluginDiscovery.scan(directories: [a, missing, b])
        XCTAssertEqual(scan.plugins, [a + "/libA.so", a + "/libZ.so", b + "/libB.so"])
        XCTAssertEqual(scan.problems.map(\.path), [missing])
        XCTAssertTrue(scan.problems[0].reason.contains("No such file"), scan.problems[0].reason)
    }

    func testDefaultPluginFolders() {
        XCTAssertEqual(HostConfiguration.defaultPluginDirectories(executable: "/opt/waihost/bin/waihost"),
                       ["/opt/waihost/bin/plugins.d", "/opt/waihost/lib/waihost/plugins.d"])
        XCTAssertEqual(HostConfiguration.defaultPluginDirectories(executable: "/src/pkg/.build/x86_64-unknown-linux-gnu/release/waihost"),
                       ["/src/pkg/.build/x86_64-unknown-linux-gnu/release/plugins.d", "/src/pkg/plugins.d"])
        XCTAssertEqual(HostConfiguration.defaultPluginDirectories(executable: nil), [])
    }

    func testCPUPluginNegotiatesListsUnitsAndRunsExactly() throws {
        let plugin = try BackendPlugin.load(path: try HostTestSupport.cpuPlugin())
        XCTAssertEqual(plugin.name, "cpu")
        XCTAssertEqual(plugin.abiMinor, WAI_ABI_MINOR)
        let units = try plugin.units()
        XCTAssertFalse(units.isEmpty)
        XCTAssertEqual(units[0].index, 0)
        XCTAssertEqual(units[0].kind, .cpu)
        XCTAssertFalse(units[0].device.isEmpty)
        XCTAssertFalse(units[0].driver.isEmpty)

        let (graph, inputs) = try HostTestSupport.smallGraph()
        let prepared = try plugin.prepare(unit: 0, graph: graph)
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
        XCTAssertEqual(try prepared.run(inputs), expected)
        // A prepared graph runs many times.
        XCTAssertEqual(try prepared.run(inputs), expected)
    }

    func testRunRefusesInputsThatDoNotMatchTheGraph() throws {
        let plugin = try BackendPlugin.load(path: try HostTestSupport.cpuPlugin())
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let prepared = try plugin.prepare(unit: 0, graph: graph)
        XCTAssertThrowsError(try prepared.run([])) { error in
            guard case .runMismatch(_, let reason)? = error as? PluginError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("1 inputs"), reason)
        }
        XCTAssertThrowsError(try prepared.run([TensorValue(zeros: Shape(2, 4, 5))])) { error in
            guard case .runMismatch(_, let reason)? = error as? PluginError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("2×4×5"), reason)
        }
        XCTAssertThrowsError(try plugin.prepare(unit: 99, graph: graph)) { error in
            guard case .badUnit(_, 99, _)? = error as? PluginError else { return XCTFail("\(error)") }
        }
        _ = inputs
    }

    func testMarshalledGraphCarriesEveryMember() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(4, 2, 3), storage: .narrow, interval: Interval(lo: -50, hi: 60))
        let t = try b.convTranspose2d(x, ConvParams(kernelH: 3, kernelW: 2, stride: 2, pad: 1, outputPad: 1,
                                                    weights: (0..<48).map { Int16($0 - 24) }, bias: [7, -7]))
        let l = try b.lookup(x, LookupParams(table: [4, 5, 6], offset: -1))
        let g2 = try b.inverseGDN(x, InverseGDNParams(beta: [1, 2, 3, 4], gamma: Array(repeating: 1, count: 16),
                                                      squareShift: 2, outShift: 5))
        let d = try b.depthToSpace(x, block: 2)
        let graph = try b.build(outputs: [t, l, g2, d])
        let m = try MarshalledGraph(graph)
        m.withDescription { desc in
            let g = desc.pointee
            XCTAssertEqual(g.struct_size, MemoryLayout<wai_graph_desc>.size)
            XCTAssertEqual(g.n_tensors, 5)
            XCTAssertEqual(g.n_nodes, 4)
            XCTAssertEqual(Array(UnsafeBufferPointer(start: g.inputs, count: Int(g.n_inputs))), [0])
            XCTAssertEqual(Array(UnsafeBufferPointer(start: g.outputs, count: Int(g.n_outputs))), [1, 2, 3, 4])
            let t0 = g.tensors[0]
            XCTAssertEqual([t0.channels, t0.height, t0.width, t0.storage_bits], [4, 2, 3, 16])
            XCTAssertEqual([t0.lo, t0.hi], [-50, 60])
            let conv = g.nodes[0]
            XCTAssertEqual(conv.op, WAI_OP_CONV_TRANSPOSE2D.rawValue)
            XCTAssertEqual([conv.kernel_h, conv.kernel_w, conv.stride, conv.pad, conv.output_pad], [3, 2, 2, 1, 1])
            XCTAssertEqual(Array(UnsafeBufferPointer(start: conv.weights, count: 48)), (0..<48).map { Int16($0 - 24) })
            XCTAssertEqual(Array(UnsafeBufferPointer(start: conv.bias, count: 2)), [7, -7])
            XCTAssertEqual(conv.output, 1)
            let lookup = g.nodes[1]
            XCTAssertEqual(lookup.op, WAI_OP_LOOKUP.rawValue)
            XCTAssertEqual(lookup.table_len, 3)
            XCTAssertEqual(lookup.table_offset, -1)
            XCTAssertEqual(Array(UnsafeBufferPointer(start: lookup.table, count: 3)), [4, 5, 6])
            let gdn = g.nodes[2]
            XCTAssertEqual(gdn.op, WAI_OP_INVERSE_GDN.rawValue)
            XCTAssertEqual([gdn.square_shift, gdn.out_shift], [2, 5])
            XCTAssertEqual(Array(UnsafeBufferPointer(start: gdn.beta, count: 4)), [1, 2, 3, 4])
            XCTAssertEqual(g.nodes[3].op, WAI_OP_DEPTH_TO_SPACE.rawValue)
            XCTAssertEqual(g.nodes[3].block, 2)
            XCTAssertEqual(Array(UnsafeBufferPointer(start: g.nodes[3].inputs, count: Int(g.nodes[3].n_inputs))), [0])
        }
    }
}
