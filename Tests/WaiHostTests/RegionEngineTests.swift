import XCTest
import WaiHost
import RegionKernels
import EmulatedRegionKernels
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

    /// The AVX-512 loops on emulated intrinsics (Tests/EmulatedRegionKernels), so they are
    /// checked on CPUs without AVX-512 VNNI too: every channel count around the 32-lane
    /// vectors and their masked tails, output counts around the 8-channel blocks, several
    /// pairs, strided outputs, int16 and int32 inputs at the int16 extremes; and inverse GDN.
    /// The scalar loop is the one the test above checks against the reference.
    func testTheAVX512LoopsOnEmulatedIntrinsicsGiveTheScalarLoopsValues() throws {
        var rng = SplitMix64(seed: 0x4156_5835_3132)
        func int16() -> Int16 { rng.oneIn(4) ? (rng.oneIn(2) ? Int16.min : Int16.max) : Int16(truncatingIfNeeded: rng.int(-32768...32767)) }
        var cases = 0
        for cin in [1, 2, 15, 31, 32, 33, 64, 70] {
            for cout in [1, 7, 8, 9, 17] {
                for (pairs, wide, stride) in [(1, false, 1), (3, false, 3), (9, false, 1), (3, true, 2)] {
                    let tapsCin = pairs * cin
                    let w = (0..<(cout * tapsCin)).map { _ in int16() }
                    let wOff = (0..<pairs).map { Int32($0 * cin) }
                    let xOff = (0..<pairs).map { Int32($0 * (cin + 5)) }
                    let xCount = pairs * (cin + 5)
                    let x16 = (0..<xCount).map { _ in int16() }
                    let x32 = (0..<xCount).map { _ in Int32(int16()) }
                    let bias = (0..<cout).map { _ in Int32(truncatingIfNeeded: rng.next()) }
                    func run(_ f: (UnsafePointer<Int16>, UnsafeRawPointer, UnsafePointer<Int32>, UnsafePointer<Int32>,
                                   UnsafePointer<Int32>, UnsafeMutablePointer<Int32>) -> Void) -> [Int32] {
                        var y = [Int32](repeating: 0, count: cout * stride)
                        w.withUnsafeBufferPointer { wp in bias.withUnsafeBufferPointer { bp in
                            wOff.withUnsafeBufferPointer { wo in xOff.withUnsafeBufferPointer { xo in
                                y.withUnsafeMutableBufferPointer { yp in
                                    if wide { x32.withUnsafeBytes { f(wp.baseAddress!, $0.baseAddress!, bp.baseAddress!, wo.baseAddress!, xo.baseAddress!, yp.baseAddress!) } }
                                    else { x16.withUnsafeBytes { f(wp.baseAddress!, $0.baseAddress!, bp.baseAddress!, wo.baseAddress!, xo.baseAddress!, yp.baseAddress!) } }
                                }
                            } }
                        } }
                        return y
                    }
                    let scalar = run { wai_region_conv_position($0, $1, wide ? 1 : 0, $2, $3, $4, Int32(pairs), Int32(cin), Int32(cout),
                                                                tapsCin, $5, stride, WAI_REGION_ISA_SCALAR) }
                    let emulated = run { wai_region_conv_avx512_emulated($0, $1, wide ? 1 : 0, $2, $3, $4, Int32(pairs), Int32(cin),
                                                                         Int32(cout), tapsCin, $5, stride) }
                    XCTAssertEqual(emulated, scalar, "conv cin \(cin) cout \(cout) pairs \(pairs) \(wide ? "int32" : "int16") stride \(stride)")
                    cases += 1
                }
            }
        }
        XCTAssertEqual(cases, 160)

        let channels = 11, positions = 23
        let x = (0..<(channels * positions)).map { _ in Int32(rng.int(-3000...3000)) }
        let beta = (0..<channels).map { _ in Int32(rng.int(1...(1 << 16))) }
        let gamma = (0..<(channels * channels)).map { _ in Int32(rng.int(0...900)) }
        func igdn(_ f: (UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafeMutablePointer<Int32>,
                        UnsafeMutablePointer<Int32>) -> Void) -> [Int32] {
            var y = [Int32](repeating: 0, count: channels * positions)
            var scratch = [Int32](repeating: 0, count: 2 * channels * positions)
            x.withUnsafeBufferPointer { xp in beta.withUnsafeBufferPointer { bp in gamma.withUnsafeBufferPointer { gp in
                y.withUnsafeMutableBufferPointer { yp in scratch.withUnsafeMutableBufferPointer { sp in
                    f(xp.baseAddress!, bp.baseAddress!, gp.baseAddress!, yp.baseAddress!, sp.baseAddress!)
                } }
            } } }
            return y
        }
        XCTAssertEqual(igdn { wai_region_igdn_avx512_emulated($0, Int32(channels), Int32(positions), $1, $2, 4, 9, $3, $4) },
                       igdn { wai_region_igdn($0, Int32(channels), Int32(positions), $1, $2, 4, 9, $3, $4, WAI_REGION_ISA_SCALAR) })
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
