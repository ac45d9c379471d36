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

/// The OpenCL backend plugin (Plugins/OpenCLBackend, libWaiOpenCLBackend.so) on every OpenCL
/// device of the machine — in CI PoCL's CPU device — against the reference interpreter:
/// every op of docs/integer-ops.md §4 with narrow tensors stored as short and with the int
/// fallback, the exactness probe, the golden decodes, the program cache, and the failures a
/// user sees without a loader or a driver. A machine without an OpenCL device fails these
/// tests saying so: CI installs pocl-opencl-icd, so a missing device is a broken setup.
final class OpenCLBackendTests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    struct Setup: Error, CustomStringConvertible { let description: String }

    static func pluginPath() throws -> String {
        let path = TestPaths.product("libWaiOpenCLBackend.so")
        guard FileManager.default.fileExists(atPath: path) else {
            throw Setup(description: "\(path) is missing: swift build builds it (product WaiOpenCLBackend)")
        }
        return path
    }

    /// One program cache folder for the whole class, never the user's: the program is built
    /// from source once per run (PoCL compiles slowly) and loaded from there afterwards.
    private static var programCache: String?

    override func setUpWithError() throws {
        if Self.programCache.map({ !FileManager.default.fileExists(atPath: $0) }) ?? true {
            Self.programCache = try IntHyperTestSupport.temporaryDirectory("opencl-program-cache")
        }
        setenv("WAI_OPENCL_CACHE_DIR", Self.programCache ?? "", 1)
    }

    override func tearDown() { unsetenv("WAI_OPENCL_CACHE_DIR") }

    /// The backend opened with WAI_OPENCL_NARROW as given (nil: default, short storage).
    private func load(narrow: Bool? = nil) throws -> BackendPlugin {
        let path = try Self.pluginPath()
        if let narrow { setenv("WAI_OPENCL_NARROW", narrow ? "1" : "0", 1) } else { unsetenv("WAI_OPENCL_NARROW") }
        defer { unsetenv("WAI_OPENCL_NARROW") }
        do {
            let plugin = try BackendPlugin.load(path: path)
            guard try !plugin.units().isEmpty else { throw Setup(description: "the opencl backend lists no unit") }
            return plugin
        } catch {
            throw Setup(description: "no usable OpenCL device on this machine (install pocl-opencl-icd; scripts/install-deps.sh does): \(error)")
        }
    }

    /// Every unit, with short storage and with the int fallback.
    private func targets() throws -> [BackendCases.Target] {
        var result: [BackendCases.Target] = []
        for narrow in [true, false] {
            let plugin = try load(narrow: narrow)
            for unit in try plugin.units() {
                XCTAssertEqual(unit.narrowStorage, narrow, unit.device)
                result.append(("\(unit.device) [\(narrow ? "short storage" : "int storage")]", plugin, unit.index))
            }
        }
        return result
    }

    // MARK: - units

    func testEveryOpenCLDeviceIsAUnitWithItsDriverIdentity() throws {
        let units = try load().units()
        for unit in units {
            XCTAssertFalse(unit.device.isEmpty)
            XCTAssertTrue(unit.driver.contains("; device OpenCL "), unit.driver)
            XCTAssertTrue(unit.driver.contains("; driver "), unit.driver)
            XCTAssertLessThanOrEqual(unit.driver.utf8.count, 127, unit.driver)
            XCTAssertTrue(unit.narrowStorage, "short is a core OpenCL C storage type")
        }
        let pocl = try XCTUnwrap(units.first { $0.driver.hasPrefix("Portable Computing Language") },
                                 "no PoCL unit among \(units.map(\.driver)) (scripts/install-deps.sh installs pocl-opencl-icd)")
        XCTAssertEqual(pocl.kind, .cpu, "PoCL's pthread device is CL_DEVICE_TYPE_CPU")
        XCTAssertTrue(pocl.driver.contains("PoCL"), pocl.driver)
        XCTAssertFalse(try load(narrow: false).units().contains { $0.narrowStorage })
    }

    /// No loader: open fails with no_device and says why.
    func testMissingLoaderIsReportedAtOpen() throws {
        let path = try Self.pluginPath()
        setenv("WAI_OPENCL_LOADER", "/nonexistent/libOpenCL.so.1", 1)
        defer { unsetenv("WAI_OPENCL_LOADER") }
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            guard case let PluginError.callFailed(_, call, status, message) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(call, "open")
            XCTAssertEqual(status, "no_device")
            XCTAssertTrue(message.contains("no OpenCL ICD loader"), message)
            XCTAssertTrue(message.contains("/nonexistent/libOpenCL.so.1"), message)
        }
    }

    /// What `waihost probe` shows for the plugin without a loader and with a loader but no
    /// driver (the ICD loader reads its vendors once per process, hence the CLI): a failed
    /// row with the reason, and the probe goes on.
    func testProbeListsTheBackendAsFailedWithoutLoaderOrDriver() throws {
        let plugins = try IntHyperTestSupport.temporaryDirectory("opencl-failed-plugins")
        try FileManager.default.copyItem(atPath: try Self.pluginPath(), toPath: plugins + "/libWaiOpenCLBackend.so")
        let noVendors = try IntHyperTestSupport.temporaryDirectory("opencl-no-vendors")
        for (env, reason) in [(["WAI_OPENCL_LOADER": "/nonexistent/libOpenCL.so.1"], "no OpenCL ICD loader"),
                              (["OCL_ICD_VENDORS": noVendors], "no OpenCL platform")] {
            let run = try OpenCLCLI.waihost(["probe", "--json", "--fresh", "--plugin-dir", plugins], env: env)
            XCTAssertEqual(run.status, 0, run.stderr)
            let rows = try OpenCLCLI.units(run.stdout)
            XCTAssertEqual(rows.count, 1, "\(rows)")
            XCTAssertEqual(rows.first?.state, "failed", "\(rows)")
            XCTAssertTrue(rows.first?.reason.contains("no_device") == true && rows.first?.reason.contains(reason) == true,
                          rows.first?.reason ?? "")
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

    // MARK: - the program cache

    /// The first prepare writes the device's program binary into the cache folder; a later
    /// backend instance uses it, and a damaged file is rebuilt from source, not trusted.
    func testProgramsAreCachedOnDiskAndADamagedFileIsRebuilt() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("opencl-cache-check")
        setenv("WAI_OPENCL_CACHE_DIR", dir, 1)
        let input = [TensorValue(shape: Shape(1, 2, 2), values: [0, 1, -10, 10])]
        XCTAssertEqual(try load().prepare(unit: 0, graph: try Self.smallGraph()).run(input)[0].values, [0, 0, -2, 3])
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".clbin") }
        XCTAssertEqual(files.count, try load().units().count, "one program per device: \(files)")
        guard let file = files.first.map({ dir + "/" + $0 }) else { return }
        let whole = try Data(contentsOf: URL(fileURLWithPath: file))
        XCTAssertTrue(whole.starts(with: Array("WAIOCLB1".utf8)))
        // The key (platform, device, driver, options and the kernel source) is stored whole.
        XCTAssertNotNil(whole.range(of: Data("waihost OpenCL kernels".utf8)))
        try whole.prefix(whole.count - 100).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try load().prepare(unit: 0, graph: try Self.smallGraph()).run(input)[0].values, [0, 0, -2, 3])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)).count, whole.count, "the damaged file was rewritten")
    }

    // MARK: - every op against the reference

    func testConvolutionsBothWidths() throws {
        try BackendCases.assertExact(BackendCases.convolutions(), on: targets())
    }

    /// The tiled kernels' partial tiles, channel blocks, chunks, phases and borders.
    func testTiledConvolutionEdgesBothWidths() throws {
        try BackendCases.assertExact(BackendCases.tiledConvolutionEdges(), on: targets())
    }

    /// docs/gpu-kernels.md §5: with __constant memory capped at 4 KiB (WAI_OPENCL_CONSTANT_BYTES)
    /// a phase's groups spread over more windows, and a group larger than the cap (5×5 taps ×
    /// 180 inputs, 3×3 × 11) is read through __global; the integers are the same.
    func testConvolutionWeightsPastTheConstantBufferAreReadFromGlobalMemory() throws {
        setenv("WAI_OPENCL_CONSTANT_BYTES", "4096", 1)
        defer { unsetenv("WAI_OPENCL_CONSTANT_BYTES") }
        let plugin = try load()
        let targets = try plugin.units().map { ("\($0.device) [4 KiB constant]", plugin, $0.index) }
        try BackendCases.assertExact(BackendCases.tiledConvolutionEdges(), on: targets)
    }

    /// docs/gpu-kernels.md §8: inverse GDN's gamma in one __constant window, and with the cap
    /// at 4 KiB each 4352-byte group in a window of its own read through __global.
    func testInverseGDNOverWindows() throws {
        try BackendCases.assertExact([BackendCases.inverseGDNWindows()], on: targets())
        setenv("WAI_OPENCL_CONSTANT_BYTES", "4096", 1)
        defer { unsetenv("WAI_OPENCL_CONSTANT_BYTES") }
        let plugin = try load()
        let capped = try plugin.units().map { ("\($0.device) [4 KiB constant]", plugin, $0.index) }
        try BackendCases.assertExact([BackendCases.inverseGDNWindows()], on: capped)
    }

    /// A constant cap that is not a byte count refuses to open, naming the variable.
    func testABadConstantCapIsRefusedAtOpen() throws {
        let path = try Self.pluginPath()
        setenv("WAI_OPENCL_CONSTANT_BYTES", "64k", 1)
        defer { unsetenv("WAI_OPENCL_CONSTANT_BYTES") }
        XCTAssertThrowsError(try BackendPlugin.load(path: path)) { error in
            XCTAssertTrue("\(error)".contains("WAI_OPENCL_CONSTANT_BYTES=64k is not a byte count"), "\(error)")
        }
    }

    /// The convolution programs are cached per set of -D constants: the key, stored whole in
    /// the file, holds them, and a second backend instance builds nothing new.
    func testConvolutionProgramsAreCachedPerConstants() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("opencl-conv-cache-check")
        setenv("WAI_OPENCL_CACHE_DIR", dir, 1)
        let cases = try BackendCases.tiledConvolutionEdges().prefix(2)
        try BackendCases.assertExact(Array(cases), on: [("first", try load(), 0)])
        func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".clbin") }.sorted() }
        let first = try files()
        let keyed = try first.filter { try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0)).range(of: Data("-D TRANSPOSED=0 -D UNROLLED=1 -D NU=5 -D NV=5 -D CS=2".utf8)) != nil }
        XCTAssertEqual(keyed.count, 1, "the 5×5 stride-2 program, once: \(first)")
        XCTAssertGreaterThan(first.count, 2, "element-wise program and the convolutions' programs: \(first)")
        try BackendCases.assertExact(Array(cases), on: [("second", try load(), 0)])
        XCTAssertEqual(try files(), first)
    }

    func testElementwiseOpsBothWidths() throws {
        try BackendCases.assertExact(BackendCases.elementwise(), on: targets())
    }

    func testInverseGDNBothWidths() throws {
        try BackendCases.assertExact(BackendCases.inverseGDN(), on: targets())
    }

    /// isqrt at the top of int32 and at perfect squares ± 1 (the kernel's root is integer-only).
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

    /// docs/backend-abi.md §8: distinct prepared graphs may run concurrently (each has its
    /// own queue and kernel objects; they share the device's context and program).
    func testConcurrentRunsOfDifferentGraphs() throws {
        try BackendCases.assertConcurrentRuns(on: try load(), repeats: 3)
    }

    // MARK: - the probe and the golden decodes

    func testExactnessProbeAcceptsEveryOpenCLUnit() throws {
        let plugins = try IntHyperTestSupport.temporaryDirectory("opencl-plugins")
        try FileManager.default.copyItem(atPath: try Self.pluginPath(), toPath: plugins + "/libWaiOpenCLBackend.so")
        let run = try OpenCLCLI.waihost(["probe", "--json", "--fresh", "--plugin-dir", plugins])
        XCTAssertEqual(run.status, 0, run.stderr)
        let rows = try OpenCLCLI.units(run.stdout).filter { $0.backend.hasPrefix("opencl") }
        XCTAssertFalse(rows.isEmpty, "no opencl row in the probe: \(run.stdout)")
        for row in rows {
            XCTAssertEqual(row.state, "accepted", "\(row.backend) \(row.device): \(row.reason)")
            XCTAssertTrue(row.driver.contains("; device OpenCL "), row.driver)
        }
    }

    /// Issue 10 part 6: a unit that passed the probe and then fails at run time — here the
    /// driver refuses a kernel enqueue (the README's test hook WAI_OPENCL_TEST_HOOK=fail-enqueue
    /// hands it a work-group size that does not divide the global size) — is marked failed and
    /// the decode runs on the next accepted choice with the golden bytes; the report says
    /// dispatch_unit_failed and why. A value that is not a hook refuses to open.
    func testAUnitFailingAtRunTimeFallsBackToTheNextAcceptedUnit() throws {
        let golden = try IntHyperTestSupport.golden()
        let vector = try XCTUnwrap(golden.vectors.first)
        let plugins = try IntHyperTestSupport.temporaryDirectory("opencl-fail-plugins")
        try FileManager.default.copyItem(atPath: try Self.pluginPath(), toPath: plugins + "/libWaiOpenCLBackend.so")
        let cache = try IntHyperTestSupport.temporaryDirectory("opencl-fail-cache")
        // The probe runs without the hook: the units are accepted, and the verdicts cached.
        let probe = try OpenCLCLI.waihost(["probe", "--json", "--fresh", "--plugin-dir", plugins], cache: cache)
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let accepted = try OpenCLCLI.units(probe.stdout).filter { $0.backend.hasPrefix("opencl") && $0.state == "accepted" }
        XCTAssertFalse(accepted.isEmpty, probe.stdout)

        let out = try IntHyperTestSupport.temporaryDirectory("opencl-fail-decode") + "/out.rgb"
        let run = try OpenCLCLI.waihost(["decode", IntHyperTestSupport.samples + "/" + vector.payload, "--model",
                                         IntHyperTestSupport.sampleModel, "-o", out, "--backend", "opencl", "--json",
                                         "--plugin-dir", plugins], env: ["WAI_OPENCL_TEST_HOOK": "fail-enqueue"], cache: cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try JSONDecoder().decode(IntHyperDecodeReport.self, from: Data(run.stdout.utf8))
        // h_s runs first: its run meets the failure and falls back; g_s then finds opencl:0 failed.
        let first = try XCTUnwrap(report.runs.first, "\(report)")
        XCTAssertEqual(first.graph, "h_s")
        XCTAssertEqual(first.dispatch, .unitFailed, "\(report.runs)")
        XCTAssertFalse(report.runs.contains { $0.backend == "opencl" }, "every opencl unit fails under the hook: \(report.runs)")
        // The first run on the unit is its model qualification for h_s (docs/probe.md §9):
        // the failure is met there, and the unit is marked failed the same way.
        XCTAssertTrue(report.reason.contains("opencl:0 failed"), report.reason)
        XCTAssertTrue(report.reason.contains("clEnqueueNDRangeKernel(dispatch 0) failed: CL_INVALID_WORK_GROUP_SIZE"), report.reason)
        XCTAssertEqual(SHA256.hex(try IntHyperTestSupport.read(out)), vector.sha256, "the fallback's bytes are the golden ones")

        // bench says why its graphs did not run on the requested unit (the failure met in its warm-up).
        let bench = try OpenCLCLI.waihost(["bench", "--size", "32x32", "--runs", "1", "--no-reference", "--backend", "opencl",
                                           "--json", "--plugin-dir", plugins], env: ["WAI_OPENCL_TEST_HOOK": "fail-enqueue"], cache: cache)
        XCTAssertEqual(bench.status, 0, bench.stderr)
        let benchUnit = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(bench.stdout.utf8)) as? [String: Any])?["unit"]
                                          as? [String: Any], bench.stdout)
        XCTAssertEqual(benchUnit["backend"] as? String, "reference", bench.stdout)
        XCTAssertTrue((benchUnit["reason"] as? String ?? "").contains("CL_INVALID_WORK_GROUP_SIZE"), bench.stdout)

        let stray = try OpenCLCLI.waihost(["probe", "--json", "--fresh", "--plugin-dir", plugins],
                                          env: ["WAI_OPENCL_TEST_HOOK": "1"], cache: cache)
        XCTAssertEqual(stray.status, 0, stray.stderr)
        let rows = try OpenCLCLI.units(stray.stdout)
        XCTAssertFalse(rows.contains { $0.state == "accepted" && $0.backend.hasPrefix("opencl") }, stray.stdout)
        let row = try XCTUnwrap(rows.first { $0.reason.contains("WAI_OPENCL_TEST_HOOK=1 is not a test hook") }, stray.stdout)
        XCTAssertEqual(row.state, "failed")
    }

    /// Every golden vector decoded with `--backend opencl` gives the golden SHA-256.
    func testGoldenDecodesOnOpenCL() throws {
        let golden = try IntHyperTestSupport.golden()
        let plugins = try IntHyperTestSupport.temporaryDirectory("opencl-decode-plugins")
        try FileManager.default.copyItem(atPath: try Self.pluginPath(), toPath: plugins + "/libWaiOpenCLBackend.so")
        let dir = try IntHyperTestSupport.temporaryDirectory("opencl-decode")
        // One host cache for the three decodes: the unit is probed once, by the first.
        let cache = try IntHyperTestSupport.temporaryDirectory("opencl-decode-cache")
        for vector in golden.vectors {
            let out = dir + "/\(vector.payload).rgb"
            let run = try OpenCLCLI.waihost(["decode", IntHyperTestSupport.samples + "/" + vector.payload, "--model",
                                             IntHyperTestSupport.sampleModel, "-o", out, "--backend", "opencl", "--json",
                                             "--plugin-dir", plugins], cache: cache)
            XCTAssertEqual(run.status, 0, "\(vector.payload): \(run.stderr)")
            guard run.status == 0 else { continue }
            let report = try JSONDecoder().decode(IntHyperDecodeReport.self, from: Data(run.stdout.utf8))
            XCTAssertEqual(report.backend, "opencl", vector.payload)
            XCTAssertEqual(report.dispatch, .forced, vector.payload)
            XCTAssertEqual(SHA256.hex(try IntHyperTestSupport.read(out)), vector.sha256, vector.payload)
        }
    }
}

/// The `waihost` beside the tests, run with a cache folder of its own. A cold program build
/// on a loaded machine can take longer than the probe's default 20 s per stage (see
/// docs/drivers.md §3), so the probe here waits up to 300 s: these tests check exactness,
/// not speed.
enum OpenCLCLI {
    struct Row: Decodable { var backend: String; var device: String; var driver: String; var state: String; var reason: String }
    private struct Probe: Decodable { var units: [Row] }

    static func units(_ json: String) throws -> [Row] {
        try JSONDecoder().decode(Probe.self, from: Data(json.utf8)).units
    }

    /// `cache`: the host's cache folder (the probe verdicts); a fresh one by default.
    static func waihost(_ args: [String], env extra: [String: String] = [:], cache: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        var env: [String: String?] = ["WAIHOST_CACHE_DIR": try cache ?? IntHyperTestSupport.temporaryDirectory("opencl-cli-cache"),
                                      "WAI_PLUGIN_PATH": nil, "WAIHOST_PROBE_TIMEOUT": "300"]
        for (k, v) in extra { env[k] = v }
        let r = try CLIRun.run(TestPaths.waihost, args, environment: env)
        return (r.status, r.text, r.stderr)
    }
}
