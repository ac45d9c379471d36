import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The region engine (docs/probe.md §7): a window of any output, evaluated from the
/// graph's inputs through the windows it depends on, equals the same elements of a whole
/// run of the reference interpreter — at the corner, at the edges where padding meets the
/// window, and inside — for every op and the synthesis transforms.
final class RegionEngineTests: XCTestCase {
    func testWindowsEqualTheWholeReferenceRunOnEveryOpAndOnWholeDecodes() throws {
        try checkWindows(isa: nil, minimum: 1200)
    }

    /// The C loops (Sources/RegionKernels) in every instruction set this CPU runs, narrower
    /// ones included: each gives the reference's values, tails of 1…33 channels among them.
    func testEveryInstructionSetOfTheWindowKernelsGivesTheReferenceValues() throws {
        let isas = RegionISA.allCases.filter { $0.rawValue <= RegionISA.best.rawValue }
        XCTAssertTrue(isas.contains(.scalar))
        for isa in isas { try checkWindows(isa: isa, minimum: 1200, label: "\(isa)") }
    }

    /// `isa` nil: no cache, the CPU's widest. A cache belongs to one graph: one per case.
    private func checkWindows(isa: RegionISA?, minimum: Int, label: String = "best") throws {
        var cases = try ProbeSuite.cases(.arithmetic)
        cases += try ProbeSuite.cases(.channels).filter { c in c.graph.tensors.allSatisfy { $0.shape.channels <= 33 } }
        cases += try ProbeSuite.cases(.decode)
        var rng = SplitMix64(seed: 0x5245_4749_4F4E)
        var checked = 0
        for c in cases {
            let full = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)
            let cache = isa.map { WindowCache(isa: $0) }
            for (k, t) in c.graph.outputs.enumerated() {
                let shape = c.graph.tensors[t].shape
                var windows = SpotCheck.windows(shape, rng: &rng)
                // The top-left corner and a one-element window too: both edges of padding.
                windows.append(Window(rows: 0..<min(3, shape.height), cols: 0..<min(3, shape.width)))
                let i = rng.int(0...(shape.height - 1)), j = rng.int(0...(shape.width - 1))
                windows.append(Window(rows: i..<(i + 1), cols: j..<(j + 1)))
                for w in windows {
                    let got = try RegionEngine.evaluate(c.graph, inputs: c.inputs, output: t, window: w, cache: cache)
                    let plane = shape.height * shape.width
                    for ch in 0..<shape.channels {
                        for y in w.rows {
                            for x in w.cols where got.at(ch, y, x) != full[k].values[ch * plane + y * shape.width + x] {
                                return XCTFail("\(label): \(c.name) tensor \(c.graph.tensors[t].name) \(w): (c \(ch), y \(y), x \(x)) "
                                               + "window \(got.at(ch, y, x)), whole run \(full[k].values[ch * plane + y * shape.width + x])")
                            }
                        }
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, minimum)
    }

    /// The windows a decode's corner depends on stay small: that is what makes a spot check
    /// cheap next to the run it checks.
    func testACornerOfASynthesisDependsOnASmallWindowOfTheLatent() throws {
        let c = try DecodeVector.builtIn()
        let out = c.graph.outputs[0]
        let shape = c.graph.tensors[out].shape
        let need = RegionEngine.requiredWindows(c.graph, output: out,
                                                window: Window(rows: (shape.height - 8)..<shape.height,
                                                               cols: (shape.width - 8)..<shape.width))
        let latent = try XCTUnwrap(need[c.graph.inputs[0]])
        XCTAssertEqual(latent.rows.upperBound, c.graph.tensors[c.graph.inputs[0]].shape.height)
        XCTAssertLessThanOrEqual(latent.rows.count, 3)
        XCTAssertLessThanOrEqual(latent.cols.count, 3)
    }
}
