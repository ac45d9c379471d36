import Foundation
import XCTest
import TestSupport
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// One probe run builds each stage once and runs each case once on the reference for all
/// its units (ProbeReferences), and the units still see the reference's own outputs.
final class ProbeReferencesTests: XCTestCase {
    func testEachOutputIsComputedOnceForAllSessionsThenDropped() throws {
        let refs = ProbeReferences(sessions: 3)
        var computed = 0
        let value = [TensorValue(shape: Shape(1, 1, 2), values: [7, -7])]
        func take(_ key: String) -> [TensorValue] { refs.expected(key) { computed += 1; return value } }
        XCTAssertEqual(take("a"), value)
        XCTAssertEqual(take("a"), value)
        XCTAssertEqual(computed, 1, "the second session waits for and takes the first one's outputs")
        _ = take("b")
        XCTAssertEqual(computed, 2, "another case is another computation")
        XCTAssertEqual(take("a"), value)
        XCTAssertEqual(take("a"), value)
        XCTAssertEqual(computed, 3, "taken by all three sessions, then dropped (a fourth ask computes again)")
    }

    func testConcurrentSessionsShareOneComputation() {
        let refs = ProbeReferences(sessions: 4)
        let counter = Locked(0)
        let results = runConcurrently((0..<4).map { _ in {
            refs.expected("case") { counter.update { $0 += 1 }; usleep(20_000); return [TensorValue(shape: Shape(1, 1, 1), values: [1])] }
        } })
        XCTAssertEqual(counter.value, 1)
        XCTAssertEqual(Set(results.map { $0[0].values }), [[1]])
    }

    func testProbeThroughSharedReferencesGivesTheSameVerdicts() throws {
        let refs = ProbeReferences(sessions: 2)
        let stages: [ProbeStage] = [.semantics, .widths]
        let exact = try ExactnessProbe.run(stages: stages, unit: ClosureUnit { g, i in try ReferenceInterpreter.run(g, inputs: i) },
                                           references: refs)
        XCTAssertEqual(exact.state, .accepted, exact.reason)
        let wrong = try ExactnessProbe.run(stages: stages, unit: ClosureUnit { g, i in
            var out = try ReferenceInterpreter.run(g, inputs: i)
            if g.nodes.contains(where: { $0.op.name == "clamp" }), !out[0].values.isEmpty { out[0].values[0] &+= 1 }
            return out
        }, references: refs)
        XCTAssertEqual(wrong.state, .rejected)
        XCTAssertNotNil(wrong.mismatch)
    }
}
