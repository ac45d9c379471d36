import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime

/// The probe against warps wrong the way real warp kernels go wrong (Tests/CPlugins/
/// defect_backend.c, DEFECT_WARP_*; docs/integer-ops.md §4.10): each is rejected with a
/// mismatch in a warp node naming its graph and parameters, at the stage whose graphs
/// reach where it breaks (docs/probe.md §1).
final class WarpDefectBackendTests: XCTestCase {
    private let builder = CPluginBuilder.shared

    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    func testTheProbeRejectsEveryWarpDefectWithANamedMismatch() throws {
        let dir = try HostTestSupport.temporaryDirectory("warp-defects")
        try builder.installDefects(DefectVariant.warp + [.none], into: dir)
        let host = BackendHost(configuration: HostTestSupport.configuration(
            plugins: [dir], cache: try HostTestSupport.temporaryDirectory("warp-defects-cache"), timeout: 600))
        let result = try host.probe(fresh: true)
        func row(_ v: DefectVariant) throws -> UnitProbeRecord {
            try XCTUnwrap(result.units.first { $0.backend == v.backendName }, "no row for \(v)")
        }
        let exact = try row(.none)
        XCTAssertEqual(exact.state, .accepted, exact.reason)

        // A negative offset's fraction: the borders' −E/2 and −E − 1 (and any random
        // negative offset) are split toward zero.
        try assertWarpRejected(row(.warpTruncFrac), stages: [.semantics])
        // Rounded weights: the ties' half-way fractions on two axes lose their exact product.
        try assertWarpRejected(row(.warpAxisRound), stages: [.semantics])
        // 16-bit lanes: E³·v wraps as soon as a narrow volume's values pass 2^(15 − 3F).
        try assertWarpRejected(row(.warpAcc16), stages: [.semantics])
        // ds below 0 with a fraction: the borders' scale coordinates −1 and −E + …
        let scale = try assertWarpRejected(row(.warpScaleClamp), stages: [.semantics])
        XCTAssertEqual(scale?.graph.hasPrefix("warp_borders"), true, scale?.graph ?? "")
        // Only more than 8 channels reach the tail block: no warp graph before `channels`
        // has them, and the first count past 8 there is 9.
        let tail = try assertWarpRejected(row(.warpTailChannels), stages: [.channels])
        XCTAssertEqual(tail?.graph, "warp_c9_s4")
        XCTAssertGreaterThanOrEqual(tail?.channel ?? 0, 8, "a channel of the partial last block")
        // A 16-bit in-plane index wraps only on a plane past 2^16 samples.
        let index = try assertWarpRejected(row(.warpIndex16), stages: [.scale])
        XCTAssertEqual(index?.graph.hasPrefix("warp_plane_2e16"), true, index?.graph ?? "")
    }

    @discardableResult
    private func assertWarpRejected(_ row: UnitProbeRecord, stages: Set<ProbeStage>,
                                    file: StaticString = #filePath, line: UInt = #line) -> ProbeMismatch? {
        XCTAssertEqual(row.state, .rejected, "\(row.backend): \(row.reason)", file: file, line: line)
        XCTAssertTrue(stages.contains { VerdictStage($0) == row.stage }, "\(row.backend): stage \(row.stage?.rawValue ?? "none"): \(row.reason)",
                      file: file, line: line)
        guard let m = row.mismatch else {
            XCTFail("\(row.backend): no mismatch in \(row.reason)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(m.op.name, "warp", "\(row.backend): \(row.reason)", file: file, line: line)
        XCTAssertNotEqual(m.expected, m.got, file: file, line: line)
        XCTAssertTrue(m.parameters?.contains("scales") ?? false, "\(row.backend): the warp's parameters are named: \(row.reason)",
                      file: file, line: line)
        XCTAssertTrue(row.reason.contains("stage \(m.stage.rawValue), graph \(m.graph): warp"), row.reason, file: file, line: line)
        return m
    }
}
