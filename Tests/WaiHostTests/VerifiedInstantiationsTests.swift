import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Re-sized graphs are verified once per model set and size (VerifiedInstantiations): the
/// same graph at the same size is not verified again, and no other graph or size ever
/// receives a remembered instantiation.
final class VerifiedInstantiationsTests: XCTestCase {
    func testOnlyTheSameGraphAtTheSameSizeHits() throws {
        let (a, _) = try HostTestSupport.smallGraph()
        var b = a
        guard case .conv2d(var p) = b.nodes[0].op else { return XCTFail("the small graph starts with a conv") }
        p.weights[0] = p.weights[0] == 0 ? 1 : 0
        b.nodes[0].op = .conv2d(p)
        let memo = VerifiedInstantiations(limit: 4)
        var made = 0
        func instance(_ g: IntegerGraph, _ h: Int, _ w: Int) throws -> IntegerGraph {
            memo.instantiation(of: g, height: h, width: w) {
                made += 1
                var r = g
                r.tensors[r.inputs[0]].shape = Shape(2, h, w)
                return r
            }
        }
        let first = try instance(a, 6, 5)
        XCTAssertEqual(try instance(a, 6, 5), first)
        XCTAssertEqual(made, 1, "the same graph at the same size is made and verified once")
        XCTAssertEqual(try instance(a, 5, 6).tensors[a.inputs[0]].shape, Shape(2, 5, 6))
        XCTAssertEqual(made, 2, "another size is another instantiation")
        let other = try instance(b, 6, 5)
        XCTAssertEqual(made, 3, "a graph differing in one weight never hits")
        XCTAssertEqual(other.nodes, b.nodes)
        XCTAssertNotEqual(other.nodes, first.nodes)
    }

    func testARefusedInstantiationIsNotRemembered() throws {
        let (a, _) = try HostTestSupport.smallGraph()
        let memo = VerifiedInstantiations(limit: 4)
        struct Refused: Error {}
        for _ in 0..<2 {
            XCTAssertThrowsError(try memo.instantiation(of: a, height: 3, width: 3) { throw Refused() })
        }
        XCTAssertEqual(memo.count, 0)
    }

    func testResizingThroughTheMemoEqualsResizingAfresh() throws {
        let (a, _) = try HostTestSupport.smallGraph()
        let resized = try GraphResizing.resized(a, height: 7, width: 9)
        XCTAssertEqual(try GraphResizing.resized(a, height: 7, width: 9), resized)
        XCTAssertEqual(resized.tensors.map(\.shape.height), resized.tensors.map { _ in 7 })
        XCTAssertNoThrow(try CertificateVerifier.verify(resized))
    }
}
