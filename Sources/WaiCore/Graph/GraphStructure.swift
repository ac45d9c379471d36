// Structural validation and shape inference (docs/integer-ops.md §1, §4). Every index,
// count and parameter is checked here, before anything allocates or loops on it, so the
// certificate verifier and the reference interpreter can rely on a well-formed graph.

package enum GraphStructure {
    /// §1: C·H·W ≤ 2^28.
    package static let maxElements = 1 << 28

    /// C·H·W when every dimension is ≥ 1 and the product is at most 2^28; nil otherwise.
    static func elementCount(_ c: Int, _ h: Int, _ w: Int) -> Int? {
        guard c >= 1, h >= 1, w >= 1, c <= maxElements, h <= maxElements, w <= maxElements else { return nil }
        let ch = c * h
        guard ch <= maxElements else { return nil }
        let chw = ch * w
        return chw <= maxElements ? chw : nil
    }

    /// a·b·… without overflow, or nil.
    static func checkedProduct(_ factors: Int...) -> Int? {
        var p = 1
        for f in factors {
            guard f >= 0 else { return nil }
            let (r, o) = p.multipliedReportingOverflow(by: f)
            if o { return nil }
            p = r
        }
        return p
    }

    static func checkTensor(_ t: TensorSpec, index: Int) throws {
        let s = t.shape
        guard elementCount(s.channels, s.height, s.width) != nil else {
            throw GraphError.tensor(index: index, name: t.name,
                                    problem: "shape \(s) is invalid: C, H, W must be ≥ 1 and C·H·W ≤ 2^28 (docs/integer-ops.md §1)")
        }
        guard t.interval.lo <= t.interval.hi else {
            throw GraphError.tensor(index: index, name: t.name,
                                    problem: "interval \(t.interval) is empty (lo > hi)")
        }
    }

    /// The output shape of `op` applied to inputs of `shapes`, after checking every
    /// parameter range and array length of §4. `node` only labels errors.
    static func inferShape(_ op: Op, inputs shapes: [Shape], node: Int) throws -> Shape {
        func fail(_ problem: String) -> GraphError { .node(index: node, op: op.name, problem: problem) }
        func arity(_ n: Int) throws {
            guard shapes.count == n else { throw fail("takes \(n) input\(n == 1 ? "" : "s"), has \(shapes.count)") }
        }
        func output(_ c: Int, _ h: Int, _ w: Int) throws -> Shape {
            guard elementCount(c, h, w) != nil else {
                throw fail("output shape \(c)×\(h)×\(w) is invalid: C, H, W must be ≥ 1 and C·H·W ≤ 2^28")
            }
            return Shape(c, h, w)
        }

        // The op table says how many inputs (concat, any number ≥ 1, checks its own below).
        if let n = op.kind.inputCount { try arity(n) }
        switch op {
        case .conv2d(let p), .convTranspose2d(let p):
            let x = shapes[0]
            let transposed: Bool
            if case .convTranspose2d = op { transposed = true } else { transposed = false }
            guard (1...15).contains(p.kernelH), (1...15).contains(p.kernelW) else {
                throw fail("kernel \(p.kernelH)×\(p.kernelW) outside 1…15 (§4.1)")
            }
            guard (1...8).contains(p.stride) else { throw fail("stride \(p.stride) outside 1…8 (§4.1)") }
            guard p.pad >= 0, p.pad < min(p.kernelH, p.kernelW) else {
                throw fail("pad \(p.pad) outside 0…min(kh, kw)−1 = 0…\(min(p.kernelH, p.kernelW) - 1) (§4.1)")
            }
            if transposed {
                guard p.outputPad >= 0, p.outputPad < p.stride else {
                    throw fail("output_pad \(p.outputPad) outside 0…stride−1 = 0…\(p.stride - 1) (§4.2)")
                }
            } else {
                guard p.outputPad == 0 else { throw fail("output_pad \(p.outputPad) must be 0 for conv2d (§4.1)") }
            }
            let cout = p.bias.count
            guard cout >= 1 else { throw fail("bias is empty: Cout = bias length must be ≥ 1 (§4.1)") }
            guard cout <= maxElements else { throw fail("Cout = \(cout) exceeds 2^28") }
            guard let expected = checkedProduct(cout, x.channels, p.kernelH, p.kernelW),
                  p.weights.count == expected else {
                throw fail("weights have \(p.weights.count) elements, Cout·Cin·kh·kw = "
                    + "\(cout)·\(x.channels)·\(p.kernelH)·\(p.kernelW) expected")
            }
            if transposed {
                let ho = (x.height - 1) * p.stride - 2 * p.pad + p.kernelH + p.outputPad
                let wo = (x.width - 1) * p.stride - 2 * p.pad + p.kernelW + p.outputPad
                guard ho >= 1, wo >= 1 else { throw fail("output size \(ho)×\(wo) is not positive (§4.2)") }
                return try output(cout, ho, wo)
            }
            guard x.height + 2 * p.pad >= p.kernelH, x.width + 2 * p.pad >= p.kernelW else {
                throw fail("kernel \(p.kernelH)×\(p.kernelW) larger than padded input "
                    + "\(x.height + 2 * p.pad)×\(x.width + 2 * p.pad) (§4.1)")
            }
            // Floor division of a non-negative numerator.
            let ho = (x.height + 2 * p.pad - p.kernelH) / p.stride + 1
            let wo = (x.width + 2 * p.pad - p.kernelW) / p.stride + 1
            return try output(cout, ho, wo)

        case .requantize(let p):
            let c = shapes[0].channels
            guard p.multiplier.count == c, p.shift.count == c else {
                throw fail("multiplier has \(p.multiplier.count) and shift \(p.shift.count) elements; \(c) channels expected (§4.3)")
            }
            if let k = p.multiplier.firstIndex(where: { $0 < 1 }) {
                throw fail("multiplier[\(k)] = \(p.multiplier[k]) outside 1…2^31−1 (§4.3)")
            }
            if let k = p.shift.firstIndex(where: { !(0...31).contains($0) }) {
                throw fail("shift[\(k)] = \(p.shift[k]) outside 0…31 (§4.3)")
            }
            guard p.lo <= p.hi else { throw fail("lo \(p.lo) > hi \(p.hi) (§4.3)") }
            return shapes[0]

        case .add:
            guard shapes[0] == shapes[1] else { throw fail("input shapes differ: \(shapes[0]) and \(shapes[1]) (§4.4)") }
            return shapes[0]

        case .clamp(let lo, let hi):
            guard lo <= hi else { throw fail("clamp_lo \(lo) > clamp_hi \(hi) (§4.5)") }
            return shapes[0]

        case .depthToSpace(let r):
            let x = shapes[0]
            // r ≤ C keeps r·r from overflowing; r² ≤ C is needed anyway.
            guard r >= 2, r <= x.channels, x.channels % (r * r) == 0 else {
                throw fail("block \(r) invalid for \(x.channels) channels: needs r ≥ 2 and r² dividing C (§4.6)")
            }
            guard let h = checkedProduct(x.height, r), let w = checkedProduct(x.width, r) else {
                throw fail("output size overflows")
            }
            return try output(x.channels / (r * r), h, w)

        case .concat:
            guard let first = shapes.first else { throw fail("takes one or more inputs, has 0 (§4.7)") }
            var channels = 0
            for (k, s) in shapes.enumerated() {
                guard s.height == first.height, s.width == first.width else {
                    throw fail("input \(k) is \(s.height)×\(s.width), input 0 is \(first.height)×\(first.width): H and W must match (§4.7)")
                }
                channels += s.channels
                guard channels <= maxElements else { throw fail("output channels exceed 2^28") }
            }
            return try output(channels, first.height, first.width)

        case .lookup(let p):
            guard (1...65536).contains(p.table.count) else {
                throw fail("table length \(p.table.count) outside 1…65536 (§4.8)")
            }
            return shapes[0]

        case .inverseGDN(let p):
            let c = shapes[0].channels
            guard p.beta.count == c else { throw fail("beta has \(p.beta.count) elements, \(c) expected (§4.9)") }
            guard let cc = checkedProduct(c, c), p.gamma.count == cc else {
                throw fail("gamma has \(p.gamma.count) elements, C·C = \(c)·\(c) expected (§4.9)")
            }
            if let k = p.beta.firstIndex(where: { $0 < 0 }) { throw fail("beta[\(k)] = \(p.beta[k]) is negative (§4.9)") }
            if let k = p.gamma.firstIndex(where: { $0 < 0 }) {
                throw fail("gamma[\(k / c)][\(k % c)] = \(p.gamma[k]) is negative (§4.9)")
            }
            guard (0...30).contains(p.squareShift) else { throw fail("square_shift \(p.squareShift) outside 0…30 (§4.9)") }
            guard (0...31).contains(p.outShift) else { throw fail("out_shift \(p.outShift) outside 0…31 (§4.9)") }
            return shapes[0]

        case .warp(let p):
            let (v, f) = (shapes[0], shapes[1])
            guard (1...64).contains(p.scales) else { throw fail("scales \(p.scales) outside 1…64 (§4.10)") }
            guard (0...10).contains(p.fracBits) else { throw fail("frac_bits \(p.fracBits) outside 0…10 (§4.10)") }
            guard v.channels % p.scales == 0 else {
                throw fail("volume has \(v.channels) channels, not a multiple of \(p.scales) scales (§4.10)")
            }
            guard f.channels == 3, f.height == v.height, f.width == v.width else {
                throw fail("flow is \(f), 3×\(v.height)×\(v.width) expected (dx, dy, ds at the volume's size, §4.10)")
            }
            return try output(v.channels / p.scales, v.height, v.width)
        }
    }

    /// §1 and §4 for a whole graph: tensors, lists, topological order, single writer,
    /// parameters and shapes. Throws the first problem found.
    package static func validate(_ graph: IntegerGraph) throws {
        let n = graph.tensors.count
        guard n >= 1 else { throw GraphError.graph(problem: "has no tensors") }
        for (i, t) in graph.tensors.enumerated() { try checkTensor(t, index: i) }
        guard !graph.inputs.isEmpty else { throw GraphError.graph(problem: "has no inputs (§1)") }
        guard !graph.outputs.isEmpty else { throw GraphError.graph(problem: "has no outputs (§1)") }

        // written[i]: tensor i already has a value at this point of the node order.
        var written = [Bool](repeating: false, count: n)
        for (k, t) in graph.inputs.enumerated() {
            guard t >= 0, t < n else { throw GraphError.graph(problem: "input \(k) names tensor \(t); the graph has \(n) tensors") }
            guard !written[t] else {
                throw GraphError.graph(problem: "tensor \(t) '\(graph.tensors[t].name)' is listed as an input twice")
            }
            written[t] = true
        }
        for (k, node) in graph.nodes.enumerated() {
            let name = node.op.name
            var shapes: [Shape] = []
            shapes.reserveCapacity(node.inputs.count)
            for t in node.inputs {
                guard t >= 0, t < n else {
                    throw GraphError.node(index: k, op: name, problem: "input names tensor \(t); the graph has \(n) tensors")
                }
                guard written[t] else {
                    throw GraphError.node(index: k, op: name,
                                          problem: "reads tensor \(t) '\(graph.tensors[t].name)' before any node writes it (§1: topological order)")
                }
                shapes.append(graph.tensors[t].shape)
            }
            let out = node.output
            guard out >= 0, out < n else {
                throw GraphError.node(index: k, op: name, problem: "output names tensor \(out); the graph has \(n) tensors")
            }
            guard !written[out] else {
                let what = graph.inputs.contains(out) ? "is a graph input" : "is already written by an earlier node"
                throw GraphError.node(index: k, op: name,
                                      problem: "writes tensor \(out) '\(graph.tensors[out].name)', which \(what) (§1: single writer)")
            }
            let inferred = try inferShape(node.op, inputs: shapes, node: k)
            let declared = graph.tensors[out].shape
            guard inferred == declared else {
                throw GraphError.shapeMismatch(node: k, op: name, tensor: out, name: graph.tensors[out].name,
                                               declared: declared, inferred: inferred)
            }
            written[out] = true
        }
        if let t = written.firstIndex(of: false) {
            throw GraphError.tensor(index: t, name: graph.tensors[t].name,
                                    problem: "is neither a graph input nor written by any node (§1)")
        }
        for (k, t) in graph.outputs.enumerated() where t < 0 || t >= n {
            throw GraphError.graph(problem: "output \(k) names tensor \(t); the graph has \(n) tensors")
        }
    }
}
