import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Spot checks on real runs (docs/probe.md §7): a unit that passes the probe and goes wrong
/// later (defect-after-runs: after 300 runs of one prepared graph) is caught on the first
/// wrong run; its bytes are never returned, the run is redone on the reference, and the
/// unit is demoted, in this host and in the probe cache.
final class SpotCheckDefectTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    func testAUnitThatGoesWrongAfterHundredsOfRunsIsDemotedAndItsBytesNeverReturned() throws {
        let dir = try HostTestSupport.temporaryDirectory("after-runs")
        try CPluginBuilder.shared.installDefects([.afterRuns], into: dir)
        try demotionScenario(plugins: dir, goodRuns: 300, cacheName: "after-runs-cache")
    }

    /// The same defect on a unit that says it is a GPU: its windows are computed while it
    /// runs (docs/probe.md §7) and the comparison waits for them, so the wrong run is still
    /// caught, its bytes dropped and the run redone (shortened to 40 good runs).
    func testAnOverlappedCheckBesideAGPUUnitStillDemotesItBeforeAnythingIsReturned() throws {
        let dir = try HostTestSupport.temporaryDirectory("after-runs-gpu")
        let b = CPluginBuilder.shared
        try b.compile(source: b.packageRoot + "/Tests/CPlugins/defect_backend.c",
                      output: dir + "/" + DefectVariant.afterRuns.fileName,
                      flags: ["-I", b.includeDir, "-DDEFECT_AFTER_RUNS", "-DAFTER_RUNS_LIMIT=40", "-DUNIT_KIND=WAI_UNIT_GPU"])
        try demotionScenario(plugins: dir, goodRuns: 40, cacheName: "after-runs-gpu-cache", kind: .gpu)
    }

    private func demotionScenario(plugins dir: String, goodRuns: Int, cacheName: String, kind: ProbeRowKind = .cpu) throws {
        let cache = try HostTestSupport.temporaryDirectory(cacheName)
        let configuration = HostTestSupport.configuration(plugins: [dir], cache: cache, timeout: 600)
        let host = BackendHost(configuration: configuration)
        let accepted = try host.probe(fresh: true).accepted
        XCTAssertEqual(accepted.map(\.backend), ["defect-after-runs"], "right for its first \(goodRuns) runs, so the probe accepts it")
        XCTAssertEqual(accepted.first?.unit, kind)

        // 13 columns: each row ends in a partial vector of 5.
        var b = GraphBuilder()
        let x = b.input("x", Shape(2, 11, 13), storage: .wide, interval: Interval(lo: -100_000, hi: 100_000))
        let y = try b.clamp(x, lo: -70_000, hi: 90_000, name: "y")
        let graph = try b.build(outputs: [y])
        var rng = SplitMix64(seed: 0xAF7E)
        var demotion: RunReport?
        for run in 1...(goodRuns + 2) {
            let input = TensorValue(shape: Shape(2, 11, 13), values: (0..<286).map { _ in rng.int32(-100_000, 100_000) })
            let (outputs, report) = try host.run(graph, inputs: [input], on: .best)
            XCTAssertEqual(outputs, try ReferenceInterpreter.run(graph, inputs: [input]), "run \(run): never wrong bytes")
            if run <= goodRuns {
                XCTAssertEqual(report.backend, "defect-after-runs", "run \(run)")
                XCTAssertEqual(report.dispatch, .rankedFirst, "run \(run)")
                XCTAssertNotNil(report.spotCheckCPUMilliseconds, "run \(run) was checked")
            } else if demotion == nil {
                demotion = report
            } else {
                XCTAssertEqual(report.backend, "reference", "run \(run): the demoted unit is not chosen again")
                XCTAssertEqual(report.dispatch, .noAcceptedUnit)
            }
        }
        let r = try XCTUnwrap(demotion)
        XCTAssertEqual(r.dispatch, .unitDemoted)
        XCTAssertEqual(r.backend, "reference")
        XCTAssertTrue(r.reason.contains("defect-after-runs:0 demoted by a spot check"), r.reason)
        XCTAssertTrue(r.reason.contains("tensor y"), r.reason)
        XCTAssertTrue(r.reason.contains("after \(goodRuns) spot-checked runs passed"), r.reason)
        XCTAssertNil(r.spotCheckCPUMilliseconds, "the reference's run is not checked")

        // The demotion is in the probe cache: a new host, probing without --fresh, sees it.
        let again = try BackendHost(configuration: configuration).probe()
        let row = try XCTUnwrap(again.units.first)
        XCTAssertTrue(row.cached)
        XCTAssertEqual(row.state, .rejected)
        XCTAssertEqual(row.stage, .runtime)
        let m = try XCTUnwrap(row.mismatch)
        XCTAssertEqual(m.runsPassed, goodRuns)
        XCTAssertEqual(m.tensor, "y")
        XCTAssertNotEqual(m.expected, m.got)
        XCTAssertGreaterThanOrEqual(m.x, 8, "in the row's last partial vector of 8")
    }

    func testPolicyParsing() throws {
        XCTAssertEqual(try SpotCheckPolicy(parsing: "every"), .everyRun)
        XCTAssertEqual(try SpotCheckPolicy(parsing: "off"), .off)
        XCTAssertEqual(try SpotCheckPolicy(parsing: "sample:10"), .sampled(every: 10))
        XCTAssertEqual(try SpotCheckPolicy(parsing: "sample:1"), .everyRun)
        XCTAssertThrowsError(try SpotCheckPolicy(parsing: "sample:0"))
        XCTAssertThrowsError(try SpotCheckPolicy(parsing: "sometimes")) { e in
            XCTAssertTrue("\(e)".contains("every, off or sample:N"), "\(e)")
        }
        XCTAssertFalse(SpotCheckPolicy.off.checks(run: 0, draw: 0))
        XCTAssertTrue(SpotCheckPolicy.everyRun.checks(run: 7, draw: 1))
    }

    /// sample:N looks at the first run, then at one run in N at random: about a quarter of the
    /// runs for sample:4, and not the fixed every-fourth pattern a plugin could count towards.
    func testSampledPolicyChecksTheFirstRunThenRandomRuns() {
        var rng = SplitMix64(seed: 0x5eed)
        let policy = SpotCheckPolicy.sampled(every: 4)
        let checked = (0..<4000).filter { policy.checks(run: $0, draw: rng.next()) }
        XCTAssertEqual(checked.first, 0, "the first run on a unit is always checked")
        XCTAssertTrue((800...1200).contains(checked.count), "\(checked.count) of 4000 runs checked")
        XCTAssertNotEqual(checked, Array(stride(from: 0, to: 4000, by: 4)), "not every fourth run")
        XCTAssertTrue(checked.contains { $0 % 4 != 0 }, "runs off the every-fourth pattern are checked too")
    }
}
