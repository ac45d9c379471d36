import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Tiled decoding and encoding (docs/capabilities/int_hyper.md §3.1): every tiling gives the
/// bytes of the untiled run — tiles that do not divide the picture, one-pixel tiles and
/// one-pixel pictures included — and a unit that learns a tensor limit mid-picture gets
/// smaller tiles.
final class TiledCodecTests: XCTestCase {
    let huge = TileBudget(bytes: 1 << 40)

    func tiles(_ side: Int) -> TileBudget { TileBudget(bytes: 1 << 40, tileSide: side) }

    /// The untiled decode: the whole graphs at the picture's size, as before tiling.
    func untiled(_ set: IntHyperModelSet, _ payload: IntHyperPayload) throws -> RGB8Image {
        let inst = try IntHyperDecoder.instance(set, width: payload.width, height: payload.height)
        let z = try IntHyperDecoder(modelSet: set).decode(payload, runner: HostGraphRunner.reference(), budget: huge)
        let reference = HostGraphRunner.reference()
        let whole = try reference.run(inst.synthesis, inputs: [z.y]).outputs[0]
        var px = [UInt8](repeating: 0, count: payload.width * payload.height * 3)
        let plane = whole.shape.height * whole.shape.width
        for i in 0..<payload.height {
            for j in 0..<payload.width {
                for c in 0..<3 { px[(i * payload.width + j) * 3 + c] = UInt8(whole.values[c * plane + i * whole.shape.width + j]) }
            }
        }
        XCTAssertEqual(z.hyperSynthesisTiles, 1)
        XCTAssertEqual(z.synthesisTiles, 1)
        return try RGB8Image(width: payload.width, height: payload.height, pixels: px)
    }

    func testEveryTilingDecodesAndEncodesTheUntiledBytes() throws {
        let set = try IntHyperTestSupport.small()
        let reference = HostGraphRunner.reference()
        for (w, h, sides) in [(83, 61, [7, 23, 40]), (1, 1, [1]), (37, 1, [1, 5]), (1, 19, [1, 4]), (20, 3, [1])] {
            let picture = try SamplePicture.make(width: w, height: h)
            let untiledPayload = try IntHyperEncoder(modelSet: set).encode(picture, runner: reference, budget: huge)
            let payload = untiledPayload.payload
            let expected = try untiled(set, payload)
            for side in sides {
                let d = try IntHyperDecoder(modelSet: set).decode(payload, runner: reference, budget: tiles(side))
                XCTAssertEqual(d.image, expected, "\(w)×\(h) decoded in tiles of \(side)")
                XCTAssertEqual(d.synthesisTiles, ((w + side - 1) / side) * ((h + side - 1) / side), "\(w)×\(h), \(side)")
                let e = try IntHyperEncoder(modelSet: set).encode(picture, runner: reference, budget: tiles(side))
                XCTAssertEqual(e.bytes, untiledPayload.bytes, "\(w)×\(h) encoded in tiles of \(side)")
            }
        }
    }

    /// The shipped trained set (its g_a holds the converter's GDN with concatenations) and
    /// the golden vectors on the CPU backend, in tiles.
    func testTrainedSetAndGoldenVectorsInTiles() throws {
        let q2 = try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/models/q2", needsAnalysis: true)
        let reference = HostGraphRunner.reference()
        let picture = try SamplePicture.make(width: 70, height: 45)
        let whole = try IntHyperEncoder(modelSet: q2).encode(picture, runner: reference, budget: huge)
        let tiled = try IntHyperEncoder(modelSet: q2).encode(picture, runner: reference, budget: tiles(24))
        XCTAssertEqual(tiled.bytes, whole.bytes)
        let a = try IntHyperDecoder(modelSet: q2).decode(whole.payload, runner: reference, budget: huge)
        let b = try IntHyperDecoder(modelSet: q2).decode(whole.payload, runner: reference, budget: tiles(33))
        XCTAssertEqual(a.image, b.image)
        XCTAssertGreaterThan(b.synthesisTiles, 1)

        let cpu = try IntHyperTestSupport.cpuRunner()
        let photo = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/photo.wai")
        let json = try JSONDecoder().decode([String: AnyCodableValue].self, from: Data(try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/photo.json")))
        guard case .string(let sha)? = json["sha256"] else { return XCTFail("photo.json has no sha256") }
        let payload = try IntHyperPayload.parse(try CapabilityRegistry.open(photo, expecting: IntHyperModelSet.capability).payload)
        let d = try IntHyperDecoder(modelSet: q2).decode(payload, runner: cpu, budget: tiles(160))
        XCTAssertEqual(d.image.sha256, sha)
        XCTAssertEqual(d.synthesisTiles, 16)
        XCTAssertEqual(d.hyperSynthesisReport.backend, "cpu")
    }

    /// The planner's own choice: one tile when the graph fits, else tiles under the budget.
    func testPlansStayUnderTheBudget() throws {
        let set = try IntHyperTestSupport.small()
        let plan = try IntHyperDecoder.tiling(set, width: 300, height: 200)
        let one = try plan.synthesis.plan(huge)
        XCTAssertEqual(one.count, 1)
        let budget = TileBudget(bytes: one[0].elements * 4 / 5)
        let many = try plan.synthesis.plan(budget)
        XCTAssertGreaterThan(many.count, 1)
        XCTAssertTrue(many.allSatisfy { $0.elements * 4 <= budget.bytes }, "\(many.map(\.elements))")
        // Edge tiles' windows are widened to the interior's: one graph instance serves all.
        XCTAssertEqual(Set(many.map { Extent(height: $0.input.rows.count, width: $0.input.cols.count) }).count, 1)
        // Every output element is covered exactly once.
        var covered = [Int](repeating: 0, count: 300 * 200)
        for t in many { for i in t.output.rows { for j in t.output.cols { covered[i * 300 + j] += 1 } } }
        XCTAssertEqual(Set(covered), [1])
        XCTAssertThrowsError(try plan.synthesis.plan(TileBudget(bytes: 64))) { e in
            guard case .budgetTooSmall? = e as? TilingError else { return XCTFail("\(e)") }
        }
    }

    /// The plan is the grid of least work, not the largest square that fits: on 1920×1080
    /// with a third of the untiled graph's bytes, square tiles of the largest side leave a
    /// thin last row and column, each widened to a full tile. The work (elements of every
    /// tile's graph together) stays within 1.4× the untiled graph's and never above the
    /// largest-square plan's; every tile fits and every output element is covered once.
    func testThePlanIsTheGridOfLeastWork() throws {
        let set = try IntHyperTestSupport.small()
        let (w, h) = (1920, 1080)
        let gs = try IntHyperDecoder.tiling(set, width: w, height: h).synthesis
        let whole = try gs.plan(huge)[0]
        for divisor in [3, 5, 12] {
            let budget = TileBudget(bytes: whole.elements * 4 / divisor)
            let plan = try gs.plan(budget)
            XCTAssertTrue(plan.allSatisfy { TiledGraph.fits($0, budget) })
            var covered = [UInt8](repeating: 0, count: w * h)
            for t in plan { for i in t.output.rows { for j in t.output.cols { covered[i * w + j] += 1 } } }
            XCTAssertEqual(Set(covered), [1])
            let work = plan.map(\.elements).reduce(0, +)
            var side = min(w, h) / 16 * 16
            var squares = try gs.tiles(height: side, width: side)
            while !squares.allSatisfy({ TiledGraph.fits($0, budget) }) {
                side -= 16
                squares = try gs.tiles(height: side, width: side)
            }
            let squareWork = squares.map(\.elements).reduce(0, +)
            XCTAssertLessThanOrEqual(work, squareWork, "budget 1/\(divisor)")
            XCTAssertLessThanOrEqual(Double(work) / Double(whole.elements), 1.4,
                                     "budget 1/\(divisor): \(plan.count) tiles against \(squares.count) squares of \(side)")
        }
    }

    /// A runner that counts what it is asked to release.
    final class ReleaseCountingRunner: GraphRunner {
        var releases = 0
        var graphs = Set<Shape>()
        func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
            graphs.insert(graph.tensors[graph.inputs[0]].shape)
            return try HostGraphRunner.reference().run(graph, inputs: inputs)
        }
        func release(_ graph: IntegerGraph) { releases += 1 }
    }

    /// Every tile's window is widened to one size, so a tiled decode runs one tile graph;
    /// like a whole run's, it stays prepared for the next picture of the size (a sequence,
    /// a server's pictures) instead of being released and prepared again each time.
    func testTheOneTileGraphOfAPlanStaysPrepared() throws {
        let set = try IntHyperTestSupport.small()
        let picture = try SamplePicture.make(width: 160, height: 96)
        let payload = try IntHyperEncoder(modelSet: set).encode(picture, runner: HostGraphRunner.reference(), budget: huge).payload
        let runner = ReleaseCountingRunner()
        let budget = tiles(48)
        let first = try IntHyperDecoder(modelSet: set).decode(payload, runner: runner, budget: budget).image
        let second = try IntHyperDecoder(modelSet: set).decode(payload, runner: runner, budget: budget).image
        XCTAssertEqual(first, second)
        XCTAssertEqual(runner.releases, 0)
        XCTAssertEqual(runner.graphs.count, 2, "one tile graph for h_s and one for g_s: \(runner.graphs)")
    }

    /// A runner whose unit takes tensors up to `limit` elements and runs larger ones elsewhere
    /// (as BackendHost does after a unit answers `unsupported`): the picture is planned again
    /// below the limit once the runner knows it.
    final class LimitedRunner: GraphRunner {
        let limit: Int
        var known: Int?
        var largestAfterLearning = 0
        init(limit: Int) { self.limit = limit }
        func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
            let largest = ProbeCoverage.largestTensor(graph)
            if known != nil { largestAfterLearning = max(largestAfterLearning, largest) }
            if largest > limit { known = limit }
            return try HostGraphRunner.reference().run(graph, inputs: inputs)
        }
        func maxTensorElements(for graph: IntegerGraph) -> Int? { known }
    }

    func testALearnedUnitLimitReplansTheTiles() throws {
        let set = try IntHyperTestSupport.small()
        let picture = try SamplePicture.make(width: 160, height: 96)
        let reference = HostGraphRunner.reference()
        let payload = try IntHyperEncoder(modelSet: set).encode(picture, runner: reference, budget: huge).payload
        let expected = try IntHyperDecoder(modelSet: set).decode(payload, runner: reference, budget: huge).image
        // h_s fits the unit; g_s's first tiles (half the whole graph each) do not.
        let plan = try IntHyperDecoder.tiling(set, width: 160, height: 96)
        let hsLargest = try plan.hyperSynthesis.plan(huge)[0].largest
        let gsWhole = try plan.synthesis.plan(huge)[0]
        let runner = LimitedRunner(limit: max(hsLargest, gsWhole.largest / 3))
        let budget = TileBudget(bytes: gsWhole.elements * 4 / 2)
        XCTAssertTrue(try plan.synthesis.plan(budget).contains { $0.largest > runner.limit })
        let d = try IntHyperDecoder(modelSet: set).decode(payload, runner: runner, budget: budget)
        XCTAssertEqual(d.image, expected)
        XCTAssertEqual(runner.known, runner.limit)
        XCTAssertLessThanOrEqual(runner.largestAfterLearning, runner.limit)
        XCTAssertGreaterThan(d.synthesisTiles, 1)
    }
}

/// Just enough JSON to read a golden file's string fields.
enum AnyCodableValue: Decodable {
    case string(String), number(Double), other
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) { self = .string(s) } else if let n = try? c.decode(Double.self) { self = .number(n) } else { self = .other }
    }
}
