import XCTest
import Foundation
@testable import WaiRuntime

/// `VerdictStage` replaced a string in the probe's records: its JSON must be the old
/// spelling, so probe-cache files written before it still read and the CLI, C API and
/// Python JSON are unchanged (docs/architecture.md, "Reports").
final class VerdictStageTests: XCTestCase {
    func testEveryProbeStageHasItsVerdictStageOfTheSameSpelling() {
        for stage in ProbeStage.allCases {
            XCTAssertEqual(VerdictStage(stage).rawValue, stage.rawValue)
            XCTAssertEqual(VerdictStage(stage).probeStage, stage)
        }
        for other in [VerdictStage.calibration, .runtime, .qualification, .replay] {
            XCTAssertNil(other.probeStage, "\(other) is not a probe stage")
        }
    }

    func testARecordedMismatchReadsAndWritesTheSameJSON() throws {
        let stored = #"{"channel":1,"expected":3,"got":4,"graph":"g","index":5,"node":0,"op":"add","runs_passed":7,"stage":"runtime","tensor":"t","x":2,"y":0}"#
        let m = try JSONDecoder().decode(ProbeMismatch.self, from: Data(stored.utf8))
        XCTAssertEqual(m.stage, .runtime)
        XCTAssertTrue(m.description.hasPrefix("stage runtime, graph g: add (node 0)"), m.description)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(String(decoding: try encoder.encode(m), as: UTF8.self), stored)
    }

    func testAStageNoHostWritesIsRefusedByName() {
        let forged = #"{"state":"rejected","stage":"hacked","reason":"r"}"#
        XCTAssertThrowsError(try JSONDecoder().decode(ProbeOutcome.self, from: Data(forged.utf8))) { error in
            XCTAssertTrue("\(error)".contains("hacked"), "\(error)")
        }
    }
}
