import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

final class GraphBuilderTests: XCTestCase {
    private func iv(_ lo: Int64, _ hi: Int64) -> Interval { Interval(lo: lo, hi: hi) }

    func testBuildsVerifiedGraphWithInferredShapesAndStorage() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(2, 3, 3), storage: .narrow, interval: iv(-100, 100))
        let w = [Int16](repeating: 300, count: 4 * 2 * 9)
        let y = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, weights: w, bias: [0, 1, 2, 3]))
        let r = try b.requantize(y, RequantizeParams(multiplier: [1, 1, 1, 1], shift: [10, 10, 10, 10], lo: -127, hi: 127))
        let d = try b.depthToSpace(r, block: 2, name: "up")
        let g = try b.build(outputs: [d])
        XCTAssertEqual(g.tensors.map(\.shape), [Shape(2, 3, 3), Shape(4, 2, 2), Shape(4, 2, 2), Shape(1, 4, 4)])
        // conv: 18 weights of 300 on [−100, 100] reach ±540000 + bias: wide; the rest fit narrow.
        XCTAssertEqual(g.tensors.map(\.storage), [.narrow, .wide, .narrow, .narrow])
        XCTAssertEqual(g.tensors[y].interval, iv(-540_000, 540_003))
        XCTAssertEqual(g.tensors.map(\.name), ["x", "conv2d_0", "requantize_1", "up"])
        XCTAssertEqual(g.nodes.map(\.output), [1, 2, 3])
        XCTAssertEqual(g.inputs, [0])
        XCTAssertEqual(g.outputs, [3])
        XCTAssertNoThrow(try CertificateVerifier.verify(g))
        XCTAssertEqual(try CertificateVerifier.computeIntervals(g), g.tensors.map(\.interval))
    }

    func testExplicitStorageIsKeptOrRefused() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, 1), storage: .narrow, interval: iv(0, 10))
        let wideClamp = try b.clamp(x, lo: 0, hi: 5, storage: .wide)
        let big = b.input("big", Shape(1, 1, 1), storage: .wide, interval: iv(0, 30000))
        XCTAssertThrowsError(try b.add(big, big, storage: .narrow)) {
            XCTAssertEqual($0 as? GraphError, .storage(node: 1, op: "add", tensor: 3, name: "add_1", storage: .narrow, interval: iv(0, 60000)))
        }
        let g = try b.build(outputs: [wideClamp])
        XCTAssertEqual(g.tensors[wideClamp].storage, .wide)
    }

    func testErrorsComeFromTheCallThatCausedThem() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(3, 4, 4), storage: .narrow, interval: iv(-1, 1))
        XCTAssertThrowsError(try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1, weights: [1], bias: [0]))) {
            guard case .node(0, "conv2d", let problem)? = $0 as? GraphError else { return XCTFail("\($0)") }
            XCTAssertTrue(problem.contains("weights"))
        }
        XCTAssertThrowsError(try b.depthToSpace(x, block: 2)) {
            guard case .node(0, "depth_to_space", _)? = $0 as? GraphError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try b.add(x, 9)) {
            XCTAssertEqual($0 as? GraphError, .node(index: 0, op: "add", problem: "input names tensor 9; the builder has 1 tensors"))
        }
        XCTAssertThrowsError(try b.concat([])) {
            guard case .node(0, "concat", _)? = $0 as? GraphError else { return XCTFail("\($0)") }
        }
        // A failed call leaves the builder unchanged: the next node is still node 0.
        let c = try b.clamp(x, lo: 0, hi: 1)
        XCTAssertEqual(c, 1)
        XCTAssertThrowsError(try b.build(outputs: [5]))
        XCTAssertThrowsError(try b.build(outputs: []))
    }

    func testBadInputDeclarationIsRefusedBeforeArithmetic() {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, 1), storage: .wide, interval: iv(Int64.min, Int64.max))
        XCTAssertThrowsError(try b.conv2d(x, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [Int16.max], bias: [0]))) {
            XCTAssertEqual($0 as? GraphError, .storage(node: nil, op: nil, tensor: 0, name: "x", storage: .wide, interval: iv(Int64.min, Int64.max)))
        }
        var c = GraphBuilder()
        let e = c.input("e", Shape(0, 1, 1), storage: .wide, interval: iv(0, 0))
        XCTAssertThrowsError(try c.clamp(e, lo: 0, hi: 0)) {
            guard case .tensor(0, "e", _)? = $0 as? GraphError else { return XCTFail("\($0)") }
        }
    }

    func testOverflowIsReportedAtTheNode() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, 1), storage: .wide, interval: iv(0, (1 << 30) - 1))
        let twice = try b.add(x, x)
        XCTAssertEqual(try b.build(outputs: [twice]).tensors[twice].interval, iv(0, (1 << 31) - 2))
        XCTAssertThrowsError(try b.add(twice, x)) {
            guard case .intermediate(1, "add", 2, "add_1", _, "a + b", let bound, _)? = $0 as? GraphError else { return XCTFail("\($0)") }
            XCTAssertEqual(bound, iv(0, (3 << 30) - 3))
        }
    }
}
