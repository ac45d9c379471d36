import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// A unit with a buffer limit larger than any probe graph (Tests/CPlugins/defect_backend.c,
/// DEFECT_SMALL_BUFFERS: `unsupported` past 2^24 + 2^20 elements, as lavapipe past its
/// maxStorageBufferRange): the host learns the limit from the refusal instead of marking the
/// unit failed, and a tiled run then plans tiles below it on that unit
/// (docs/capabilities/int_hyper.md §3.1, docs/probe.md §2).
final class UnitSizeLimitTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    func testAUnitThatRefusesLargeBuffersGetsTilesBelowItsLimit() throws {
        let dir = try HostTestSupport.temporaryDirectory("small-buffers")
        try CPluginBuilder.shared.installDefects([.smallBuffers], into: dir)
        let host = BackendHost(configuration: HostTestSupport.configuration(
            plugins: [dir], cache: try HostTestSupport.temporaryDirectory("small-buffers-cache"), timeout: 600))
        let probe = try host.probe(fresh: true)
        let unit = DefectVariant.smallBuffers.backendName
        let row = try XCTUnwrap(probe.units.first { $0.backend == unit })
        XCTAssertEqual(row.state, .accepted, row.reason)

        var b = GraphBuilder()
        let shape = Shape(1, 4300, 4300)   // 18 490 000 elements: past the unit's buffers
        let x = b.input("x", shape, storage: .narrow, interval: Interval(lo: -1000, hi: 1000))
        let y = try b.clamp(x, lo: -100, hi: 100, name: "y")
        let graph = try b.build(outputs: [y])
        let input = TensorValue(shape: shape, values: (0..<shape.count).map { Int32($0 % 2001 - 1000) })
        let runner = HostGraphRunner(host: host, selection: .best)
        XCTAssertNil(runner.maxTensorElements(for: graph))

        // The whole graph: refused, run on the reference interpreter, the limit learned.
        let whole = try runner.run(graph, inputs: [input])
        XCTAssertEqual(whole.report.backend, "reference")
        XCTAssertEqual(whole.report.dispatch, .unitFailed)
        XCTAssertTrue(whole.report.reason.contains("refused a graph with a tensor of \(shape.count) elements"), whole.report.reason)
        XCTAssertEqual(runner.maxTensorElements(for: graph), shape.count / 2)

        // Not marked failed: a tiled run of the same graph plans below the limit, on the unit.
        let tiled = try TiledGraph(graph, input: Extent(height: shape.height, width: shape.width))
        var out = [Int32](repeating: -9999, count: shape.count)
        let r = try tiled.run(budget: TileBudget(bytes: 1 << 40), runner: runner, name: "clamp",
                              input: { input.window($0) }) { tile, t, _ in
            for i in tile.output.rows {
                for j in tile.output.cols {
                    out[i * shape.width + j] = t.values[(i - tile.originRow) * t.shape.width + j - tile.originCol]
                }
            }
        }
        XCTAssertGreaterThan(r.tiles, 1)
        XCTAssertEqual(r.report.backend, unit, r.report.reason)
        XCTAssertFalse(r.report.reason.contains("tiles ran on"), r.report.reason)
        XCTAssertTrue(out == whole.outputs[0].values, "the tiled run differs from the whole run")
    }
}
