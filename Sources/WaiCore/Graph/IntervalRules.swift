// The interval rules of docs/integer-ops.md §5, one op at a time. Operands are intervals
// that already lie in int32 (inputs are checked against their storage first, and every rule
// below yields an int32 interval), so a product of two operands fits Int64; sums of many
// terms stop as soon as they leave int32, before Int64 could overflow.

enum IntervalRules {
    /// Context for the errors of one node.
    struct Site {
        var node: Int
        var op: String
        var tensor: Int
        var name: String

        func overflow(_ intermediate: String, _ bound: Interval, allowed: Interval = IntegerMath.int32Range) -> GraphError {
            .intermediate(node: node, op: op, tensor: tensor, name: name, rule: op,
                          intermediate: intermediate, bound: bound, allowed: allowed)
        }

        func requireInt32(_ intermediate: String, _ bound: Interval) throws {
            guard IntegerMath.int32Range.contains(bound) else { throw overflow(intermediate, bound) }
        }
    }

    /// The interval of the node's output, given its inputs' intervals. The node must have
    /// passed `GraphStructure.inferShape` (arity, parameter ranges, array lengths).
    static func interval(of op: Op, inputs: [Interval], inputShape: Shape, site: Site) throws -> Interval {
        let inputChannels = inputShape.channels
        switch op {
        case .conv2d(let p):
            return try convInterval(p, transposed: false, x: inputs[0], cin: inputChannels, site: site)
        case .convTranspose2d(let p):
            return try convInterval(p, transposed: true, x: inputs[0], cin: inputChannels, site: site)

        case .requantize(let p):
            let (a, b) = (inputs[0].lo, inputs[0].hi)
            var result: Interval?
            for c in 0..<p.multiplier.count {
                let m = Int64(p.multiplier[c]), s = Int64(p.shift[c])
                let bias = IntegerMath.roundingBias(s)
                try site.requireInt32("x·m (channel \(c))", Interval(lo: a * m, hi: b * m))
                try site.requireInt32("x·m + 2^(s−1) (channel \(c))", Interval(lo: a * m + bias, hi: b * m + bias))
                let lo = IntegerMath.clamp(IntegerMath.rnd(a * m, s), Int64(p.lo), Int64(p.hi))
                let hi = IntegerMath.clamp(IntegerMath.rnd(b * m, s), Int64(p.lo), Int64(p.hi))
                let channel = Interval(lo: lo, hi: hi)
                result = result.map { $0.hull(channel) } ?? channel
            }
            // inferShape guarantees at least one channel.
            return result ?? Interval(lo: 0, hi: 0)

        case .add:
            let sum = Interval(lo: inputs[0].lo + inputs[1].lo, hi: inputs[0].hi + inputs[1].hi)
            try site.requireInt32("a + b", sum)
            return sum

        case .clamp(let lo, let hi):
            return Interval(lo: IntegerMath.clamp(inputs[0].lo, Int64(lo), Int64(hi)),
                            hi: IntegerMath.clamp(inputs[0].hi, Int64(lo), Int64(hi)))

        case .depthToSpace:
            return inputs[0]

        case .concat:
            return inputs.dropFirst().reduce(inputs[0]) { $0.hull($1) }

        case .lookup(let p):
            let offset = Int64(p.offset)
            let diff = Interval(lo: inputs[0].lo - offset, hi: inputs[0].hi - offset)
            try site.requireInt32("x − offset", diff)
            let last = Int64(p.table.count - 1)
            let first = Int(IntegerMath.clamp(diff.lo, 0, last))
            let end = Int(IntegerMath.clamp(diff.hi, 0, last))
            var lo = Int64(p.table[first]), hi = lo
            for k in first...end {
                lo = min(lo, Int64(p.table[k]))
                hi = max(hi, Int64(p.table[k]))
            }
            return Interval(lo: lo, hi: hi)

        case .inverseGDN(let p):
            return try inverseGDNInterval(p, x: inputs[0], site: site)

        case .warp(let p):
            return try warpInterval(p, volume: inputs[0], flow: inputs[1], extent: inputShape, site: site)
        }
    }

    /// §5 warp: the coordinates j·E + dx, i·E + dy and every partial sum of acc (weights ≥ 0
    /// summing to E³, so inside [E³·min(a, 0), E³·max(b, 0)]) plus the rounding bias in
    /// int32; the output interval is the volume's.
    private static func warpInterval(_ p: WarpParams, volume v: Interval, flow f: Interval, extent: Shape, site: Site) throws -> Interval {
        let e = Int64(1) << Int64(p.fracBits)
        let reach = Int64(max(extent.height, extent.width) - 1) * e
        try site.requireInt32("j·2^F + dx and i·2^F + dy (the sample coordinates)", Interval(lo: f.lo, hi: reach + max(f.hi, 0)))
        let e3 = e * e * e
        let bias = IntegerMath.roundingBias(Int64(3 * p.fracBits))
        try site.requireInt32("the partial sums of acc = Σ weight·v, weights summing to 2^(3F)",
                              Interval(lo: e3 * min(v.lo, 0), hi: e3 * max(v.hi, 0)))
        try site.requireInt32("acc + 2^(3F−1)", Interval(lo: e3 * min(v.lo, 0), hi: e3 * max(v.hi, 0) + bias))
        return v
    }

    /// §5 conv2d / conv_transpose2d: every weight of output channel o contributes
    /// [min(w·a, w·b, 0), max(w·a, w·b, 0)]; S_o and b[o] + S_o must lie in int32.
    private static func convInterval(_ p: ConvParams, transposed: Bool, x: Interval, cin: Int, site: Site) throws -> Interval {
        let cout = p.bias.count
        let taps = p.kernelH * p.kernelW
        let (a, b) = (x.lo, x.hi)
        var result: Interval?
        try p.weights.withUnsafeBufferPointer { w in
            for o in 0..<cout {
                var sLo: Int64 = 0, sHi: Int64 = 0
                for c in 0..<cin {
                    // conv2d: w[o][c][u][v]; transposed: w[c][o][u][v].
                    let base = transposed ? (c * cout + o) * taps : (o * cin + c) * taps
                    for t in 0..<taps {
                        let wv = Int64(w[base + t])
                        let p1 = wv * a, p2 = wv * b
                        sLo += min(p1, p2, 0)
                        sHi += max(p1, p2, 0)
                    }
                    // Every term contains 0, so the partial sums only grow outward: once
                    // outside int32, S_o is too. Checking per input channel keeps Int64 far
                    // from overflow (at most 225 terms of |w·x| ≤ 2^46 between checks).
                    if sLo < Int64(Int32.min) || sHi > Int64(Int32.max) {
                        throw site.overflow("S_o, the sum of the weight terms of output channel \(o) "
                            + "(already after input channels 0…\(c))", Interval(lo: sLo, hi: sHi))
                    }
                }
                let bias = Int64(p.bias[o])
                let channel = Interval(lo: bias + sLo, hi: bias + sHi)
                try site.requireInt32("b[o] + S_o (output channel \(o))", channel)
                result = result.map { $0.hull(channel) } ?? channel
            }
        }
        return result ?? Interval(lo: 0, hi: 0)
    }

    /// §5 inverse_gdn.
    private static func inverseGDNInterval(_ p: InverseGDNParams, x: Interval, site: Site) throws -> Interval {
        let (a, b) = (x.lo, x.hi)
        let limit = Interval(lo: -46340, hi: 46340)
        guard limit.contains(x) else { throw site.overflow("x (so that x·x fits int32)", x, allowed: limit) }
        let q = Int64(p.squareShift), s = Int64(p.outShift)
        let sqHi = IntegerMath.floorShift(max(a * a, b * b), q)
        let sqLo = (a <= 0 && 0 <= b) ? 0 : IntegerMath.floorShift(min(a * a, b * b), q)
        let c = p.beta.count
        let bias = IntegerMath.roundingBias(s)
        var result: Interval?
        for ch in 0..<c {
            var nLo = Int64(p.beta[ch]), nHi = nLo
            for k in 0..<c {
                let g = Int64(p.gamma[ch * c + k])
                nLo += g * sqLo
                nHi += g * sqHi
                // All terms are ≥ 0: the sum only grows, so stop once it leaves int32.
                if nHi > Int64(Int32.max) {
                    throw site.overflow("n = beta + Σ gamma·sq (output channel \(ch), already after k = 0…\(k))",
                                        Interval(lo: nLo, hi: nHi))
                }
            }
            let rLo = IntegerMath.isqrt(nLo), rHi = IntegerMath.isqrt(nHi)
            let corners = [a * rLo, a * rHi, b * rLo, b * rHi]
            let cornerRange = Interval(lo: corners.min() ?? 0, hi: corners.max() ?? 0)
            try site.requireInt32("x·isqrt(n) (output channel \(ch))", cornerRange)
            try site.requireInt32("x·isqrt(n) + 2^(s−1) (output channel \(ch))",
                                  Interval(lo: cornerRange.lo + bias, hi: cornerRange.hi + bias))
            let channel = Interval(lo: IntegerMath.rnd(cornerRange.lo, s), hi: IntegerMath.rnd(cornerRange.hi, s))
            result = result.map { $0.hull(channel) } ?? channel
        }
        return result ?? Interval(lo: 0, hi: 0)
    }
}
