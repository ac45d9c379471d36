import WaiOps
import BackendABI

/// One node descriptor: its op's parameters (copied), ranges and shapes, per
/// docs/integer-ops.md §4 and the member table of docs/backend-abi.md §6.
struct NodeReader {
    let desc: wai_node_desc
    let index: Int
    let tensors: [TensorSpec]

    private var opName: String { OpKind(rawValue: desc.op)?.name ?? "op \(desc.op)" }

    private func fail(_ problem: String) -> BackendFailure {
        .invalid("graph_prepare: node \(index) (\(opName)): \(problem)")
    }

    /// Copies `count` elements of a parameter array the op names.
    private func array<T>(_ pointer: UnsafePointer<T>?, _ count: Int, _ what: String) throws -> [T] {
        guard let pointer else { throw fail("\(what) is NULL") }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    func read() throws -> NodeSpec {
        guard OpKind(rawValue: desc.op) != nil else {
            throw BackendFailure.unsupported("graph_prepare: node \(index) has op code \(desc.op), which this backend does not know (the ops it knows are \(OpKind.codeRange))")
        }
        let arity = Int(desc.n_inputs)
        guard arity >= 1, arity <= 1 << 16 else { throw fail("has \(arity) inputs; 1…65536 expected") }
        guard let inputPointer = desc.inputs else { throw fail("inputs is NULL") }
        let inputs: [Int] = try (0..<arity).map { k in
            let t = Int(inputPointer[k])
            guard t < tensors.count else { throw fail("input \(k) names tensor \(t); the graph has \(tensors.count) tensors") }
            return t
        }
        let output = Int(desc.output)
        guard output < tensors.count else { throw fail("output names tensor \(output); the graph has \(tensors.count) tensors") }
        let y = tensors[output]
        func expectArity(_ n: Int) throws {
            guard arity == n else { throw fail("takes \(n) input\(n == 1 ? "" : "s"), has \(arity)") }
        }
        func expectShape(_ c: Int, _ h: Int, _ w: Int, _ section: String) throws {
            guard y.channels == c, y.height == h, y.width == w else {
                throw fail("output tensor \(output) is \(y.shapeText), the op computes \(c)×\(h)×\(w) (docs/integer-ops.md \(section))")
            }
        }

        let op: OpSpec
        switch desc.op {
        case WAI_OP_CONV2D.rawValue, WAI_OP_CONV_TRANSPOSE2D.rawValue:
            try expectArity(1)
            let x = tensors[inputs[0]]
            let transposed = desc.op == WAI_OP_CONV_TRANSPOSE2D.rawValue
            let section = transposed ? "§4.2" : "§4.1"
            let kh = Int(desc.kernel_h), kw = Int(desc.kernel_w), s = Int(desc.stride)
            let pad = Int(desc.pad), opad = Int(desc.output_pad)
            guard (1...15).contains(kh), (1...15).contains(kw) else { throw fail("kernel \(kh)×\(kw) outside 1…15 (docs/integer-ops.md §4.1)") }
            guard (1...8).contains(s) else { throw fail("stride \(s) outside 1…8 (docs/integer-ops.md §4.1)") }
            guard pad < min(kh, kw) else { throw fail("pad \(pad) outside 0…\(min(kh, kw) - 1) (docs/integer-ops.md §4.1)") }
            let ho: Int, wo: Int
            if transposed {
                guard opad < s else { throw fail("output_pad \(opad) outside 0…\(s - 1) (docs/integer-ops.md §4.2)") }
                ho = (x.height - 1) * s - 2 * pad + kh + opad
                wo = (x.width - 1) * s - 2 * pad + kw + opad
            } else {
                guard opad == 0 else { throw fail("output_pad \(opad) must be 0 (docs/integer-ops.md §4.1)") }
                guard x.height + 2 * pad >= kh, x.width + 2 * pad >= kw else {
                    throw fail("kernel \(kh)×\(kw) larger than the padded input \(x.height + 2 * pad)×\(x.width + 2 * pad) (docs/integer-ops.md §4.1)")
                }
                ho = (x.height + 2 * pad - kh) / s + 1
                wo = (x.width + 2 * pad - kw) / s + 1
            }
            try expectShape(y.channels, ho, wo, section)
            let (weightCount, overflow) = (y.channels * x.channels).multipliedReportingOverflow(by: kh * kw)
            guard !overflow, weightCount <= Int(Int32.max) else {
                throw BackendFailure.unsupported("graph_prepare: node \(index) (\(opName)): \(y.channels)·\(x.channels)·\(kh)·\(kw) weights exceed what this backend packs")
            }
            op = .conv(ConvSpec(transposed: transposed, kernelH: kh, kernelW: kw, stride: s, pad: pad, outputPad: opad,
                                weights: try array(desc.weights, weightCount, "weights"),
                                bias: try array(desc.bias, y.channels, "bias")))

        case WAI_OP_REQUANTIZE.rawValue:
            try expectArity(1)
            let x = tensors[inputs[0]]
            try expectShape(x.channels, x.height, x.width, "§4.3")
            let m = try array(desc.multiplier, x.channels, "multiplier")
            let s = try array(desc.shift, x.channels, "shift")
            if let k = m.firstIndex(where: { $0 < 1 }) { throw fail("multiplier[\(k)] = \(m[k]) outside 1…2^31−1 (docs/integer-ops.md §4.3)") }
            if let k = s.firstIndex(where: { !(0...31).contains($0) }) { throw fail("shift[\(k)] = \(s[k]) outside 0…31 (docs/integer-ops.md §4.3)") }
            guard desc.clamp_lo <= desc.clamp_hi else { throw fail("clamp_lo \(desc.clamp_lo) > clamp_hi \(desc.clamp_hi)") }
            op = .requantize(RequantizeSpec(multiplier: m, shift: s, lo: desc.clamp_lo, hi: desc.clamp_hi))

        case WAI_OP_ADD.rawValue:
            try expectArity(2)
            let a = tensors[inputs[0]], b = tensors[inputs[1]]
            guard a.channels == b.channels, a.height == b.height, a.width == b.width else {
                throw fail("input shapes differ: \(a.shapeText) and \(b.shapeText) (docs/integer-ops.md §4.4)")
            }
            try expectShape(a.channels, a.height, a.width, "§4.4")
            op = .add

        case WAI_OP_CLAMP.rawValue:
            try expectArity(1)
            let x = tensors[inputs[0]]
            try expectShape(x.channels, x.height, x.width, "§4.5")
            guard desc.clamp_lo <= desc.clamp_hi else { throw fail("clamp_lo \(desc.clamp_lo) > clamp_hi \(desc.clamp_hi) (docs/integer-ops.md §4.5)") }
            op = .clamp(lo: desc.clamp_lo, hi: desc.clamp_hi)

        case WAI_OP_DEPTH_TO_SPACE.rawValue:
            try expectArity(1)
            let x = tensors[inputs[0]]
            let r = Int(desc.block)
            guard r >= 2, r <= x.channels, x.channels % (r * r) == 0 else {
                throw fail("block \(r) invalid for \(x.channels) channels: needs r ≥ 2 and r² dividing C (docs/integer-ops.md §4.6)")
            }
            try expectShape(x.channels / (r * r), x.height * r, x.width * r, "§4.6")
            op = .depthToSpace(block: r)

        case WAI_OP_CONCAT.rawValue:
            var channels = 0
            for (k, t) in inputs.enumerated() {
                let x = tensors[t]
                guard x.height == y.height, x.width == y.width else {
                    throw fail("input \(k) is \(x.height)×\(x.width), the output \(y.height)×\(y.width): H and W must match (docs/integer-ops.md §4.7)")
                }
                channels += x.channels
                guard channels <= DescriptorReader.maxElements else { throw fail("output channels exceed 2^28") }
            }
            try expectShape(channels, y.height, y.width, "§4.7")
            op = .concat

        case WAI_OP_LOOKUP.rawValue:
            try expectArity(1)
            let x = tensors[inputs[0]]
            try expectShape(x.channels, x.height, x.width, "§4.8")
            let len = Int(desc.table_len)
            guard (1...65536).contains(len) else { throw fail("table_len \(len) outside 1…65536 (docs/integer-ops.md §4.8)") }
            op = .lookup(table: try array(desc.table, len, "table"), offset: desc.table_offset)

        case WAI_OP_WARP.rawValue:
            try expectArity(2)
            let v = tensors[inputs[0]], f = tensors[inputs[1]]
            let s = Int(desc.block), bits = Int(desc.out_shift)
            guard (1...64).contains(s) else { throw fail("scales (block) \(s) outside 1…64 (docs/integer-ops.md §4.10)") }
            guard (0...10).contains(bits) else { throw fail("frac_bits (out_shift) \(bits) outside 0…10 (docs/integer-ops.md §4.10)") }
            guard v.channels % s == 0 else { throw fail("volume has \(v.channels) channels, not a multiple of \(s) scales (docs/integer-ops.md §4.10)") }
            guard f.channels == 3, f.height == v.height, f.width == v.width else {
                throw fail("flow is \(f.shapeText), 3×\(v.height)×\(v.width) expected (docs/integer-ops.md §4.10)")
            }
            try expectShape(v.channels / s, v.height, v.width, "§4.10")
            op = .warp(WarpSpec(scales: s, fracBits: bits))

        default: // WAI_OP_INVERSE_GDN
            try expectArity(1)
            let x = tensors[inputs[0]]
            try expectShape(x.channels, x.height, x.width, "§4.9")
            let c = x.channels
            let (cc, overflow) = c.multipliedReportingOverflow(by: c)
            guard !overflow, cc <= Int(Int32.max) else {
                throw BackendFailure.unsupported("graph_prepare: node \(index) (inverse_gdn): \(c)² gamma entries exceed what this backend packs")
            }
            let beta = try array(desc.beta, c, "beta")
            let gamma = try array(desc.gamma, cc, "gamma")
            if let k = beta.firstIndex(where: { $0 < 0 }) { throw fail("beta[\(k)] = \(beta[k]) is negative (docs/integer-ops.md §4.9)") }
            if let k = gamma.firstIndex(where: { $0 < 0 }) { throw fail("gamma[\(k / c)][\(k % c)] = \(gamma[k]) is negative (docs/integer-ops.md §4.9)") }
            guard desc.square_shift <= 30 else { throw fail("square_shift \(desc.square_shift) outside 0…30 (docs/integer-ops.md §4.9)") }
            guard desc.out_shift <= 31 else { throw fail("out_shift \(desc.out_shift) outside 0…31 (docs/integer-ops.md §4.9)") }
            // The kernel squares in int32, which the certificate guarantees (§5).
            guard max(abs(Int(x.lo)), abs(Int(x.hi))) <= 46340 else {
                throw fail("input interval [\(x.lo), \(x.hi)] exceeds ±46340, so x·x leaves int32 (docs/integer-ops.md §5)")
            }
            op = .inverseGDN(InverseGDNSpec(beta: beta, gamma: gamma, squareShift: Int(desc.square_shift), outShift: Int(desc.out_shift)))
        }
        return NodeSpec(op: op, inputs: inputs, output: output)
    }
}
