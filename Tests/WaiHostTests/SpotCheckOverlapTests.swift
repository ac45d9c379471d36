import XCTest
import TestSupport
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// A spot check's windows are computed while the unit runs and compared once it answered
/// (docs/probe.md §7, PendingSpotCheck): the comparison sees every window, reports the
/// first difference in window order whatever finished first, and a run whose unit failed
/// drops its check. BackendHost.run returns a run's outputs only after the comparison; the
/// demotion and redo through a real plugin are SpotCheckDefectTests.
final class SpotCheckOverlapTests: XCTestCase {
    private func synthesis() throws -> (IntegerGraph, [TensorValue], [TensorValue]) {
        let c = try DecodeVector.builtIn()
        return (c.graph, c.inputs, try ReferenceInterpreter.run(c.graph, inputs: c.inputs))
    }

    func testAPendingCheckPassesTheReferenceOutputsAndFindsAWrongCornerElement() throws {
        let (graph, inputs, right) = try synthesis()
        var rng = SplitMix64(seed: 0x0E71_A9)
        let cache = WindowCache()
        XCTAssertNil(try SpotCheck.start(graph, inputs: inputs, rng: &rng, cache: cache)
                        .finish(outputs: right, graphName: "synthesis"))

        // The last element of the last channel: inside the corner window of every run.
        var wrong = right
        let last = wrong[0].values.count - 1
        wrong[0].values[last] &+= 1
        let pending = SpotCheck.start(graph, inputs: inputs, rng: &rng, cache: cache)
        let m = try XCTUnwrap(try pending.finish(outputs: wrong, graphName: "synthesis"))
        XCTAssertEqual(m.index, last)
        XCTAssertEqual(m.expected, right[0].values[last])
        XCTAssertEqual(m.got, right[0].values[last] &+ 1)
        XCTAssertEqual(m.stage, .runtime)
    }

    func testTheFirstDifferenceInWindowOrderIsReportedWhateverFinishesFirst() throws {
        let (graph, inputs, right) = try synthesis()
        let shape = graph.tensors[graph.outputs[0]].shape
        let plane = shape.height * shape.width
        for seed in UInt64(1)...6 {
            var draw = SplitMix64(seed: seed)
            let jobs = SpotCheck.jobs(graph, rng: &draw)
            XCTAssertEqual(jobs.count, 1 + SpotCheck.interiorWindows)
            // Wrong in the last interior window and in the corner: the corner (job 0) is named.
            let interior = try XCTUnwrap(jobs.last).window
            var wrong = right
            let inside = (shape.channels - 1) * plane + interior.rows.lowerBound * shape.width + interior.cols.lowerBound
            let corner = shape.count - 1
            wrong[0].values[inside] &+= 7
            wrong[0].values[corner] &-= 7
            var rng = SplitMix64(seed: seed)
            let m = try XCTUnwrap(try SpotCheck.start(graph, inputs: inputs, rng: &rng).finish(outputs: wrong, graphName: "g"))
            // The corner window is the costliest, so it finishes last: it is still the one named
            // (or, when the interior window lies inside it, the earlier element of the two).
            let expected = jobs[0].window.contains(channel: shape.channels - 1, index: inside, shape: shape) ? inside : corner
            XCTAssertEqual(m.index, expected, "seed \(seed)")
        }
    }

    func testAWrongShapeOrAMissingOutputIsAMismatchNotACrash() throws {
        let (graph, inputs, right) = try synthesis()
        var rng = SplitMix64(seed: 3)
        let short = [TensorValue(shape: Shape(right[0].shape.channels, 1, 1),
                                 values: Array(repeating: 0, count: right[0].shape.channels))]
        let m = try XCTUnwrap(try SpotCheck.start(graph, inputs: inputs, rng: &rng).finish(outputs: short, graphName: "g"))
        XCTAssertTrue(m.parameters?.contains("returned") ?? false, "\(m)")
        let none = try XCTUnwrap(try SpotCheck.start(graph, inputs: inputs, rng: &rng).finish(outputs: [], graphName: "g"))
        XCTAssertEqual(none.parameters?.hasPrefix("no output returned"), true, "\(none)")
    }

    /// A unit that failed: the check is dropped unfinished, and the host goes on (the next
    /// run's check still compares every window).
    func testACancelledCheckIsDroppedAndTheNextOneStillCompares() throws {
        let (graph, inputs, right) = try synthesis()
        var rng = SplitMix64(seed: 11)
        for _ in 0..<4 { SpotCheck.start(graph, inputs: inputs, rng: &rng).cancel() }
        var wrong = right
        wrong[0].values[wrong[0].values.count - 1] &+= 1
        XCTAssertNotNil(try SpotCheck.start(graph, inputs: inputs, rng: &rng).finish(outputs: wrong, graphName: "g"))
    }
}

private extension Window {
    /// Whether element `index` of a CHW tensor of `shape` (in channel `channel`) lies in the window.
    func contains(channel: Int, index: Int, shape: Shape) -> Bool {
        let inPlane = index - channel * shape.height * shape.width
        return rows.contains(inPlane / shape.width) && cols.contains(inPlane % shape.width)
    }
}
