import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Plugin code runs only in unit workers (docs/probe.md §3): what a plugin prints cannot
/// forge a verdict or a speed, a debug line costs an exact plugin nothing, a crash or hang
/// in a real decode fails the unit and the decode completes elsewhere, and a plugin sees
/// the same process whether it is probed or decoding.
final class WorkerIsolationTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeAll()
        super.tearDown()
    }

    private func row(_ r: ProbeResult, _ b: IsoBackend) throws -> UnitProbeRecord {
        try XCTUnwrap(r.units.first { $0.backend == b.name }, "no row for \(b.name) in \(r.units.map(\.backend))")
    }

    func testAnExactBackendThatChattersOnStdoutAndStderrIsAcceptedAndRuns() throws {
        let f = try IsoFixture([.chatter], withGood: false)
        let host = BackendHost(configuration: try f.configuration())
        let chatter = try row(try host.probe(fresh: true), .chatter)
        XCTAssertEqual(chatter.state, .accepted, chatter.reason)
        XCTAssertEqual(chatter.rank, 1)
        XCTAssertNotNil(chatter.speed)

        let (graph, inputs) = try HostTestSupport.smallGraph()
        let (outputs, report) = try host.run(graph, inputs: inputs, on: .backend("isochatter"))
        XCTAssertEqual(outputs, try ReferenceInterpreter.run(graph, inputs: inputs))
        XCTAssertEqual(report.backend, "isochatter")
        XCTAssertEqual(report.dispatch, .forced)
    }

    func testForgedVerdictsAndSpeedsPrintedByAPluginChangeNothing() throws {
        let f = try IsoFixture([.forge])
        let cold = try BackendHost(configuration: try f.configuration()).probe(fresh: true)
        let warm = try BackendHost(configuration: try f.configuration()).probe()
        for result in [cold, warm] {
            let forge = try row(result, .forge)
            XCTAssertEqual(forge.state, .rejected, forge.reason)
            XCTAssertNil(forge.rank)
            XCTAssertNil(forge.speed, "its speed is never measured, let alone the one it printed")
            XCTAssertEqual(forge.mismatch?.got, (forge.mismatch?.expected).map { $0 + 1 }, forge.reason)
            XCTAssertEqual(result.accepted.map(\.backend), ["plainc"])
        }
        XCTAssertEqual(try row(warm, .forge).cached, true)

        let host = BackendHost(configuration: try f.configuration())
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let (outputs, report) = try host.run(graph, inputs: inputs, on: .backend("isoforge"))
        XCTAssertEqual(outputs, try ReferenceInterpreter.run(graph, inputs: inputs))
        XCTAssertEqual(report.backend, "plainc")
        XCTAssertEqual(report.dispatch, .dispatchUnitInexact)
    }

    func testACrashDuringARealDecodeFailsTheUnitAndTheDecodeCompletesOnTheNextUnit() throws {
        let f = try IsoFixture([.crash])
        let host = BackendHost(configuration: try f.configuration())
        let probed = try host.probe(fresh: true)
        XCTAssertEqual(try row(probed, .crash).state, .accepted, "exact until armed")
        try f.arm()

        let (graph, inputs) = try HostTestSupport.smallGraph()
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
        let (outputs, report) = try host.run(graph, inputs: inputs, on: .backend("isocrash"))
        XCTAssertEqual(outputs, expected)
        XCTAssertEqual(report.dispatch, .unitFailed)
        XCTAssertEqual(report.backend, "plainc")
        // The graph and its ops in order; one graph_run call runs them all, so the reason says
        // which was running is not known rather than guess (docs/probe.md §3).
        for words in ["isocrash:0 failed at run time", "signal 11 (SIGSEGV)",
                      "graph_run of graph of 3 nodes writing out (0 conv2d, 1 requantize, 2 clamp; one graph_run call runs them all, so which was running is not known), in 2×4×4, out 2×4×4 on unit 0",
                      "isocrash: armed, about to touch a wild pointer", "fatal signal 11", "backtrace:"] {
            XCTAssertTrue(report.reason.contains(words), "\"\(words)\" not in: \(report.reason)")
        }

        // The unit stays failed in this host; the host is alive and keeps decoding.
        let (again, second) = try host.run(graph, inputs: inputs, on: .backend("isocrash"))
        XCTAssertEqual(again, expected)
        XCTAssertEqual(second.dispatch, .dispatchUnitInexact)
        XCTAssertTrue(second.reason.contains("is failed"), second.reason)

        // A model set's graph is named as such; here the crash comes while the unit is being
        // qualified for it (a new host, whose worker starts armed), and the decode completes.
        let decoding = BackendHost(configuration: try f.configuration())
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel)
        let payload = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/odd-45x29.payload")
        let decoded = try IntHyperCodec.decode(payload, modelSet: set, runner: HostGraphRunner(host: decoding, selection: .backend("isocrash")))
        let golden = try XCTUnwrap(try IntHyperTestSupport.golden().vectors.first { $0.payload == "odd-45x29.payload" })
        XCTAssertEqual(decoded.image.sha256, golden.sha256)
        let hs = decoded.result.hyperSynthesisReport
        XCTAssertEqual(hs.dispatch, .unitFailed)
        XCTAssertEqual(hs.backend, "plainc")
        for words in ["isocrash:0 failed while being qualified for h_s of model set sample-n32-m48 1", "signal 11 (SIGSEGV)",
                      "during graph_run of h_s of model set sample-n32-m48 1 (efa3c9c10147) at the qualification size, graph of 6 nodes writing h_s_2_requantize (0 conv_transpose2d, 1 requantize, 2 conv_transpose2d",
                      "which was running is not known", "isocrash: armed", "backtrace:"] {
            XCTAssertTrue(hs.reason.contains(words), "\"\(words)\" not in: \(hs.reason)")
        }
    }

    func testAHangDuringARealDecodeIsKilledAtTheTimeLimitAndTheDecodeCompletes() throws {
        let f = try IsoFixture([.hang])
        let host = BackendHost(configuration: try f.configuration(runTimeout: 2))
        let probed = try host.probe(fresh: true)
        XCTAssertEqual(try row(probed, .hang).state, .accepted, "exact until armed")
        try f.arm()

        let (graph, inputs) = try HostTestSupport.smallGraph()
        let (outputs, report) = try host.run(graph, inputs: inputs, on: .backend("isohang"))
        XCTAssertEqual(outputs, try ReferenceInterpreter.run(graph, inputs: inputs))
        XCTAssertEqual(report.dispatch, .unitFailed)
        XCTAssertEqual(report.backend, "plainc")
        for words in ["isohang:0 failed at run time", "timed out after 2s during graph_run", "isohang: armed"] {
            XCTAssertTrue(report.reason.contains(words), "\"\(words)\" not in: \(report.reason)")
        }
    }

    /// The probe and a decode run in the same worker through the same calls, in this host
    /// and in a later one that only reads the cache: whatever the backend concludes from
    /// its argv, environment, process group or stdin, it concludes the same in both.
    func testABackendThatTriesToDetectTheProbeBehavesTheSameInADecode() throws {
        let f = try IsoFixture([.detect], withGood: false)
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
        let probingHost = BackendHost(configuration: try f.configuration())
        let verdict = try row(try probingHost.probe(fresh: true), .detect)
        let laterHost = BackendHost(configuration: try f.configuration())
        XCTAssertEqual(try row(try laterHost.probe(), .detect).cached, true)
        for host in [probingHost, laterHost] {
            let (outputs, report) = try host.run(graph, inputs: inputs, on: .backend("isodetect"))
            XCTAssertEqual(outputs, expected, "\(verdict.state): \(verdict.reason)")
            XCTAssertEqual(report.backend, verdict.state == .accepted ? "isodetect" : "reference")
        }
    }

    /// A worker that dies on every request is started a bounded number of times.
    func testWorkerRestartsAreBounded() throws {
        let f = try IsoFixture([.crash], withGood: false)
        try f.arm()
        let configuration = try f.configuration()
        let pool = WorkerPool(executable: configuration.unitWorkerExecutable)
        let worker = pool.worker(for: f.plugins + "/" + IsoBackend.crash.fileName, sha256: nil)
        let unit = WorkerUnit(worker: worker, unit: 0, timeout: 300)
        let (graph, inputs) = try HostTestSupport.smallGraph()
        var errors: [String] = []
        for _ in 0..<(PluginWorker.maxStarts + 2) {
            do { _ = try unit.prepare(graph).run(inputs); XCTFail("an armed isocrash cannot run") } catch {
                errors.append("\(error)")
            }
        }
        XCTAssertEqual(worker.startCount, PluginWorker.maxStarts)
        XCTAssertTrue(errors.prefix(PluginWorker.maxStarts).allSatisfy { $0.contains("SIGSEGV") }, "\(errors)")
        XCTAssertTrue(errors.suffix(2).allSatisfy { $0.contains("not started again") }, "\(errors)")
    }

    func testWithoutAUnitWorkerEveryUnitIsFailedWithThatReason() throws {
        let f = try IsoFixture([], withGood: true)
        var c = try f.configuration()
        c.unitWorkerExecutable = nil
        c.pluginDirectories.append(f.plugins + "/missing")
        let host = BackendHost(configuration: c)
        let r = try host.probe(fresh: true)
        XCTAssertEqual(r.units.map(\.state), [.failed, .failed])
        XCTAssertTrue(r.units[0].reason.contains("cannot be read"), r.units[0].reason)
        XCTAssertTrue(r.units[1].reason.contains("no unit worker executable") && r.units[1].reason.contains("WAIHOST_UNIT_WORKER"),
                      r.units[1].reason)
        // Not silently the reference: the run says no unit is accepted, and why.
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let (_, report) = try host.run(graph, inputs: inputs)
        XCTAssertEqual(report.dispatch, .noAcceptedUnit)
        c.pluginDirectories.removeLast()

        c.unitWorkerExecutable = f.plugins + "/no-such-worker"
        let missing = try BackendHost(configuration: c).probe(fresh: true)
        XCTAssertEqual(missing.units.map(\.state), [.failed])
        XCTAssertTrue(missing.units[0].reason.contains("could not be started"), missing.units[0].reason)
    }

    func testTheUnitWorkerIsFoundWithoutTheCLI() throws {
        let dir = try CPluginBuilder.shared.makeDirectory("worker-search")
        let lib = dir + "/lib/libWaiHost.so", bin = dir + "/bin/app"
        XCTAssertEqual(HostConfiguration.defaultUnitWorker(["WAIHOST_UNIT_WORKER": "/opt/w"], executable: bin, library: lib), "/opt/w")
        // Each in turn, and each found before the ones after it (docs/probe.md §3).
        let order = ["lib", "bin", "lib/waihost", "libexec/waihost"].map { (folder: $0, path: dir + "/\($0)/waihost-unit-worker") }
        for (folder, path) in order {
            try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        }
        for (_, path) in order {
            XCTAssertEqual(HostConfiguration.defaultUnitWorker([:], executable: bin, library: lib), path)
            try FileManager.default.removeItem(atPath: path)
        }
        // PREFIX/lib/waihost/ (make install, scripts/install-plugins.sh) for a program in
        // PREFIX/bin that does not link a shared WaiHost (the library is the program).
        let installed = dir + "/lib/waihost/waihost-unit-worker"
        _ = FileManager.default.createFile(atPath: installed, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        XCTAssertEqual(HostConfiguration.defaultUnitWorker([:], executable: bin, library: bin), installed)
        XCTAssertEqual(HostConfiguration.defaultUnitWorker([:], executable: nil, library: lib), installed)
        // The test bundle links WaiHost; its worker is beside it.
        let found = try XCTUnwrap(HostConfiguration.fromEnvironment().unitWorkerExecutable)
        XCTAssertTrue(found.hasSuffix("/waihost-unit-worker"), found)
    }
}
