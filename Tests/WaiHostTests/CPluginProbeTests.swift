import BackendABI
import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The exactness probe, out of process, on the plain-C backend and its deliberately wrong
/// variants, all in one plugin folder (docs/backend-abi.md §10, §12): the good one is
/// accepted, each wrong one is refused at the stage and for the reason its defect calls
/// for, and none of them stops the others from being probed.
final class CPluginProbeTests: XCTestCase {
    private let builder = CPluginBuilder.shared

    override class func tearDown() {
        CPluginBuilder.shared.removeAll()
        super.tearDown()
    }

    /// Everything but the hanging variant, so the time limit can be generous: no verdict
    /// here may depend on how fast the machine is.
    func testProbeAcceptsTheGoodBackendAndRefusesEachDefectForItsReason() throws {
        let dir = try builder.makeDirectory("plugins")
        let variants = CPluginVariant.allCases.filter { $0 != .hang && $0 != .oomLarge && $0 != .noWarp }
        try builder.install(variants, into: dir)
        let notELF = dir + "/bad.so"
        try "this is a text file, not a shared object\n".write(toFile: notELF, atomically: true, encoding: .utf8)

        let result = try probe(directory: dir, timeout: 300)
        XCTAssertEqual(result.units.map(\.path).sorted(), (variants.map { dir + "/" + $0.fileName } + [notELF]).sorted(),
                       "one row per file")
        func row(_ v: CPluginVariant) throws -> UnitProbeRecord {
            try XCTUnwrap(result.units.first { $0.path == dir + "/" + v.fileName }, "no row for \(v)")
        }

        let good = try row(.good)
        XCTAssertEqual(good.state, .accepted, good.reason)
        XCTAssertEqual(good.backend, "plainc")
        XCTAssertEqual(good.unit, .cpu)
        XCTAssertEqual(good.device, "plain C test unit")
        XCTAssertEqual(good.rank, 1)
        XCTAssertNotNil(good.speed)
        XCTAssertEqual(result.accepted.map(\.path), [good.path], "only the good backend is accepted")

        let semantic: Set<String> = ["requantize", "inverse_gdn"]   // the ops that shift negatives
        let convs: Set<String> = ["conv2d", "conv_transpose2d"]      // the narrow kernels
        try assertRejected(row(.shiftZeroFill), stage: .semantics, ops: semantic)
        try assertRejected(row(.tiesDown), stage: .semantics, ops: semantic)
        let narrow = try assertRejected(row(.narrowWrap), stage: .widths, ops: convs)
        XCTAssertEqual(narrow?.expected, -32768)
        XCTAssertEqual(narrow?.got, -32767)
        try assertRejected(row(.tconvPad), stage: .arithmetic, ops: ["conv_transpose2d"])
        try assertRejected(row(.warpBorder), stage: .semantics, ops: ["warp"])
        let away = try assertRejected(row(.warpAway), stage: .semantics, ops: ["warp"])
        XCTAssertEqual(away?.graph, "warp_ties", "a tie of a negative acc is where it differs")

        let crash = try row(.crash)
        XCTAssertEqual(crash.state, .rejected, crash.reason)
        XCTAssertTrue(crash.reason.contains("SIGSEGV"), crash.reason)
        XCTAssertEqual(crash.stage, ProbeStage.allCases.first.map(VerdictStage.init), "it dies in the first graph run")

        try assertFailed(row(.abiMajor), mentioning: ["abi_mismatch", "ABI 2.0", "host offers 1.\(WAI_ABI_MINOR)"])
        try assertFailed(row(.tableMajor), mentioning: ["ABI major 2", "host speaks 1"])
        let shortSize = try XCTUnwrap(MemoryLayout<wai_backend_iface>.offset(of: \.graph_run))
        try assertFailed(row(.shortTable), mentioning: ["struct_size \(shortSize)"])
        try assertFailed(row(.noEntry), mentioning: ["wai_backend_entry"])
        let text = try XCTUnwrap(result.units.first { $0.path == notELF })
        XCTAssertEqual(text.state, .failed)
        XCTAssertTrue(text.reason.contains("not an ELF shared object"), text.reason)
    }

    /// An exact ABI 1.0 backend, which knows no warp (docs/backend-abi.md §2.4, §13): it
    /// answers the warp's graphs `unsupported` and stays accepted for the nine 1.0 ops;
    /// the 1.1 build of the same source is exact on all ten.
    func testAOneZeroBackendIsAcceptedForTheOneZeroOpsAndRefusesTheWarp() throws {
        let dir = try builder.makeDirectory("abi-1-0")
        try builder.install([.noWarp, .good], into: dir)
        let result = try probe(directory: dir, timeout: 300)
        let old = try XCTUnwrap(result.units.first { $0.backend == CPluginVariant.noWarp.backendName })
        XCTAssertEqual(old.state, .accepted, old.reason)
        XCTAssertEqual(old.coverage?.unsupported, [.warp])
        XCTAssertEqual(Set(old.coverage?.exact.map(\.op) ?? []), Set(OpKind.allCases.filter { $0 != .warp }))
        let new = try XCTUnwrap(result.units.first { $0.backend == CPluginVariant.good.backendName })
        XCTAssertEqual(new.state, .accepted, new.reason)
        XCTAssertEqual(new.coverage?.unsupported, [])
        XCTAssertEqual(new.coverage?.exact.count, OpKind.allCases.count)
    }

    /// A backend whose graph_run never returns is rejected once the time limit passes.
    func testHangingBackendIsRejectedWithATimeout() throws {
        let dir = try builder.makeDirectory("hang")
        try builder.install([.hang], into: dir)
        let result = try probe(directory: dir, timeout: 5)
        XCTAssertEqual(result.units.count, 1)
        let hang = try XCTUnwrap(result.units.first)
        XCTAssertEqual(hang.backend, "plainc-hang")
        XCTAssertEqual(hang.state, .rejected, hang.reason)
        XCTAssertTrue(hang.reason.contains("timed out"), hang.reason)
        XCTAssertEqual(hang.stage, ProbeStage.allCases.first.map(VerdictStage.init), "it hangs in the first graph run")
    }

    /// A unit that passed the probe but runs out of memory on a graph larger than any probe
    /// graph (here: in graph_prepare, past 2^20 elements) is not marked failed: the host
    /// learns its size limit, the graph runs elsewhere with the same integers, the report
    /// names the refusal, and smaller graphs keep running on the unit
    /// (docs/capabilities/int_hyper.md §3.1, "Units with buffer limits").
    func testAUnitOutOfMemoryOnALargeGraphRunsItElsewhereAndKeepsSmallerOnes() throws {
        let dir = try builder.makeDirectory("plugins")
        try builder.install([.oomLarge], into: dir)
        let worker = try XCTUnwrap(HostConfiguration.fromEnvironment().unitWorkerExecutable,
                                   "no waihost-unit-worker beside the tests: build it first (swift build)")
        let host = BackendHost(configuration: HostConfiguration(pluginDirectories: [dir],
                                                                 cacheDirectory: try builder.makeDirectory("cache"),
                                                                 unitWorker: worker, probeTimeout: 300))
        let probed = try host.probe(fresh: true)
        XCTAssertEqual(probed.accepted.map(\.backend), ["plainc-oom-large"], "its probe graphs are small enough")

        func clampGraph(_ h: Int, _ w: Int) throws -> (IntegerGraph, TensorValue) {
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, h, w), storage: .wide, interval: Interval(lo: -100_000, hi: 100_000))
            let y = try b.clamp(x, lo: -5, hi: 70_000)
            let values: [Int32] = (0..<(h * w)).map { Int32($0 % 200_001) - 100_000 }
            return (try b.build(outputs: [y]), TensorValue(shape: Shape(1, h, w), values: values))
        }
        let (graph, input) = try clampGraph(1024, 1025)
        let expected = try ReferenceInterpreter.run(graph, inputs: [input])

        let (first, report) = try host.run(graph, inputs: [input], on: .best)
        XCTAssertEqual(first, expected)
        XCTAssertEqual(report.backend, "reference")
        XCTAssertTrue(report.reason.contains("plainc-oom-large:0 refused a graph with a tensor of 1049600 elements"), report.reason)
        XCTAssertTrue(report.reason.contains("out_of_memory"), report.reason)

        // Forcing it afterwards does not run that graph on it either: it is past the unit's limit.
        let (second, forced) = try host.run(graph, inputs: [input], on: .backend("plainc-oom-large"))
        XCTAssertEqual(second, expected)
        XCTAssertEqual(forced.backend, "reference")
        XCTAssertTrue(forced.reason.contains("cannot run this graph"), forced.reason)

        // A graph below the limit still runs on the unit: it was not marked failed.
        let (small, smallInput) = try clampGraph(64, 65)
        let (third, onUnit) = try host.run(small, inputs: [smallInput], on: .best)
        XCTAssertEqual(third, try ReferenceInterpreter.run(small, inputs: [smallInput]))
        XCTAssertEqual(onUnit.backend, "plainc-oom-large", onUnit.reason)
    }

    // MARK: helpers

    private func probe(directory: String, timeout: Double) throws -> ProbeResult {
        let worker = try XCTUnwrap(HostConfiguration.fromEnvironment().unitWorkerExecutable,
                                   "no waihost-unit-worker beside the tests: build it first (swift build)")
        let configuration = HostConfiguration(pluginDirectories: [directory],
                                              cacheDirectory: try builder.makeDirectory("cache"),
                                              unitWorker: worker, probeTimeout: timeout)
        return try BackendHost(configuration: configuration).probe(fresh: true)
    }

    /// A rejection by a mismatch: the stage, an op of `ops`, and both values, also in the reason.
    @discardableResult
    private func assertRejected(_ row: UnitProbeRecord, stage: ProbeStage, ops: Set<String>,
                                file: StaticString = #filePath, line: UInt = #line) -> ProbeMismatch? {
        XCTAssertEqual(row.state, .rejected, "\(row.backend): \(row.reason)", file: file, line: line)
        XCTAssertEqual(row.stage, VerdictStage(stage), "\(row.backend): \(row.reason)", file: file, line: line)
        guard let m = row.mismatch else {
            XCTFail("\(row.backend): no mismatch details in \(row.reason)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(m.stage, VerdictStage(stage), file: file, line: line)
        XCTAssertTrue(ops.contains(m.op.name), "\(row.backend): mismatch in op \(m.op), expected one of \(ops.sorted())",
                      file: file, line: line)
        XCTAssertNotEqual(m.expected, m.got, file: file, line: line)
        XCTAssertTrue(row.reason.contains(m.op.name) && row.reason.contains("expected \(m.expected), got \(m.got)"),
                      row.reason, file: file, line: line)
        return m
    }

    private func assertFailed(_ row: UnitProbeRecord, mentioning words: [String],
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(row.state, .failed, row.reason, file: file, line: line)
        XCTAssertNil(row.rank, file: file, line: line)
        for w in words {
            XCTAssertTrue(row.reason.contains(w), "\(row.path): \"\(w)\" not in \(row.reason)", file: file, line: line)
        }
    }
}
