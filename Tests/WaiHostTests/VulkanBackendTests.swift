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

/// The Vulkan backend plugin (Plugins/VulkanBackend, libWaiVulkanBackend.so) on every
/// Vulkan device of the machine — in CI Mesa's lavapipe — against the reference interpreter:
/// every op of docs/integer-ops.md §4 at both widths (16-bit storage buffers, and the int32
/// fallback a device without storageBuffer16BitAccess gets), the exactness probe, and the
/// golden decodes. A machine without a Vulkan device fails these tests saying so: CI installs
/// mesa-vulkan-drivers, so a missing device is a broken setup, not a skip.
final class VulkanBackendTests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    struct Setup: Error, CustomStringConvertible { let description: String }

    private func pluginPath() throws -> String {
        let path = TestPaths.product("libWaiVulkanBackend.so")
        guard FileManager.default.fileExists(atPath: path) else {
            throw Setup(description: "\(path) is missing: swift build builds it (product WaiVulkanBackend)")
        }
        return path
    }

    /// The backend opened with WAI_VULKAN_NARROW as given (nil: default, 16-bit storage
    /// where the device has it). No loader or no device: the test fails with the reason.
    private func load(narrow: Bool? = nil) throws -> BackendPlugin {
        let path = try pluginPath()
        if let narrow { setenv("WAI_VULKAN_NARROW", narrow ? "1" : "0", 1) } else { unsetenv("WAI_VULKAN_NARROW") }
        defer { unsetenv("WAI_VULKAN_NARROW") }
        do {
            let plugin = try BackendPlugin.load(path: path)
            guard try !plugin.units().isEmpty else { throw Setup(description: "the vulkan backend lists no unit") }
            return plugin
        } catch {
            throw Setup(description: "no usable Vulkan device on this machine (install mesa-vulkan-drivers for lavapipe; scripts/install-deps.sh does): \(error)")
        }
    }

    /// Every unit, with 16-bit storage and with the int32 fallback.
    private func targets() throws -> [BackendCases.Target] {
        var result: [BackendCases.Target] = []
        for narrow in [true, false] {
            let plugin = try load(narrow: narrow)
            for unit in try plugin.units() {
                XCTAssertEqual(unit.narrowStorage, narrow && unit.narrowStorage, unit.device)
                result.append(("\(unit.device) [\(unit.narrowStorage ? "16-bit storage" : "int32 storage")]", plugin, unit.index))
            }
        }
        return result
    }

    // MARK: - units

    func testEveryVulkanDeviceIsAUnitWithItsDriverIdentity() throws {
        let units = try load().units()
        for unit in units {
            XCTAssertFalse(unit.device.isEmpty)
            XCTAssertTrue(unit.driver.contains("Vulkan 1."), unit.driver)
            XCTAssertTrue(unit.driver.contains("driver version"), unit.driver)
        }
        if let lavapipe = units.first(where: { $0.device.hasPrefix("llvmpipe") }) {
            XCTAssertEqual(lavapipe.kind, .cpu, "lavapipe is VK_PHYSICAL_DEVICE_TYPE_CPU")
            XCTAssertTrue(lavapipe.driver.hasPrefix("llvmpipe Mesa"), lavapipe.driver)
            XCTAssertTrue(lavapipe.narrowStorage, "lavapipe offers storageBuffer16BitAccess")
        }
        XCTAssertFalse(try load(narrow: false).units().contains { $0.narrowStorage })
    }

    /// No loader: open fails with no_device and says why; the host goes on without it.
    func testMissingLoaderIsReportedAtOpen() throws {
        let path = try pluginPath()
        setenv("WAI_VULKAN_LOADER", "/nonexistent/libvulkan.so.1", 1)
        defer { unsetenv("WAI_VULKAN_LOADER") }
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            guard case let PluginError.callFailed(_, call, status, message) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(call, "open")
            XCTAssertEqual(status, "no_device")
            XCTAssertTrue(message.contains("no Vulkan loader"), message)
            XCTAssertTrue(message.contains("/nonexistent/libvulkan.so.1"), message)
        }
    }

    func testBadRequestsAreRefusedWithAMessage() throws {
        let plugin = try load()
        XCTAssertThrowsError(try plugin.prepare(unit: 999, graph: try Self.smallGraph())) { error in
            XCTAssertTrue("\(error)".contains("999"), "\(error)")
        }
        let prepared = try plugin.prepare(unit: 0, graph: try Self.smallGraph())
        XCTAssertThrowsError(try prepared.run([TensorValue(shape: Shape(1, 2, 2), values: [0, 1, 40000, 2])])) { error in
            XCTAssertTrue("\(error)".contains("40000"), "\(error)")
        }
        // rnd(x, 2) = (x + 2) >> 2: −10 → −2 (floor of −2), 1 → 0, 10 → 3.
        XCTAssertEqual(try prepared.run([TensorValue(shape: Shape(1, 2, 2), values: [0, 1, -10, 10])])[0].values, [0, 0, -2, 3])
    }

    static func smallGraph() throws -> IntegerGraph {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 2, 2), storage: .narrow, interval: Interval(lo: -10, hi: 10))
        let y = try b.requantize(x, RequantizeParams(multiplier: [1], shift: [2], lo: -100, hi: 100))
        return try b.build(outputs: [y])
    }

    // MARK: - every op against the reference

    func testConvolutionsBothWidths() throws {
        try BackendCases.assertExact(BackendCases.convolutions(), on: targets())
    }

    /// The tiled kernels' partial tiles, channel blocks, chunks, phases and borders.
    func testTiledConvolutionEdgesBothWidths() throws {
        try BackendCases.assertExact(BackendCases.tiledConvolutionEdges(), on: targets())
    }

    func testElementwiseOpsBothWidths() throws {
        try BackendCases.assertExact(BackendCases.elementwise(), on: targets())
    }

    func testInverseGDNBothWidths() throws {
        try BackendCases.assertExact(BackendCases.inverseGDN(), on: targets())
    }

    /// Gamma over two uniform windows, and a group read through the storage view (§8).
    func testInverseGDNOverWindows() throws {
        try BackendCases.assertExact([BackendCases.inverseGDNWindows(), BackendCases.inverseGDNLargeGroup()], on: targets())
    }

    /// isqrt at the top of int32 (n up to 2^31 − 1, where a float estimate is off and
    /// (r + 1)² is near 2^32) and at perfect squares ± 1.
    func testInverseGDNSquareRootEdges() throws {
        try BackendCases.assertExact([BackendCases.squareRootEdges()], on: targets())
    }

    /// Shifts of negative values at every count and ties in both directions (§3).
    func testShiftAndRoundingEdges() throws {
        try BackendCases.assertExact(BackendCases.requantizeShifts(), on: targets())
    }

    /// The warp (docs/integer-ops.md §4.10): the shared cases every backend runs.
    func testWarpBothWidths() throws {
        try BackendCases.assertExact(BackendCases.warp(), on: targets())
    }

    /// The int_hyper synthesis shape, small: transposed convs, requantize, inverse GDN.
    func testSynthesisShapedGraph() throws {
        try BackendCases.assertExact([BackendCases.synthesis()], on: targets())
    }

    /// docs/backend-abi.md §8: distinct prepared graphs may run concurrently (they share the
    /// device's queue).
    func testConcurrentRunsOfDifferentGraphs() throws {
        try BackendCases.assertConcurrentRuns(on: try load(), repeats: 3)
    }

    // MARK: - the probe and the golden decodes

    func testExactnessProbeAcceptsEveryVulkanUnit() throws {
        let folder = try IntHyperTestSupport.temporaryDirectory("vulkan-plugins")
        try FileManager.default.copyItem(atPath: try pluginPath(), toPath: folder + "/libWaiVulkanBackend.so")
        let worker = try XCTUnwrap(HostConfiguration.fromEnvironment().unitWorkerExecutable,
                                   "no waihost-unit-worker beside the tests: build it first (swift build)")
        let configuration = HostConfiguration(pluginDirectories: [folder],
                                              cacheDirectory: try IntHyperTestSupport.temporaryDirectory("vulkan-cache"),
                                              unitWorker: worker, probeTimeout: 300)
        let result = try BackendHost(configuration: configuration).probe(fresh: true)
        let rows = result.units.filter { $0.backend.hasPrefix("vulkan") }
        XCTAssertFalse(rows.isEmpty, "no vulkan row in the probe: \(result.units.map { "\($0.backend): \($0.reason)" })")
        for row in rows {
            XCTAssertEqual(row.state, .accepted, "\(row.backend) \(row.device): \(row.reason)")
            XCTAssertTrue(row.driver.contains("Vulkan 1."), row.driver)
        }
    }

    /// Every golden vector decoded with `--backend vulkan` gives the golden SHA-256.
    func testGoldenDecodesOnVulkan() throws {
        let golden = try IntHyperTestSupport.golden()
        let plugins = try IntHyperTestSupport.temporaryDirectory("vulkan-decode-plugins")
        try FileManager.default.copyItem(atPath: try pluginPath(), toPath: plugins + "/libWaiVulkanBackend.so")
        let dir = try IntHyperTestSupport.temporaryDirectory("vulkan-decode")
        for vector in golden.vectors {
            let out = dir + "/\(vector.payload).rgb"
            let run = try waihost(["decode", IntHyperTestSupport.samples + "/" + vector.payload, "--model",
                                   IntHyperTestSupport.sampleModel, "-o", out, "--backend", "vulkan", "--json",
                                   "--plugin-dir", plugins])
            XCTAssertEqual(run.status, 0, "\(vector.payload): \(run.stderr)")
            guard run.status == 0 else { continue }
            let report = try JSONDecoder().decode(IntHyperDecodeReport.self, from: Data(run.stdout))
            XCTAssertEqual(report.backend, "vulkan", vector.payload)
            XCTAssertEqual(report.dispatch, .forced, vector.payload)
            XCTAssertEqual(SHA256.hex(try IntHyperTestSupport.read(out)), vector.sha256, vector.payload)
        }
    }

    private func waihost(_ args: [String]) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let r = try CLIRun.run(TestPaths.waihost, args,
                               environment: ["WAIHOST_CACHE_DIR": try IntHyperTestSupport.temporaryDirectory("vulkan-cli-cache"),
                                             "WAI_PLUGIN_PATH": nil])
        return (r.status, r.stdout, r.stderr)
    }
}
