import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Unit selection, the dispatch decision, and BackendHost.run end to end on the CPU plugin.
final class DispatchTests: XCTestCase {
    override class func tearDown() { HostTestSupport.removeTemporaryDirectories() }

    // MARK: - selection

    func testSelectionParsing() throws {
        XCTAssertEqual(try UnitSelection(parsing: "best"), .best)
        XCTAssertEqual(try UnitSelection(parsing: "reference"), .reference)
        XCTAssertEqual(try UnitSelection(parsing: "cpu"), .kind(.cpu))
        XCTAssertEqual(try UnitSelection(parsing: "gpu"), .kind(.gpu))
        XCTAssertEqual(try UnitSelection(parsing: "other"), .kind(.other))
        XCTAssertEqual(try UnitSelection(parsing: "vulkan"), .backend("vulkan"))
        XCTAssertEqual(try UnitSelection(parsing: "cpu:0"), .backendUnit("cpu", 0))
        XCTAssertEqual(try UnitSelection(parsing: "opencl:12"), .backendUnit("opencl", 12))
        for bad in ["", "cpu:", ":1", "cpu:-1", "cpu:x", "a:1:2"] {
            XCTAssertThrowsError(try UnitSelection(parsing: bad), bad) { error in
                guard case .invalidSelection(let text, _)? = error as? HostError else { return XCTFail("\(error)") }
                XCTAssertEqual(text, bad)
            }
        }
        for s: UnitSelection in [.best, .reference, .kind(.gpu), .backend("vulkan"), .backendUnit("cpu", 3)] {
            XCTAssertEqual(try UnitSelection(parsing: s.description), s)
        }
    }

    // MARK: - the decision

    func row(_ backend: String, _ index: Int, _ kind: UnitKind, _ state: ProbeState, rank: Int? = nil,
             reason: String = "exact") -> UnitProbeRecord {
        UnitProbeRecord(backend: backend, path: "/p/\(backend).so", device: "\(backend) device", unit: ProbeRowKind(kind),
                        index: index, driver: "d", state: state, rank: rank, reason: reason,
                        speed: rank.map { ProbeSpeed(runsPerSecond: 100 / Double($0), medianMilliseconds: Double($0) * 10, runs: 5, graph: "g") })
    }

    var mixed: ProbeResult {
        ProbeResult(units: [
            row("cpu", 0, .cpu, .accepted, rank: 2),
            row("vulkan", 0, .gpu, .rejected, reason: "stage semantics, graph requantize_shift_1: … expected -1, got 2147483647"),
            row("opencl", 0, .gpu, .accepted, rank: 1),
            row("opencl", 1, .other, .failed, reason: "probe worker could not be started"),
            UnitProbeRecord(backend: "libBroken.so", path: "/p/libBroken.so", device: "", unit: .unknown, index: nil,
                            driver: "", state: .failed, reason: "not an ELF shared object"),
        ])
    }

    func testBestIsRankedFirst() throws {
        guard case let .unit(r, kind, reason) = try Dispatcher.choose(.best, in: mixed) else { return XCTFail() }
        XCTAssertEqual(r.selector, "opencl:0")
        XCTAssertEqual(kind, .rankedFirst)
        XCTAssertTrue(reason.contains("ranked first of 2 accepted units"), reason)
    }

    func testForcedAcceptedUnitsRunThere() throws {
        for (s, expected) in [(UnitSelection.backendUnit("cpu", 0), "cpu:0"), (.backend("cpu"), "cpu:0"),
                              (.kind(.gpu), "opencl:0"), (.kind(.cpu), "cpu:0"), (.backend("opencl"), "opencl:0")] {
            guard case let .unit(r, kind, _) = try Dispatcher.choose(s, in: mixed) else { return XCTFail("\(s)") }
            XCTAssertEqual(r.selector, expected, "\(s)")
            XCTAssertEqual(kind, .forced, "\(s)")
        }
    }

    func testForcedUnitThatDidNotPassFallsBackWithTheProbeReason() throws {
        for s in [UnitSelection.backendUnit("vulkan", 0), .backend("vulkan"), .kind(.other), .backendUnit("opencl", 1)] {
            guard case let .unit(r, kind, reason) = try Dispatcher.choose(s, in: mixed) else { return XCTFail("\(s)") }
            XCTAssertEqual(kind, .dispatchUnitInexact, "\(s)")
            XCTAssertEqual(r.selector, "opencl:0", "the best accepted unit runs instead")
            XCTAssertTrue(reason.contains("instead"), reason)
        }
        guard case let .unit(_, _, reason) = try Dispatcher.choose(.backend("vulkan"), in: mixed) else { return XCTFail() }
        XCTAssertTrue(reason.contains("vulkan:0 is rejected: stage semantics"), reason)

        let noneAccepted = ProbeResult(units: [row("vulkan", 0, .gpu, .rejected, reason: "crashed: signal 11 (SIGSEGV) during stage widths")])
        guard case let .reference(kind, reason2) = try Dispatcher.choose(.kind(.gpu), in: noneAccepted) else { return XCTFail() }
        XCTAssertEqual(kind, .dispatchUnitInexact)
        XCTAssertTrue(reason2.contains("SIGSEGV"), reason2)
        XCTAssertTrue(reason2.contains("reference interpreter"), reason2)
    }

    func testNoAcceptedUnitRunsTheReference() throws {
        guard case let .reference(kind, reason) = try Dispatcher.choose(.best, in: ProbeResult(units: [])) else { return XCTFail() }
        XCTAssertEqual(kind, .noAcceptedUnit)
        XCTAssertTrue(reason.contains("no backend unit"), reason)
        let rejected = ProbeResult(units: [row("vulkan", 0, .gpu, .rejected)])
        guard case let .reference(kind2, reason2) = try Dispatcher.choose(.best, in: rejected) else { return XCTFail() }
        XCTAssertEqual(kind2, .noAcceptedUnit)
        XCTAssertTrue(reason2.contains("none of the 1 probed unit"), reason2)
    }

    func testSelectionOfAUnitThatDoesNotExistListsWhatExists() {
        for s in [UnitSelection.backendUnit("cpu", 1), .backend("metal"), .kind(.gpu)] {
            let result = s == .kind(.gpu) ? ProbeResult(units: [row("cpu", 0, .cpu, .accepted, rank: 1)]) : mixed
            XCTAssertThrowsError(try Dispatcher.choose(s, in: result), "\(s)") { error in
                guard case let .noSuchUnit(selection, available)? = error as? HostError else { return XCTFail("\(error)") }
                XCTAssertEqual(selection, s.description)
                XCTAssertTrue(available.contains("cpu:0"))
                XCTAssertFalse(available.contains("libBroken.so"), "a plugin that did not load offers no unit")
                XCTAssertTrue("\(error)".contains("cpu:0"))
            }
        }
    }

    // MARK: - BackendHost.run on the CPU plugin

    func host(_ name: String) throws -> (WaiHost.BackendHost, String, String) {
        let dir = try HostTestSupport.folderWithCPUPlugin(name)
        let cache = try HostTestSupport.temporaryDirectory(name + "-cache")
        return (WaiHost.BackendHost(configuration: HostTestSupport.configuration(plugins: [dir], cache: cache)), dir, cache)
    }

    func testRunOnTheBestUnitAndOnForcedOnesGivesTheReferenceIntegers() throws {
        let (host, dir, _) = try host("run")
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)

        let (outputs, report) = try host.run(graph, inputs: inputs)
        XCTAssertEqual(outputs, expected)
        XCTAssertEqual(report.unit, .cpu)
        XCTAssertEqual(report.backend, "cpu")
        XCTAssertEqual(report.dispatch, .rankedFirst)
        XCTAssertEqual(report.rank, 1)
        XCTAssertFalse(report.device.isEmpty)
        XCTAssertFalse(report.driver.isEmpty)

        for s in [UnitSelection.backendUnit("cpu", 0), .backend("cpu"), .kind(.cpu)] {
            let (o, r) = try host.run(graph, inputs: inputs, on: s)
            XCTAssertEqual(o, expected, "\(s)")
            XCTAssertEqual(r.dispatch, .forced, "\(s)")
            XCTAssertEqual(r.backend, "cpu", "\(s)")
        }
        let (o, r) = try host.run(graph, inputs: inputs, on: .reference)
        XCTAssertEqual(o, expected)
        XCTAssertEqual(r.backend, "reference")
        XCTAssertEqual(r.unit, .cpu)
        XCTAssertEqual(r.dispatch, .forced)
        XCTAssertNil(r.rank)

        XCTAssertThrowsError(try host.run(graph, inputs: inputs, on: .kind(.gpu))) { error in
            guard case let .noSuchUnit(_, available)? = error as? HostError else { return XCTFail("\(error)") }
            // One CPU unit per instruction-set path (Plugins/CPUBackend/README.md, "Units").
            XCTAssertEqual(available, (0..<max(1, available.count)).map { "cpu:\($0)" })
        }
        _ = dir
    }

    func testInputsOutsideTheContractAndUnverifiedGraphsAreRefused() throws {
        let (host, _, _) = try host("contract")
        let (graph, inputs) = try HostTestSupport.smallGraph()
        var bad = inputs
        bad[0].values[3] = 301
        XCTAssertThrowsError(try host.run(graph, inputs: bad)) { error in
            XCTAssertTrue(error is InputContractError, "\(error)")
        }
        var lying = graph
        lying.tensors[lying.outputs[0]].interval = Interval(lo: -10, hi: 10)
        XCTAssertThrowsError(try host.run(lying, inputs: inputs)) { error in
            XCTAssertTrue(error is GraphError, "\(error)")
        }
    }

    func testAUnitTheProbeRejectedNeverRuns() throws {
        // Plant a rejection for every CPU unit (one per instruction-set path) in the cache,
        // under the keys their probes use.
        let (host, dir, cache) = try host("inexact")
        let path = dir + "/libWaiCPUBackend.so"
        let units = try BackendPlugin.load(path: path).units()
        let sha = try SHA256.hexOfFile(path: path)
        let planted = "stage widths, graph add_edge_narrow: add (node 0) tensor edge_sum index 0 (c 0, y 0, x 0): expected -32768, got 32768"
        var entries: [String: ProbeCache.Entry] = [:]
        for unit in units {
            entries[ProbeCache.key(pluginSHA256: sha, unit: unit)] = ProbeCache.Entry(
                outcome: ProbeOutcome(state: .rejected, stage: .widths, reason: planted),
                speed: nil, backend: "cpu", device: unit.device, driver: unit.driver)
        }
        ProbeCache(directory: cache).store(entries, warn: { XCTFail($0) })

        let probe = try host.probe()
        XCTAssertEqual(probe.units.map(\.state), [ProbeState](repeating: .rejected, count: units.count))
        XCTAssertEqual(probe.units.map(\.cached), [Bool](repeating: true, count: units.count))

        let (graph, inputs) = try HostTestSupport.smallGraph()
        let expected = try ReferenceInterpreter.run(graph, inputs: inputs)
        let (o1, forced) = try host.run(graph, inputs: inputs, on: .backendUnit("cpu", 0))
        XCTAssertEqual(o1, expected)
        XCTAssertEqual(forced.dispatch, .dispatchUnitInexact)
        XCTAssertEqual(forced.backend, "reference")
        XCTAssertTrue(forced.reason.contains(planted), forced.reason)

        let (o2, best) = try host.run(graph, inputs: inputs)
        XCTAssertEqual(o2, expected)
        XCTAssertEqual(best.dispatch, .noAcceptedUnit)
        XCTAssertEqual(best.backend, "reference")
    }

    /// The replaced file is never loaded: the unit is marked failed and the graph runs on the
    /// reference interpreter, with the reason in the report.
    func testAPluginReplacedAfterItsProbeIsNotRun() throws {
        let (host, dir, _) = try host("replaced")
        _ = try host.probe()
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/libWaiCPUBackend.so"))
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        handle.closeFile()
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let (outputs, report) = try host.run(graph, inputs: inputs)
        XCTAssertEqual(outputs, try ReferenceInterpreter.run(graph, inputs: inputs))
        XCTAssertEqual(report.dispatch, .unitFailed)
        XCTAssertEqual(report.backend, "reference")
        XCTAssertTrue(report.reason.contains(HostError.pluginChanged(path: dir + "/libWaiCPUBackend.so").description),
                      report.reason)
    }
}
