// Writes the seed corpus for ModelFuzz: small valid .whm models covering every op, both
// storage widths, several inputs and outputs, and intervals at the limits the verifier
// checks. Usage: corpus-generator DIRECTORY. Built and run by scripts/fuzz.sh.

// The library layers, built by scripts/fuzz-lib.sh with -enable-testing.
@testable import WaiSupport
@testable import WaiCrypto
@testable import WaiOps
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

#if canImport(Glibc)
import Glibc
#endif

@main
struct CorpusGenerator {
    static func main() {
        do {
            try generate()
        } catch {
            fputs("corpus-generator: \(error)\n", stderr)
            exit(1)
        }
    }

    static func generate() throws {
        guard CommandLine.arguments.count == 2 else {
            fputs("usage: corpus-generator DIRECTORY\n", stderr)
            exit(2)
        }
        let dir = CommandLine.arguments[1]
        var count = 0
        for (name, graph) in try models() {
            let bytes = ModelContainer.encode(graph)
            _ = try ModelContainer.decode(bytes, source: name)   // every seed is a valid model
            let path = "\(dir)/\(name).whm"
            guard let f = fopen(path, "wb") else { throw GeneratorError(path: path) }
            let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
            fclose(f)
            guard written == bytes.count else { throw GeneratorError(path: path) }
            count += 1
        }
        print("wrote \(count) seed models to \(dir)")
    }

    struct GeneratorError: Error, CustomStringConvertible {
        var path: String
        var description: String { "cannot write \(path)" }
    }

    static func iv(_ lo: Int64, _ hi: Int64) -> Interval { Interval(lo: lo, hi: hi) }

    static func ramp16(_ n: Int, _ mod: Int, _ shift: Int) -> [Int16] { (0..<n).map { Int16($0 % mod - shift) } }
    static func ramp32(_ n: Int, _ mod: Int, _ shift: Int) -> [Int32] { (0..<n).map { Int32($0 % mod - shift) } }

    static func models() throws -> [(String, IntegerGraph)] {
        var out: [(String, IntegerGraph)] = []
        let int32Full = iv(Int64(Int32.min), Int64(Int32.max))

        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(2, 5, 5), storage: .narrow, interval: iv(-128, 127))
            let y = try b.conv2d(x, ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, weights: ramp16(3 * 2 * 9, 11, 5), bias: [1, 2, 3]))
            out.append(("conv2d", try b.build(outputs: [y])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(2, 3, 4), storage: .narrow, interval: iv(-32768, 32767))
            let y = try b.convTranspose2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1,
                                                        weights: ramp16(2 * 2 * 25, 9, 4), bias: [0, -7]))
            out.append(("conv_transpose2d", try b.build(outputs: [y])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(3, 2, 2), storage: .wide, interval: iv(Int64(Int32.min), 0))
            let y = try b.requantize(x, RequantizeParams(multiplier: [1, 1, 1], shift: [31, 30, 0], lo: -5, hi: 5))
            out.append(("requantize", try b.build(outputs: [y])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("a", Shape(1, 2, 3), storage: .wide, interval: iv(-(1 << 30), (1 << 30) - 1))
            let z = b.input("b", Shape(1, 2, 3), storage: .wide, interval: iv(-(1 << 30), 1 << 30))
            let s = try b.add(x, z)
            let c = try b.clamp(s, lo: 0, hi: 255)
            out.append(("add_clamp", try b.build(outputs: [s, c])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(8, 2, 2), storage: .narrow, interval: iv(-3, 3))
            let d = try b.depthToSpace(x, block: 2)
            let e = b.input("e", Shape(1, 4, 4), storage: .wide, interval: iv(100, 200))
            let c = try b.concat([d, e, d])
            out.append(("depth_to_space_concat", try b.build(outputs: [c])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(1, 3, 3), storage: .wide, interval: int32Full)
            let l = try b.lookup(x, LookupParams(table: ramp32(300, 17, 8), offset: 0))
            out.append(("lookup", try b.build(outputs: [l])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(3, 2, 2), storage: .wide, interval: iv(-46340, 46340))
            let g = try b.inverseGDN(x, InverseGDNParams(beta: [0, 1, 2], gamma: [0, 0, 0, 0, 0, 0, 0, 0, 0], squareShift: 0, outShift: 16))
            out.append(("inverse_gdn_edge", try b.build(outputs: [g])))
        }
        do {
            var b = GraphBuilder()
            let x = b.input("x", Shape(2, 3, 3), storage: .narrow, interval: iv(-100, 100))
            let g = try b.inverseGDN(x, InverseGDNParams(beta: [5, 9], gamma: [1, 2, 3, 4], squareShift: 3, outShift: 2))
            out.append(("inverse_gdn", try b.build(outputs: [g])))
        }
        do {
            // A tiny synthesis: convT → requantize → inverse GDN → convT → requantize → d2s.
            var b = GraphBuilder()
            let x = b.input("latent", Shape(4, 2, 2), storage: .narrow, interval: iv(-127, 127))
            var h = try b.convTranspose2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1,
                                                        weights: ramp16(4 * 4 * 25, 13, 6), bias: ramp32(4, 5, 2)))
            h = try b.requantize(h, RequantizeParams(multiplier: [3, 3, 3, 3], shift: [6, 6, 6, 6], lo: -127, hi: 127))
            h = try b.inverseGDN(h, InverseGDNParams(beta: [64, 64, 64, 64], gamma: ramp32(16, 4, 0), squareShift: 4, outShift: 3))
            h = try b.convTranspose2d(h, ConvParams(kernelH: 3, kernelW: 3, stride: 2, pad: 1, outputPad: 1,
                                                    weights: ramp16(4 * 4 * 9, 7, 3), bias: [0, 0, 0, 0]))
            h = try b.requantize(h, RequantizeParams(multiplier: [1, 1, 1, 1], shift: [8, 8, 8, 8], lo: -255, hi: 255))
            let y = try b.depthToSpace(h, block: 2)
            out.append(("synthesis", try b.build(outputs: [y, h])))
        }
        do {
            // Accumulator right at the int32 edge: 2 taps of 32767·(−32768) plus bias.
            var b = GraphBuilder()
            let x = b.input("x", Shape(2, 1, 1), storage: .narrow, interval: iv(-32768, 32767))
            let y = try b.conv2d(x, ConvParams(kernelH: 1, kernelW: 1, stride: 1, pad: 0, weights: [32767, 32767],
                                               bias: [Int32.max - 2 * 32767 * 32767]))
            out.append(("conv_edge", try b.build(outputs: [y])))
        }
        return out
    }
}
