import XCTest
import TestSupport
import BackendABI
import WaiHost

/// The op table (Sources/WaiOps/OpKind.swift) against the backend ABI's header: every
/// `WAI_OP_*` of wai_backend.h has its row, with the same value and the same name.
final class OpTableTests: XCTestCase {
    private func headerOps() throws -> [(name: String, value: UInt32)] {
        let header = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/BackendABI/include/wai_backend.h").standardized
        let text = try String(contentsOf: header, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\bWAI_OP_([A-Z0-9_]+)\s*=\s*([0-9]+)"#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { m in
            let name = String(text[Range(m.range(at: 1), in: text)!]).lowercased()
            return (name, UInt32(text[Range(m.range(at: 2), in: text)!])!)
        }
    }

    func testEveryWaiOpOfTheHeaderHasItsRow() throws {
        let ops = try headerOps()
        XCTAssertFalse(ops.isEmpty, "no WAI_OP_ in wai_backend.h")
        for (name, value) in ops {
            let kind = try XCTUnwrap(OpKind(rawValue: value), "WAI_OP_\(name.uppercased()) = \(value) has no row")
            XCTAssertEqual(kind.name, name, "WAI_OP_\(name.uppercased())")
            XCTAssertEqual(OpKind(name: name), kind)
        }
        XCTAssertEqual(Set(ops.map(\.value)), Set(OpKind.allCases.map(\.rawValue)), "rows the header does not have")
    }

    func testTheCompiledHeaderAgrees() {
        let compiled: [(wai_op, OpKind)] = [(WAI_OP_CONV2D, .conv2d), (WAI_OP_CONV_TRANSPOSE2D, .convTranspose2d),
                                            (WAI_OP_REQUANTIZE, .requantize), (WAI_OP_ADD, .add), (WAI_OP_CLAMP, .clamp),
                                            (WAI_OP_DEPTH_TO_SPACE, .depthToSpace), (WAI_OP_CONCAT, .concat),
                                            (WAI_OP_LOOKUP, .lookup), (WAI_OP_INVERSE_GDN, .inverseGDN),
                                            (WAI_OP_WARP, .warp)]
        XCTAssertEqual(compiled.count, OpKind.allCases.count)
        for (c, kind) in compiled { XCTAssertEqual(c.rawValue, kind.rawValue, kind.name) }
    }

    func testArityIsWhatTheVerifierEnforces() throws {
        // add takes two inputs: given one, the certificate names the op and the count.
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, 4), storage: .wide, interval: Interval(lo: 0, hi: 3))
        let y = try b.add(x, x)
        var g = try b.build(outputs: [y])
        XCTAssertEqual(OpKind.add.inputCount, 2)
        g.nodes[0].inputs = [x]
        XCTAssertThrowsError(try CertificateVerifier.verify(g)) { error in
            XCTAssertTrue("\(error)".contains("takes 2 inputs, has 1"), "\(error)")
        }
        XCTAssertNil(OpKind.concat.inputCount)
        XCTAssertEqual(OpKind.warp.inputCount, 2)
    }
}
