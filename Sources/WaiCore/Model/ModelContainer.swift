// The .whm model container: docs/model-container.md is its specification; section numbers
// below refer to it. decode parses with bounds-checked reads, then refuses any graph that
// does not pass CertificateVerifier.verify.

#if canImport(Glibc)
import Glibc
#endif

public enum ModelContainer {   // the .whm file, docs/model-container.md
    /// §3
    static let magic: [UInt8] = [0x89, 0x57, 0x48, 0x4D, 0x0D, 0x0A, 0x1A, 0x0A]
    static let version: UInt16 = 1
    static let headerSize = 28
    static let trailerSize = 32
    /// §8
    package static let maxContainerSize = 1 << 30
    static let maxTensors = 65536
    static let maxNodes = 65536
    static let maxGraphInputs = 65536
    static let maxNodeInputs = 65536
    static let maxNameLength = 1024
    static let maxArray = 1 << 28
    static let maxTable = 65536

    /// Parses AND verifies (§9).
    public static func decode(_ bytes: [UInt8], source: String) throws -> IntegerGraph {
        let graph = try parse(bytes, source: source)
        do {
            try CertificateVerifier.verify(graph)
        } catch let error as GraphError {
            throw ModelContainerError.invalidGraph(source: source, error: error)
        }
        return graph
    }

    /// §9 steps 1–7: the graph as written, not yet validated or verified.
    package static func parse(_ bytes: [UInt8], source: String) throws -> IntegerGraph {
        guard bytes.count <= maxContainerSize else {
            throw ModelContainerError.tooLarge(source: source, size: bytes.count, limit: maxContainerSize)
        }
        // Magic first, even on a short file, so that "not a model" is not reported as "truncated".
        let prefix = min(bytes.count, magic.count)
        guard bytes[0..<prefix].elementsEqual(magic[0..<prefix]) else { throw ModelContainerError.badMagic(source: source) }
        guard bytes.count >= headerSize + trailerSize else {
            throw ModelContainerError.truncated(source: source, offset: 0, field: "header and trailer",
                                                needed: headerSize + trailerSize, available: bytes.count)
        }
        let bodyEnd = bytes.count - trailerSize
        var r = ByteReader(bytes, source: source, start: magic.count, end: bodyEnd)
        let version = try r.u16("header.version")
        guard version == Self.version else {
            throw ModelContainerError.unsupportedVersion(source: source, version: version, supported: Self.version)
        }
        let flags = try r.u16("header.flags")
        guard flags == 0 else { throw r.invalid("header.flags", at: 10, "\(flags), must be 0 (reserved)") }

        // §7: integrity before interpretation, so corruption is reported as such.
        let stored = Array(bytes[bodyEnd...])
        let computed = SHA256.digest(bytes[0..<bodyEnd])
        guard stored == computed else {
            throw ModelContainerError.checksumMismatch(source: source, stored: Hex.encode(stored),
                                                       computed: Hex.encode(computed))
        }

        let tensorCount = try r.count("header.tensor_count", 1...maxTensors)
        let nodeCount = try r.count("header.node_count", 0...maxNodes)
        let inputCount = try r.count("header.input_count", 1...maxGraphInputs)
        let outputCount = try r.count("header.output_count", 1...maxGraphInputs)

        var tensors: [TensorSpec] = []
        for i in 0..<tensorCount {
            // The smallest record is 33 bytes: refuse a count the file cannot hold before looping.
            if i == 0, r.remaining < tensorCount * 33 {
                throw ModelContainerError.truncated(source: source, offset: r.offset, field: "tensors (\(tensorCount) records)",
                                                    needed: tensorCount * 33, available: r.remaining)
            }
            tensors.append(try readTensor(&r, i))
        }
        var nodes: [Node] = []
        for k in 0..<nodeCount {
            // The smallest record (add, concat of one) is 13 bytes.
            if k == 0, r.remaining < nodeCount * 13 {
                throw ModelContainerError.truncated(source: source, offset: r.offset, field: "nodes (\(nodeCount) records)",
                                                    needed: nodeCount * 13, available: r.remaining)
            }
            nodes.append(try readNode(&r, k))
        }
        let inputs = try r.u32Array(inputCount, "inputs")           // §6
        let outputs = try r.u32Array(outputCount, "outputs")
        guard r.remaining == 0 else {
            throw ModelContainerError.trailingBytes(source: source, offset: r.offset, count: r.remaining)
        }

        return IntegerGraph(tensors: tensors, nodes: nodes, inputs: inputs, outputs: outputs)
    }

    /// §4
    private static func readTensor(_ r: inout ByteReader, _ i: Int) throws -> TensorSpec {
        let f = "tensors[\(i)]"
        let name = try r.string("\(f).name", maxLength: maxNameLength)
        let c = try r.count("\(f).channels", 1...maxArray)
        let h = try r.count("\(f).height", 1...maxArray)
        let w = try r.count("\(f).width", 1...maxArray)
        let at = r.offset
        let storage: Storage
        switch try r.u8("\(f).storage") {
        case 16: storage = .narrow
        case 32: storage = .wide
        case let other: throw r.invalid("\(f).storage", at: at, "\(other), must be 16 or 32")
        }
        let lo = try r.i64("\(f).lo")
        let hi = try r.i64("\(f).hi")
        return TensorSpec(name: name, shape: Shape(c, h, w), storage: storage, interval: Interval(lo: lo, hi: hi))
    }

    /// §5
    private static func readNode(_ r: inout ByteReader, _ k: Int) throws -> Node {
        var f = "nodes[\(k)]"
        let at = r.offset
        let code = try r.u8("\(f).op")
        guard let kind = OpKind(rawValue: UInt32(code)) else {
            throw r.invalid("\(f).op", at: at, "unknown op code \(code), must be \(OpKind.codeRange)")
        }
        f += " (\(kind.name))"
        let inputCount = try r.count("\(f).input_count", 1...maxNodeInputs)
        let inputs = try r.u32Array(inputCount, "\(f).inputs")
        let output = Int(try r.u32("\(f).output"))
        let op: Op
        switch kind {
        case .conv2d, .convTranspose2d:
            let kh = Int(try r.u32("\(f).kernel_h")), kw = Int(try r.u32("\(f).kernel_w"))
            let stride = Int(try r.u32("\(f).stride")), pad = Int(try r.u32("\(f).pad"))
            let outputPad = Int(try r.u32("\(f).output_pad"))
            let weights = try r.i16Array(try r.count("\(f).weight_count", 0...maxArray), "\(f).weights")
            let bias = try r.i32Array(try r.count("\(f).bias_count", 0...maxArray), "\(f).bias")
            let p = ConvParams(kernelH: kh, kernelW: kw, stride: stride, pad: pad, outputPad: outputPad,
                               weights: weights, bias: bias)
            op = kind == .conv2d ? .conv2d(p) : .convTranspose2d(p)
        case .requantize:
            let n = try r.count("\(f).channel_count", 0...maxArray)
            let m = try r.i32Array(n, "\(f).multiplier")
            let s = try r.i32Array(n, "\(f).shift")
            op = .requantize(RequantizeParams(multiplier: m, shift: s, lo: try r.i32("\(f).lo"), hi: try r.i32("\(f).hi")))
        case .add:
            op = .add
        case .clamp:
            op = .clamp(lo: try r.i32("\(f).lo"), hi: try r.i32("\(f).hi"))
        case .depthToSpace:
            op = .depthToSpace(block: Int(try r.u32("\(f).block")))
        case .concat:
            op = .concat
        case .lookup:
            let offset = try r.i32("\(f).offset")
            let table = try r.i32Array(try r.count("\(f).table_length", 1...maxTable), "\(f).table")
            op = .lookup(LookupParams(table: table, offset: offset))
        case .inverseGDN:
            let q = try r.i32("\(f).square_shift"), s = try r.i32("\(f).out_shift")
            let beta = try r.i32Array(try r.count("\(f).beta_count", 0...maxArray), "\(f).beta")
            let gamma = try r.i32Array(try r.count("\(f).gamma_count", 0...maxArray), "\(f).gamma")
            op = .inverseGDN(InverseGDNParams(beta: beta, gamma: gamma, squareShift: q, outShift: s))
        case .warp:
            let scales = Int(try r.u32("\(f).scales")), fracBits = Int(try r.u32("\(f).frac_bits"))
            op = .warp(WarpParams(scales: scales, fracBits: fracBits))
        }
        return Node(op: op, inputs: inputs, output: output)
    }

    /// The container's op codes are the `wai_op` values.
    private static func opCode(_ op: Op) -> UInt8 { UInt8(op.kind.rawValue) }

    /// Writes any graph; one that would not verify encodes to a container decode refuses.
    public static func encode(_ graph: IntegerGraph) -> [UInt8] {
        var w = ByteWriter()
        w.raw(magic)
        w.u16(version)
        w.u16(0)
        w.count(graph.tensors.count)
        w.count(graph.nodes.count)
        w.count(graph.inputs.count)
        w.count(graph.outputs.count)
        for t in graph.tensors {
            w.string(t.name)
            w.count(t.shape.channels); w.count(t.shape.height); w.count(t.shape.width)
            w.u8(t.storage.rawValue)
            w.i64(t.interval.lo); w.i64(t.interval.hi)
        }
        for n in graph.nodes {
            w.u8(opCode(n.op))
            w.count(n.inputs.count)
            for t in n.inputs { w.count(t) }
            w.count(n.output)
            switch n.op {
            case .conv2d(let p), .convTranspose2d(let p):
                w.count(p.kernelH); w.count(p.kernelW); w.count(p.stride); w.count(p.pad); w.count(p.outputPad)
                w.count(p.weights.count); for v in p.weights { w.i16(v) }
                w.count(p.bias.count); for v in p.bias { w.i32(v) }
            case .requantize(let p):
                // Both arrays share one count; unequal lengths cannot verify, so write the
                // longer count and pad the shorter with an out-of-range value.
                let n = max(p.multiplier.count, p.shift.count)
                w.count(n)
                for i in 0..<n { w.i32(i < p.multiplier.count ? p.multiplier[i] : 0) }
                for i in 0..<n { w.i32(i < p.shift.count ? p.shift[i] : -1) }
                w.i32(p.lo); w.i32(p.hi)
            case .add, .concat:
                break
            case .clamp(let lo, let hi):
                w.i32(lo); w.i32(hi)
            case .depthToSpace(let block):
                w.count(block)
            case .lookup(let p):
                w.i32(p.offset)
                w.count(p.table.count); for v in p.table { w.i32(v) }
            case .inverseGDN(let p):
                w.i32(p.squareShift); w.i32(p.outShift)
                w.count(p.beta.count); for v in p.beta { w.i32(v) }
                w.count(p.gamma.count); for v in p.gamma { w.i32(v) }
            case .warp(let p):
                w.count(p.scales); w.count(p.fracBits)
            }
        }
        for t in graph.inputs { w.count(t) }
        for t in graph.outputs { w.count(t) }
        var bytes = w.bytes
        bytes.append(contentsOf: SHA256.digest(bytes))
        return bytes
    }

    public static func load(path: String) throws -> IntegerGraph {
        try decode(try readFile(path), source: path)
    }

    /// The whole file, refusing one over the container limit before reading it.
    static func readFile(_ path: String) throws -> [UInt8] {
        func failure() -> ModelContainerError { .unreadable(path: path, reason: String(cString: strerror(errno))) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure() }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw failure() }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ModelContainerError.unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(st.st_size)
        guard size <= maxContainerSize else {
            throw ModelContainerError.tooLarge(source: path, size: size, limit: maxContainerSize)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(fd, base + done, size - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure()
            }
            if n == 0 { break }
            done += n
        }
        // A file that shrank while being read is treated as what was read.
        return done == size ? bytes : Array(bytes[0..<done])
    }
}
