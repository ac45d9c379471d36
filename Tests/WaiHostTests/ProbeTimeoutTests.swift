import Foundation
import XCTest
import TestSupport
import WaiHost
@testable import WaiRuntime
@testable import WaiCapabilities

/// A time-out is a rejection of its own, cached with a bound (docs/probe.md §5,
/// "Time-outs"): a unit that timed out once is probed again by the next probe without
/// `--fresh`, and one that always hangs is rejected for good after `ProbeTimeout.limit`
/// probes in a row, then never waited for again. The hanging backend is iso_hang (armed by
/// a file), probed with a short limit; nothing here times the host.
final class ProbeTimeoutTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeAll()
        super.tearDown()
    }

    /// Short enough to keep the test quick, long enough for the worker to start and list.
    private static let shortLimit = 4.0

    private func hangRow(_ r: ProbeResult) throws -> UnitProbeRecord {
        try XCTUnwrap(r.units.first { $0.backend == IsoBackend.hang.name }, "no row in \(r.units.map(\.backend))")
    }

    private func probe(_ f: IsoFixture, limit: Double? = nil, lines: Locked<[String]>? = nil) throws -> UnitProbeRecord {
        var c = try f.configuration()
        if let limit { c.probeTimeout = limit }
        return try hangRow(try BackendHost(configuration: c).probe(progress: { lines?.append($0) }))
    }

    func testAUnitThatTimedOutOnceIsAcceptedByTheNextProbeWithoutFresh() throws {
        let f = try IsoFixture([.hang], withGood: false)
        try f.arm()
        let first = try probe(f, limit: Self.shortLimit)
        XCTAssertEqual(first.state, .rejected, first.reason)
        XCTAssertEqual(first.timeout, ProbeTimeout(seconds: Self.shortLimit, attempt: 1))
        XCTAssertEqual(first.timeout?.retry, .nextProbe)
        for words in ["timed out after 4s", "time-out 1 of 3: probed again by the next probe"] {
            XCTAssertTrue(first.reason.contains(words), "\"\(words)\" not in: \(first.reason)")
        }
        // The listing shows the cached time-out as probed, not as "not probed".
        let listed = BackendHost(configuration: try f.configuration()).listUnits()
        let entry = try XCTUnwrap(listed.entries.first { $0.record.backend == IsoBackend.hang.name })
        XCTAssertTrue(entry.probed)
        XCTAssertEqual(entry.record.timeout?.attempt, 1)

        // The driver has compiled by now: the unit behaves.
        try FileManager.default.removeItem(atPath: f.trigger)
        let second = try probe(f)
        XCTAssertEqual(second.state, .accepted, second.reason)
        XCTAssertFalse(second.cached, "probed again, not the cached time-out")
        XCTAssertNil(second.timeout)
        let third = try probe(f)
        XCTAssertEqual(third.state, .accepted, third.reason)
        XCTAssertTrue(third.cached, "an acceptance is cached as always")
    }

    func testAUnitThatAlwaysHangsIsRejectedForGoodAfterTheBoundAndNotProbedAgain() throws {
        let f = try IsoFixture([.hang], withGood: false)
        try f.arm()
        for attempt in 1...ProbeTimeout.limit {
            let r = try probe(f, limit: Self.shortLimit)
            XCTAssertEqual(r.state, .rejected, r.reason)
            XCTAssertFalse(r.cached, "time-out \(attempt) was probed, not read from the cache")
            XCTAssertEqual(r.timeout?.attempt, attempt)
            XCTAssertEqual(r.timeout?.retry, attempt < ProbeTimeout.limit ? .nextProbe : .never)
        }
        let lines = Locked<[String]>([])
        let after = try probe(f, limit: Self.shortLimit, lines: lines)
        XCTAssertEqual(after.state, .rejected)
        XCTAssertTrue(after.cached, "the final time-out comes from the cache")
        XCTAssertEqual(after.timeout?.attempt, ProbeTimeout.limit)
        XCTAssertEqual(after.timeout?.retry, .never)
        XCTAssertTrue(after.reason.contains("not probed again until 'waihost probe --fresh'"), after.reason)
        XCTAssertFalse(lines.value.contains { $0.hasPrefix("probing isohang") },
                       "the unit was not probed: \(lines.value)")
    }

    /// A driver building its program in the first graph_prepare (iso_slowprep sleeps 10 s
    /// there) has `probePrepareTimeout`, not the probe's shorter limit; with no more than
    /// that limit the same build is a time-out.
    func testTheFirstPrepareOfAUnitHasTheLongerPrepareAllowance() throws {
        let f = try IsoFixture([.slowprep], withGood: false)
        try f.arm()
        var c = try f.configuration()
        c.probeTimeout = Self.shortLimit
        c.probePrepareTimeout = Self.shortLimit
        let slow = try XCTUnwrap(try BackendHost(configuration: c).probe().units.first)
        XCTAssertEqual(slow.state, .rejected, slow.reason)
        XCTAssertTrue(slow.reason.contains("timed out after 4s during graph_prepare"), slow.reason)
        XCTAssertEqual(slow.timeout?.attempt, 1)

        // Below the sleep, with room for the probe's own requests on a loaded machine.
        c.probeTimeout = 7
        c.probePrepareTimeout = 300
        let built = try XCTUnwrap(try BackendHost(configuration: c).probe().units.first)
        XCTAssertEqual(built.state, .accepted, "every other request kept the 7s limit: \(built.reason)")
        XCTAssertNil(built.timeout)
        XCTAssertFalse(built.cached, "the time-out was probed again without --fresh")
    }

    /// `probe_prepare_timeout` / WAIHOST_PROBE_PREPARE_TIMEOUT (docs/configuration.md §3).
    func testThePrepareAllowanceIsConfiguredByFileAndEnvironment() throws {
        let dir = try CPluginBuilder.shared.makeDirectory("prepare-config")
        let system = dir + "/waihost.conf"
        try "probe_prepare_timeout = 45\n".write(toFile: system, atomically: true, encoding: .utf8)
        let bare = HostConfiguration.resolve(environment: [:], systemConfig: dir + "/none.conf", executable: nil, library: nil)
        XCTAssertEqual(bare.probePrepareTimeout, 120)
        let file = HostConfiguration.resolve(environment: [:], systemConfig: system, executable: nil, library: nil)
        XCTAssertNil(file.configurationError)
        XCTAssertEqual(file.probePrepareTimeout, 45)
        let env = HostConfiguration.resolve(environment: ["WAIHOST_PROBE_PREPARE_TIMEOUT": "300"], systemConfig: system,
                                            executable: nil, library: nil)
        XCTAssertEqual(env.probePrepareTimeout, 300)
        let bad = HostConfiguration.resolve(environment: ["WAIHOST_PROBE_PREPARE_TIMEOUT": "soon"], systemConfig: nil,
                                            executable: nil, library: nil)
        XCTAssertEqual(bad.configurationError?.location, "WAIHOST_PROBE_PREPARE_TIMEOUT")
        XCTAssertTrue(bad.configurationError?.reason.contains("probe_prepare_timeout") == true, "\(String(describing: bad.configurationError))")
    }

    func testTheCacheKeepsTheTimeOutAndReadsFilesWithoutIt() throws {
        let dir = try CPluginBuilder.shared.makeDirectory("timeout-cache")
        let cache = ProbeCache(directory: dir)
        let timeout = ProbeTimeout(seconds: 20, attempt: 2)
        let entry = ProbeCache.Entry(outcome: ProbeOutcome(state: .rejected, stage: .semantics, reason: "timed out",
                                                           timeout: timeout),
                                     speed: nil, backend: "b", device: "d", driver: "v")
        cache.store(["k": entry], warn: { XCTFail($0) })
        XCTAssertEqual(cache.load(warn: { XCTFail($0) })["k"], entry)
        let text = try String(contentsOfFile: cache.path, encoding: .utf8)
        XCTAssertTrue(text.contains("\"retry\" : \"next_probe\""), text)

        // A file of a host before time-outs were told apart: its rejection reads as final.
        let old = """
        {"format": 1, "entries": {"k": {"outcome": {"state": "rejected", "stage": "semantics",
          "reason": "stage semantics, graph g: timed out after 20s during graph_prepare"},
          "backend": "b", "device": "d", "driver": "v"}}}
        """
        try old.write(toFile: cache.path, atomically: true, encoding: .utf8)
        let read = try XCTUnwrap(cache.load(warn: { XCTFail($0) })["k"])
        XCTAssertEqual(read.outcome.state, .rejected)
        XCTAssertNil(read.outcome.timeout)
    }
}

