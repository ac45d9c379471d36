import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities
#if canImport(Glibc)
import Glibc
#endif

/// docs/model-container.md: round trips and every way a container is refused.
final class ModelContainerTests: XCTestCase {
    private func iv(_ lo: Int64, _ hi: Int64) -> Interval { Interval(lo: lo, hi: hi) }

    /// A small graph that uses every op (docs/integer-ops.md §4).
    static func everyOpGraph() throws -> IntegerGraph {
        var b = GraphBuilder()
        let x = b.input("x", Shape(4, 4, 4), storage: .narrow, interval: Interval(lo: -128, hi: 127))
        let conv = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 1, pad: 1,
                                              weights: (0..<(4 * 4 * 9)).map { Int16($0 % 7) - 3 }, bias: [1, -2, 3, -4]),
                                name: "conv")
        let rq = try b.requantize(conv, RequantizeParams(multiplier: [3, 5, 7, 9], shift: [4, 5, 6, 7], lo: -100, hi: 100))
        let gdn = try b.inverseGDN(rq, InverseGDNParams(beta: [1, 2, 3, 4], gamma: (0..<16).map { Int32($0 % 3) },
                                                        squareShift: 2, outShift: 3))
        let up = try b.convTranspose2d(gdn, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1,
                                                       weights: (0..<(4 * 4 * 25)).map { Int16($0 % 5) - 2 }, bias: [0, 1, 2, 3]))
        let d2s = try b.depthToSpace(up, block: 2)               // 1×16×16
        let y = b.input("y", Shape(1, 16, 16), storage: .wide, interval: Interval(lo: -5, hi: 5))
        let cat = try b.concat([d2s, y])
        let sum = try b.add(d2s, y)
        let lut = try b.lookup(sum, LookupParams(table: [10, 20, 30, 40, 50], offset: -2))
        let relu = try b.clamp(cat, lo: 0, hi: 1000)
        return try b.build(outputs: [relu, lut, sum])
    }

    /// Replaces the trailer with the SHA-256 of everything before it, so a test reaches the
    /// parser with a deliberately damaged body.
    private func resealed(_ body: [UInt8]) -> [UInt8] { body + SHA256.digest(body) }
    private func body(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.dropLast(32)) }

    private func refuses(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line,
                         _ check: (ModelContainerError) -> Void) {
        XCTAssertThrowsError(try ModelContainer.decode(bytes, source: "m.whm"), file: file, line: line) { error in
            guard let e = error as? ModelContainerError else { return XCTFail("\(error)", file: file, line: line) }
            check(e)
        }
    }

    // MARK: round trips

    func testRoundTrip() throws {
        let g = try Self.everyOpGraph()
        let bytes = ModelContainer.encode(g)
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x57, 0x48, 0x4D, 0x0D, 0x0A, 0x1A, 0x0A])
        let decoded = try ModelContainer.decode(bytes, source: "m.whm")
        XCTAssertEqual(decoded, g)
        XCTAssertEqual(ModelContainer.encode(decoded), bytes)
        XCTAssertEqual(Array(bytes.suffix(32)), SHA256.digest(body(bytes)))
    }

    func testRoundTripOfExtremeValuesAndNames() throws {
        var b = GraphBuilder()
        let x = b.input("entrée ✓", Shape(1, 1, 2), storage: .wide, interval: iv(Int64(Int32.min), 0))
        let r = try b.requantize(x, RequantizeParams(multiplier: [1], shift: [31], lo: Int32.min, hi: Int32.max), name: "")
        let l = try b.lookup(x, LookupParams(table: [Int32.min, Int32.max], offset: Int32.min + 1))
        let c = try b.conv2d(r, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [Int16.min], bias: [Int32.max - 32768]))
        let g = try b.build(outputs: [r, l, c, r])
        XCTAssertEqual(try ModelContainer.decode(ModelContainer.encode(g), source: "m.whm"), g)
    }

    func testLoadReadsAFileAndNamesItInErrors() throws {
        let tmp = try TempDir("whm")
        let dir = tmp.path
        let path = dir + "/model.whm"
        let bytes = ModelContainer.encode(try Self.everyOpGraph())
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        XCTAssertEqual(try ModelContainer.load(path: path), try Self.everyOpGraph())
        XCTAssertEqual(try SHA256.hexOfFile(path: path), SHA256.hex(bytes))

        XCTAssertThrowsError(try ModelContainer.load(path: dir + "/missing.whm")) {
            XCTAssertEqual($0 as? ModelContainerError, .unreadable(path: dir + "/missing.whm", reason: "No such file or directory"))
            XCTAssertTrue("\($0)".contains("missing.whm"))
        }
        XCTAssertThrowsError(try ModelContainer.load(path: dir)) {
            XCTAssertEqual($0 as? ModelContainerError, .unreadable(path: dir, reason: "not a regular file"))
        }
        XCTAssertThrowsError(try SHA256.hexOfFile(path: dir + "/missing.whm")) {
            XCTAssertEqual($0 as? SHA256.Failure, .unreadable(path: dir + "/missing.whm", reason: "No such file or directory"))
        }
        // A sparse file over the limit is refused from its size, before it is read.
        let huge = dir + "/huge.whm"
        let fd = open(huge, O_CREAT | O_WRONLY, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(ftruncate(fd, off_t((1 << 30) + 1)), 0)
        close(fd)
        XCTAssertThrowsError(try ModelContainer.load(path: huge)) {
            XCTAssertEqual($0 as? ModelContainerError, .tooLarge(source: huge, size: (1 << 30) + 1, limit: 1 << 30))
        }
        // A damaged file names the file.
        var damaged = bytes
        damaged[40] ^= 1
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
        XCTAssertThrowsError(try ModelContainer.load(path: path)) {
            guard case .checksumMismatch(path, _, _)? = $0 as? ModelContainerError else { return XCTFail("\($0)") }
        }
    }

    // MARK: refusals

    func testEveryTruncationIsRefused() throws {
        let bytes = ModelContainer.encode(try Self.everyOpGraph())
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try ModelContainer.decode(Array(bytes[0..<n]), source: "m.whm"), "prefix \(n)")
        }
        // The same cuts with a valid trailer, so that the parser itself meets the end.
        let b = body(bytes)
        for n in 0..<b.count {
            XCTAssertThrowsError(try ModelContainer.decode(resealed(Array(b[0..<n])), source: "m.whm"), "resealed prefix \(n)")
        }
    }

    func testWrongMagic() throws {
        var bytes = ModelContainer.encode(try Self.everyOpGraph())
        bytes[1] = UInt8(ascii: "X")
        refuses(bytes) { XCTAssertEqual($0, .badMagic(source: "m.whm")) }
        refuses(Array("hello, world\n".utf8)) { XCTAssertEqual($0, .badMagic(source: "m.whm")) }
        // A text-mode transfer that turned \r\n into \n.
        var crlf = ModelContainer.encode(try Self.everyOpGraph())
        crlf.remove(at: 4)
        refuses(crlf) { XCTAssertEqual($0, .badMagic(source: "m.whm")) }
        refuses([0x89, 0x57, 0x48]) {
            XCTAssertEqual($0, .truncated(source: "m.whm", offset: 0, field: "header and trailer", needed: 60, available: 3))
        }
    }

    func testWrongVersionAndFlags() throws {
        var b = body(ModelContainer.encode(try Self.everyOpGraph()))
        b[8] = 2
        refuses(resealed(b)) { XCTAssertEqual($0, .unsupportedVersion(source: "m.whm", version: 2, supported: 1)) }
        b[8] = 1
        b[11] = 1
        refuses(resealed(b)) {
            XCTAssertEqual($0, .invalidField(source: "m.whm", offset: 10, field: "header.flags", problem: "256, must be 0 (reserved)"))
        }
    }

    func testBadChecksum() throws {
        let bytes = ModelContainer.encode(try Self.everyOpGraph())
        for position in [40, bytes.count / 2, bytes.count - 33, bytes.count - 1] {
            var damaged = bytes
            damaged[position] ^= 0x40
            refuses(damaged) { error in
                guard case .checksumMismatch("m.whm", let stored, let computed) = error else { return XCTFail("\(error)") }
                XCTAssertNotEqual(stored, computed)
                XCTAssertEqual(stored.count, 64)
            }
        }
    }

    func testLyingCertificateIsRefusedNamingTheTensor() throws {
        let g = try Self.everyOpGraph()
        for t in g.nodes.map(\.output) {
            for (dlo, dhi): (Int64, Int64) in [(-1, 0), (1, 0), (0, 1), (0, -1)] {
                var bad = g
                bad.tensors[t].interval = iv(g.tensors[t].interval.lo + dlo, g.tensors[t].interval.hi + dhi)
                refuses(ModelContainer.encode(bad)) { error in
                    guard case .invalidGraph("m.whm", let ge) = error else { return XCTFail("\(error)") }
                    switch ge {
                    case .certificateMismatch(_, _, let tensor, let name, _, let declared, let computed):
                        XCTAssertEqual(tensor, t)
                        XCTAssertEqual(name, g.tensors[t].name)
                        XCTAssertEqual(declared, bad.tensors[t].interval)
                        XCTAssertEqual(computed, g.tensors[t].interval)
                    case .storage(_, _, let tensor, _, _, _):
                        // Widening a narrow tensor's interval past int16 is refused for storage.
                        XCTAssertEqual(tensor, t)
                    default:
                        XCTFail("\(ge)")
                    }
                    XCTAssertTrue("\(error)".contains("'\(g.tensors[t].name)'"))
                }
            }
        }
    }

    func testShapesThatDoNotFitAreRefused() throws {
        var g = try Self.everyOpGraph()
        g.tensors[1].shape = Shape(4, 4, 5)
        refuses(ModelContainer.encode(g)) {
            XCTAssertEqual($0, .invalidGraph(source: "m.whm", error: .shapeMismatch(
                node: 0, op: "conv2d", tensor: 1, name: "conv", declared: Shape(4, 4, 5), inferred: Shape(4, 4, 4))))
        }
        var tooBig = try Self.everyOpGraph()
        tooBig.tensors[0].shape = Shape(1 << 10, 1 << 10, 1 << 9)
        refuses(ModelContainer.encode(tooBig)) {
            guard case .invalidGraph(_, .tensor(0, "x", _)) = $0 else { return XCTFail("\($0)") }
        }
        var zero = try Self.everyOpGraph()
        zero.tensors[0].shape = Shape(0, 4, 4)
        refuses(ModelContainer.encode(zero)) {
            guard case .invalidField(_, 33, "tensors[0].channels", _) = $0 else { return XCTFail("\($0)") }
        }
    }

    /// Layout of a one-conv model, from docs/model-container.md §3–§6: header 28 bytes; two
    /// tensors named "x" and "y" of 4+1+12+1+16 = 34 bytes each; the node's op, input_count,
    /// input, output and five u32 parameters (33 bytes); then weight_count.
    private func oneConv() throws -> (bytes: [UInt8], weightCount: Int) {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 2, 2), storage: .narrow, interval: iv(-1, 1))
        let y = try b.conv2d(x, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [3], bias: [0]), name: "y")
        return (ModelContainer.encode(try b.build(outputs: [y])), 28 + 2 * 34 + 33)
    }

    private func patchU32(_ bytes: [UInt8], at offset: Int, _ value: UInt32) -> [UInt8] {
        var b = body(bytes)
        for k in 0..<4 { b[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
        return resealed(b)
    }

    func testAbsurdCountsAreRefusedBeforeAllocating() throws {
        let (bytes, wc) = try oneConv()
        XCTAssertEqual(Array(bytes[wc..<wc + 4]), [1, 0, 0, 0], "layout assumption")
        refuses(patchU32(bytes, at: 12, UInt32.max)) {
            XCTAssertEqual($0, .invalidField(source: "m.whm", offset: 12, field: "header.tensor_count",
                                             problem: "4294967295 outside 1…65536 (docs/model-container.md §8)"))
        }
        refuses(patchU32(bytes, at: 12, 65536)) {
            guard case .truncated(_, 28, "tensors (65536 records)", _, _) = $0 else { return XCTFail("\($0)") }
        }
        refuses(patchU32(bytes, at: 16, 65536)) {
            guard case .truncated(_, _, "nodes (65536 records)", _, _) = $0 else { return XCTFail("\($0)") }
        }
        refuses(patchU32(bytes, at: 20, 0)) { guard case .invalidField(_, 20, "header.input_count", _) = $0 else { return XCTFail("\($0)") } }
        refuses(patchU32(bytes, at: 24, 70000)) { guard case .invalidField(_, 24, "header.output_count", _) = $0 else { return XCTFail("\($0)") } }
        refuses(patchU32(bytes, at: wc, 1 << 28)) {
            XCTAssertEqual($0, .truncated(source: "m.whm", offset: wc + 4, field: "nodes[0] (conv2d).weights",
                                          needed: 1 << 29, available: 2 + 4 + 4 + 4 + 4))
        }
        refuses(patchU32(bytes, at: wc, UInt32.max)) {
            guard case .invalidField(_, wc, "nodes[0] (conv2d).weight_count", _) = $0 else { return XCTFail("\($0)") }
        }
        // tensors[0].name length
        refuses(patchU32(bytes, at: 28, 5000)) { guard case .invalidField(_, 28, "tensors[0].name length", _) = $0 else { return XCTFail("\($0)") } }
        refuses(patchU32(bytes, at: 28, 1000)) { guard case .truncated(_, 32, "tensors[0].name", _, _) = $0 else { return XCTFail("\($0)") } }
    }

    func testMalformedFieldsAreRefusedWithFieldAndOffset() throws {
        let (bytes, wc) = try oneConv()
        var b = body(bytes)
        b[28 + 4 + 1 + 12] = 8    // tensors[0].storage
        refuses(resealed(b)) {
            XCTAssertEqual($0, .invalidField(source: "m.whm", offset: 45, field: "tensors[0].storage", problem: "8, must be 16 or 32"))
            XCTAssertTrue("\($0)".contains("byte 45"))
        }
        b = body(bytes)
        b[28 + 4] = 0xFF          // the name "x" as a lone invalid UTF-8 byte
        refuses(resealed(b)) { XCTAssertEqual($0, .invalidField(source: "m.whm", offset: 32, field: "tensors[0].name", problem: "not valid UTF-8")) }
        b = body(bytes)
        b[28 + 68] = 11           // nodes[0].op
        refuses(resealed(b)) { XCTAssertEqual($0, .invalidField(source: "m.whm", offset: 96, field: "nodes[0].op", problem: "unknown op code 11, must be 1…10")) }
        b = body(bytes)
        b.insert(contentsOf: [0, 0, 0, 0], at: b.count)
        refuses(resealed(b)) { XCTAssertEqual($0, .trailingBytes(source: "m.whm", offset: bytes.count - 32, count: 4)) }
        // A node input index past the tensor table is a graph error, not a crash.
        refuses(patchU32(bytes, at: 28 + 68 + 5, 7)) {
            XCTAssertEqual($0, .invalidGraph(source: "m.whm", error: .node(index: 0, op: "conv2d", problem: "input names tensor 7; the graph has 2 tensors")))
        }
        // A parameter out of its §4 range: stride 0.
        refuses(patchU32(bytes, at: wc - 12, 0)) {
            guard case .invalidGraph(_, .node(0, "conv2d", let p)) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(p.contains("stride"))
        }
    }

    func testEncodedInvalidValuesAreRefusedNotChanged() throws {
        var g = try Self.everyOpGraph()
        if case .conv2d(var p) = g.nodes[0].op { p.pad = -1; g.nodes[0].op = .conv2d(p) }
        refuses(ModelContainer.encode(g)) { guard case .invalidGraph(_, .node(0, "conv2d", _)) = $0 else { return XCTFail("\($0)") } }
        var h = try Self.everyOpGraph()
        if case .requantize(var p) = h.nodes[1].op { p.shift.removeLast(); h.nodes[1].op = .requantize(p) }
        refuses(ModelContainer.encode(h)) { guard case .invalidGraph(_, .node(1, "requantize", _)) = $0 else { return XCTFail("\($0)") } }
        var n = try Self.everyOpGraph()
        n.tensors[0].name = String(repeating: "n", count: 1025)
        refuses(ModelContainer.encode(n)) { guard case .invalidField(_, 28, "tensors[0].name length", _) = $0 else { return XCTFail("\($0)") } }
    }

    func testOverflowableGraphIsRefused() throws {
        // Three int16 × int16 products of 2^30 cannot be summed in int32.
        let full = iv(-32768, 32767)
        let g = IntegerGraph(
            tensors: [TensorSpec(name: "x", shape: Shape(3, 1, 1), storage: .narrow, interval: full),
                      TensorSpec(name: "acc", shape: Shape(1, 1, 1), storage: .wide, interval: iv(Int64(Int32.min), Int64(Int32.max)))],
            nodes: [Node(op: .conv2d(ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0,
                                                weights: [32767, 32767, 32767], bias: [0])), inputs: [0], output: 1)],
            inputs: [0], outputs: [1])
        refuses(ModelContainer.encode(g)) {
            guard case .invalidGraph("m.whm", .intermediate(0, "conv2d", 1, "acc", _, let what, _, _)) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(what.contains("S_o"))
        }
    }

    // MARK: SHA-256 (the trailer)

    func testSHA256KnownVectors() {
        XCTAssertEqual(SHA256.hex([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
