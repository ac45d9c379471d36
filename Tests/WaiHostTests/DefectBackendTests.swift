import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The probe against backends wrong the way real kernels go wrong (Tests/CPlugins/
/// defect_backend.c): each is rejected at the stage that looks where its kernels break,
/// with a mismatch a plugin author can act on; the exact build and the one that refuses
/// lookup stay accepted (docs/probe.md §1, §2).
final class DefectBackendTests: XCTestCase {
    private let builder = CPluginBuilder.shared

    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    func testTheProbeRejectsEveryDefectAndAcceptsTheExactBackends() throws {
        let dir = try HostTestSupport.temporaryDirectory("defects")
        // after-runs is exact for its first 300 runs of a prepared graph: spot checks catch
        // it (SpotCheckDefectTests).
        // The warp's defects are probed by WarpDefectBackendTests.
        let variants = DefectVariant.allCases.filter { $0 != .afterRuns && $0 != .smallBuffers && !DefectVariant.warp.contains($0) }
        try builder.installDefects(variants, into: dir)
        let host = BackendHost(configuration: HostTestSupport.configuration(
            plugins: [dir], cache: try HostTestSupport.temporaryDirectory("defects-cache"), timeout: 600))
        let result = try host.probe(fresh: true)
        func row(_ v: DefectVariant) throws -> UnitProbeRecord {
            try XCTUnwrap(result.units.first { $0.backend == v.backendName }, "no row for \(v)")
        }

        let exact = try row(.none)
        XCTAssertEqual(exact.state, .accepted, exact.reason)
        XCTAssertEqual(exact.coverage?.unsupported, [])
        XCTAssertEqual(exact.coverage?.exact.count, 10, "exact on all ten ops")
        // Its concurrent rounds were run and their overlap recorded (verified or not: that
        // depends on the machine's load, ConcurrencyOverlapTests has the logic).
        XCTAssertGreaterThanOrEqual(exact.concurrency?.rounds ?? 0, ProbeSuite.concurrentRounds, exact.reason)
        XCTAssertTrue(exact.reason.contains("concurrency "), exact.reason)

        let noLookup = try row(.noLookup)
        XCTAssertEqual(noLookup.state, .accepted, noLookup.reason)
        XCTAssertEqual(noLookup.coverage?.unsupported, [.lookup])
        XCTAssertFalse(noLookup.coverage?.exact.contains { $0.op == .lookup } ?? true)
        XCTAssertTrue(noLookup.reason.contains("unsupported: lookup"), noLookup.reason)

        let convs: Set<String> = ["conv2d", "conv_transpose2d"]
        try assertRejected(row(.tileHalo), stages: [.repetition, .scale], ops: convs)
        let index16 = try assertRejected(row(.index16), stages: [.scale], ops: ["requantize", "clamp", "lookup"])
        XCTAssertGreaterThan(index16?.index ?? 0, 65535 - 1, "first wrong where the 16-bit in-plane index wraps")
        let chunk = try assertRejected(row(.lastChunk), stages: [.scale], ops: ["requantize", "add", "clamp", "lookup"])
        XCTAssertEqual(chunk?.unwritten, true, "the dropped chunk is reported as never written")
        XCTAssertEqual(chunk.map { $0.index >= (1_065_023 >> 16) << 16 }, true, "in the partial last chunk")
        try assertRejected(row(.tailChannels), stages: [.channels, .decode], ops: convs)
        let gdn = try assertRejected(row(.gdn16), stages: [.channels], ops: ["inverse_gdn"])
        XCTAssertEqual(gdn?.graph, "inverse_gdn_c16", "the first count at which the fast path is taken")
        let first = try assertRejected(row(.firstRun), stages: [.repetition], ops: ["conv2d"])
        XCTAssertEqual(first?.run, 2, "right on the first run of a prepared graph only")
        // Wrong only when two prepared graphs are inside inverse GDN at once, which overlapping
        // runs make likely but a loaded machine cannot make certain: each probe is a new trial,
        // up to three. A probe that never saw runs overlap accepts it as `unverified`, and the
        // host then never runs it concurrently (ConcurrencyDefectTests), which is safe; only
        // three acceptances after verified overlap are a miss.
        var scratchRow = try row(.staticScratch)
        for _ in 0..<2 where scratchRow.state == .accepted && scratchRow.concurrency?.state == .verified {
            scratchRow = try XCTUnwrap(try probeAgain(.staticScratch).units.first)
        }
        if scratchRow.state == .accepted {
            XCTAssertNotEqual(scratchRow.concurrency?.state, .verified, "accepted after verified overlap: \(scratchRow.reason)")
        } else {
            let scratch = assertRejected(scratchRow, stages: [.repetition], ops: ["inverse_gdn"])
            XCTAssertGreaterThan(scratch?.run ?? 0, ProbeSuite.repetitionRounds, "wrong only when run concurrently")
        }
        // A race shows only when its two threads overlap, which a loaded test machine may not
        // let happen in one probe: each probe is a new trial, up to three.
        var race = try row(.raceLarge)
        for _ in 0..<2 where race.state == .accepted {
            race = try XCTUnwrap(try probeAgain(.raceLarge).units.first)
        }
        assertRejected(race, stages: [.scale, .repetition], ops: ["conv2d"])
        let low = try assertRejected(row(.reqLowBits), stages: [.semantics, .arithmetic, .parameters], ops: ["requantize"])
        XCTAssertTrue(low?.parameters?.contains("multiplier") ?? false, low?.parameters ?? "no parameters")
        let flips = try row(.bitFlips)
        XCTAssertEqual(flips.state, .rejected, flips.reason)
        XCTAssertNotNil(flips.mismatch, flips.reason)

        XCTAssertEqual(Set(result.accepted.map(\.backend)).subtracting([DefectVariant.raceLarge.backendName, DefectVariant.staticScratch.backendName]),
                       [DefectVariant.none.backendName, DefectVariant.noLookup.backendName])
    }

    private func probeAgain(_ v: DefectVariant) throws -> ProbeResult {
        let dir = try HostTestSupport.temporaryDirectory("defect-again")
        try builder.installDefects([v], into: dir)
        return try BackendHost(configuration: HostTestSupport.configuration(plugins: [dir], cache: nil, timeout: 600)).probe(fresh: true)
    }

    /// Per-op acceptance in dispatch: a graph without lookup may run on the unit that
    /// refuses lookup; one with lookup runs elsewhere, with the reason.
    func testAUnitThatRefusesAnOpRunsEveryGraphWithoutIt() throws {
        let dir = try HostTestSupport.temporaryDirectory("no-lookup")
        try builder.installDefects([.noLookup], into: dir)
        let host = BackendHost(configuration: HostTestSupport.configuration(
            plugins: [dir], cache: try HostTestSupport.temporaryDirectory("no-lookup-cache"), timeout: 600))
        XCTAssertEqual(try host.probe(fresh: true).accepted.map(\.backend), ["defect-no-lookup"])

        var b = GraphBuilder()
        let x = b.input("x", Shape(2, 3, 5), storage: .narrow, interval: Interval(lo: -100, hi: 100))
        let c = try b.clamp(x, lo: -50, hi: 60)
        let plain = try b.build(outputs: [c])
        _ = try b.lookup(c, LookupParams(table: [1, 2, 3], offset: 0), name: "looked_up")
        var withLookup = try b.build(outputs: [c])
        withLookup.outputs = [withLookup.nodes[1].output]
        let input = TensorValue(shape: Shape(2, 3, 5), values: (0..<30).map { Int32($0 * 7 % 201) - 100 })

        let (out1, r1) = try host.run(plain, inputs: [input], on: .best)
        XCTAssertEqual(out1, try ReferenceInterpreter.run(plain, inputs: [input]))
        XCTAssertEqual(r1.backend, "defect-no-lookup")
        XCTAssertEqual(r1.dispatch, .rankedFirst)

        let (out2, r2) = try host.run(withLookup, inputs: [input], on: .backend("defect-no-lookup"))
        XCTAssertEqual(out2, try ReferenceInterpreter.run(withLookup, inputs: [input]))
        XCTAssertEqual(r2.backend, "reference")
        XCTAssertEqual(r2.dispatch, .dispatchUnitInexact)
        XCTAssertTrue(r2.reason.contains("not accepted for lookup (unsupported)"), r2.reason)
    }

    @discardableResult
    private func assertRejected(_ row: UnitProbeRecord, stages: Set<ProbeStage>, ops: Set<String>,
                                file: StaticString = #filePath, line: UInt = #line) -> ProbeMismatch? {
        XCTAssertEqual(row.state, .rejected, "\(row.backend): \(row.reason)", file: file, line: line)
        XCTAssertTrue(stages.contains { VerdictStage($0) == row.stage }, "\(row.backend): stage \(row.stage?.rawValue ?? "none"): \(row.reason)",
                      file: file, line: line)
        guard let m = row.mismatch else {
            XCTFail("\(row.backend): no mismatch in \(row.reason)", file: file, line: line)
            return nil
        }
        XCTAssertTrue(ops.contains(m.op.name), "\(row.backend): op \(m.op): \(row.reason)", file: file, line: line)
        XCTAssertNotEqual(m.expected, m.got, file: file, line: line)
        XCTAssertNotNil(m.parameters, "\(row.backend): the op's parameters are named", file: file, line: line)
        XCTAssertTrue(row.reason.contains(m.graph), row.reason, file: file, line: line)
        return m
    }
}
