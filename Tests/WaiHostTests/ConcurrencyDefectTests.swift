import Foundation
import XCTest
import TestSupport
import WaiHost
@testable import WaiCore
@testable import WaiRuntime
@testable import WaiCapabilities

/// STATIC_SCRATCH (Tests/CPlugins/defect_backend.c: inverse GDN's squares in one static
/// buffer, wrong only when two prepared graphs run at once) against a machine made busy, and
/// the host's promise for a unit whose concurrent runs were never seen to overlap: its runs
/// take turns (docs/probe.md §1 `repetition`, §3 "Concurrent runs").
final class ConcurrencyDefectTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    /// Every core spinning for the whole stage: the concurrent rounds still overlap (a round
    /// that did not is repeated), so the shared scratch is caught.
    func testStaticScratchIsRejectedOnABusyMachine() throws {
        let path = try CPluginBuilder.shared.defectPlugin(.staticScratch)
        let unit = WorkerUnit(worker: WorkerPool(executable: HostTestSupport.unitWorker).worker(for: path, sha256: nil),
                              unit: 0, timeout: 600)
        let outcome = try Spinners.whileBusy {
            try ExactnessProbe.run(stages: [.repetition], unit: unit)
        }
        let why = outcome.reason + (outcome.concurrency.map { " [\($0)]" } ?? "")
        XCTAssertEqual(outcome.state, .rejected, why)
        XCTAssertEqual(outcome.stage, .repetition, why)
        XCTAssertEqual(outcome.mismatch?.op, .op(.inverseGDN), why)
        XCTAssertGreaterThan(outcome.mismatch?.run ?? 0, ProbeSuite.repetitionRounds, "only when run concurrently: \(outcome.reason)")
        XCTAssertTrue(outcome.reason.contains("inside the plugin at once"), outcome.reason)
    }

    /// A verdict whose concurrency is unverified: concurrent decodes through the host on that
    /// unit never run at once, so even STATIC_SCRATCH returns exact bytes (spot checks off,
    /// so what comes back is the unit's own).
    func testAUnitWithUnverifiedConcurrencyGetsOneRunAtATime() throws {
        let dir = try HostTestSupport.temporaryDirectory("scratch-plugins")
        let cache = try HostTestSupport.temporaryDirectory("scratch-cache")
        try CPluginBuilder.shared.installDefects([.staticScratch], into: dir)
        var configuration = HostTestSupport.configuration(plugins: [dir], cache: cache, timeout: 600)
        configuration.spotCheck = .off
        let host = BackendHost(configuration: configuration)
        // The verdict a probe that never saw overlap would cache, without the probe's cost.
        let listed = host.listUnits()
        let key = try XCTUnwrap(listed.entries.first?.cacheKey)
        let row = try XCTUnwrap(listed.entries.first?.record)
        let unverified = ConcurrencyCheck(state: .unverified, rounds: 9, overlappingRounds: 0, mostAtOnce: 1)
        let outcome = ProbeOutcome(state: .accepted, reason: "exact on every stage; \(unverified)",
                                   coverage: ProbeCoverage(exact: [.init(op: .inverseGDN, widths: [16])], unsupported: []),
                                   concurrency: unverified)
        ProbeCache(directory: cache).store([key: ProbeCache.Entry(outcome: outcome,
            speed: ProbeSpeed(runsPerSecond: 100, medianMilliseconds: 10, runs: 3, graph: "calibration"),
            backend: row.backend, device: row.device, driver: row.driver)], warn: { XCTFail($0) })
        let probed = try host.probe()
        let unit = try XCTUnwrap(probed.accepted.first)
        XCTAssertTrue(unit.cached)
        XCTAssertEqual(unit.concurrency?.state, .unverified)
        XCTAssertFalse(unit.concurrentRunsVerified)

        // Four different inverse GDNs large enough to take a while each, one per thread.
        var rng = SplitMix64(seed: 0x5C7A)
        let cases = try (0..<4).map { k in
            try OpGraphs.inverseGDN(&rng, name: "gdn_\(k)", channels: 16, h: 64, w: 64)
        }
        let expected = try cases.map { try ReferenceInterpreter.run($0.graph, inputs: $0.inputs) }
        let wrong = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: cases.count) { k in
            for _ in 0..<8 {
                do {
                    let (got, report) = try host.run(cases[k].graph, inputs: cases[k].inputs, on: .backend(row.backend))
                    if report.backend != row.backend || got != expected[k] { wrong.append("\(cases[k].name) on \(report.backend): " + (got == expected[k] ? "exact" : "differs")) }
                } catch {
                    wrong.append("\(cases[k].name): \(error)")
                }
            }
        }
        XCTAssertEqual(wrong.value, [], "every run on the unit exact and on that unit")
    }
}

/// Threads spinning on every core while `body` runs: a machine as loaded as a busy build
/// server, for tests about timing-dependent behaviour (never to assert a time).
enum Spinners {
    static func whileBusy<T>(_ body: () throws -> T) rethrows -> T {
        let stop = Locked(false)
        let group = DispatchGroup()
        for _ in 0..<max(ProcessInfo.processInfo.activeProcessorCount, 1) {
            group.enter()
            Thread.detachNewThread {
                var x: UInt64 = 1
                while !stop.value { for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1442695040888963407 } }
                if x == 0 { print("") }   // keeps the loop from being optimised away
                group.leave()
            }
        }
        defer { stop.set(true); group.wait() }
        return try body()
    }
}
