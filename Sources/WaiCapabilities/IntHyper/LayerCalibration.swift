/// One convolution layer of a generated model, and how its requantize gains are set from
/// data: the layer's accumulators are computed on calibration data by the reference
/// interpreter, and each output channel gets the bias and multiplier that bring it to its
/// target. Multipliers are bounded by the accumulator's certified interval, so the
/// certificate always passes (docs/integer-ops.md §5, requantize rule).
struct ModelLayer {
    var transposed: Bool
    var kernel: Int
    var stride: Int
    var pad: Int
    var outputPad: Int
    var cin: Int
    var cout: Int
    var weights: [Int16]
    var bias: [Int32]
    var requantize: RequantizeParams?
    var gdn: InverseGDNParams?

    init(transposed: Bool, kernel: Int, stride: Int, pad: Int, cin: Int, cout: Int) {
        self.transposed = transposed; self.kernel = kernel; self.stride = stride; self.pad = pad
        self.outputPad = transposed && stride > 1 ? stride - 1 : 0
        self.cin = cin; self.cout = cout
        weights = Array(repeating: 0, count: cin * cout * kernel * kernel)
        bias = Array(repeating: 0, count: cout)
    }

    /// Index of the weight from input channel c to output channel o at tap (u, v).
    func index(_ o: Int, _ c: Int, _ u: Int, _ v: Int) -> Int {
        transposed ? ((c * cout + o) * kernel + u) * kernel + v : ((o * cin + c) * kernel + u) * kernel + v
    }

    var conv: ConvParams {
        ConvParams(kernelH: kernel, kernelW: kernel, stride: stride, pad: pad, outputPad: outputPad,
                   weights: weights, bias: bias)
    }

    func add(to b: inout GraphBuilder, _ x: Int, name: String) throws -> Int {
        let acc = transposed ? try b.convTranspose2d(x, conv, name: name + "_conv") : try b.conv2d(x, conv, name: name + "_conv")
        guard let rq = requantize else { return acc }
        let narrow = try b.requantize(acc, rq, name: name + "_requantize")
        guard let g = gdn else { return narrow }
        return try b.inverseGDN(narrow, g, name: name + "_inverse_gdn")
    }
}

/// How one output channel's requantize is chosen.
enum ChannelGain {
    /// Exactly this multiplier and shift (the carrier channels, whose gains are exact).
    case fixed(multiplier: Int32, shift: Int32)
    /// Bias subtracts the measured mean; the gain brings the standard deviation to `rms`.
    case target(rms: Double)
    /// Output `base + (acc − mean) · spread / std`: a scale index around `base`.
    case scaleIndex(base: Double, spread: Double)
}

struct GeneratorError: Error, CustomStringConvertible {
    var message: String
    var description: String { "model generator: \(message)" }
}

enum LayerCalibration {
    /// Accumulator budget per channel before the bias: leaves room for the bias and for
    /// the multiplier in the requantize that follows.
    static let accumulatorBudget = Double(1 << 29)

    static func storage(_ iv: Interval) -> Storage { Storage.narrow.range.contains(iv) ? .narrow : .wide }

    /// Calibrates `layer` on `input` (whose contract is `interval`); returns the finished
    /// layer, its output on the calibration data and the output's certified interval.
    static func calibrate(_ layer: ModelLayer, gains: [ChannelGain], lo: Int32, hi: Int32, gdn: InverseGDNParams?,
                          input: TensorValue, interval: Interval) throws -> (ModelLayer, TensorValue, Interval) {
        var l = layer
        let bound = Double(max(-interval.lo, interval.hi))
        // Shrink the weights of any calibrated channel whose worst case exceeds the budget.
        for o in 0..<l.cout {
            if case .fixed = gains[o] { continue }
            var sum = 0.0
            for c in 0..<l.cin { for u in 0..<l.kernel { for v in 0..<l.kernel { sum += Double(abs(Int(l.weights[l.index(o, c, u, v)]))) } } }
            let worst = sum * bound
            guard worst > accumulatorBudget else { continue }
            let f = accumulatorBudget / worst
            for c in 0..<l.cin {
                for u in 0..<l.kernel {
                    for v in 0..<l.kernel {
                        let i = l.index(o, c, u, v)
                        l.weights[i] = Int16((Double(l.weights[i]) * f).rounded(.towardZero))
                    }
                }
            }
        }

        // Accumulators on the calibration data, and their statistics per channel.
        let acc = try run(l, stopAtAccumulator: true, input: input, interval: interval)
        let plane = acc.0.shape.height * acc.0.shape.width
        var gain = [Double](repeating: 0, count: l.cout)
        for o in 0..<l.cout {
            var sum = 0.0, sq = 0.0
            for k in 0..<plane { let v = Double(acc.0.values[o * plane + k]); sum += v; sq += v * v }
            let mean = sum / Double(plane)
            let std = max(1, max(0, sq / Double(plane) - mean * mean).squareRoot())
            var b = Double(l.bias[o])
            switch gains[o] {
            case .fixed: break
            case .target(let rms):
                b -= mean
                gain[o] = rms / std
            case let .scaleIndex(base, spread):
                gain[o] = spread / std
                b += -mean + base / gain[o]
            }
            let rounded = b.rounded()
            guard abs(rounded) < Double(1 << 30) else {
                throw GeneratorError(message: "bias of channel \(o) would be \(rounded); the layer's accumulators are too large")
            }
            l.bias[o] = Int32(rounded)
        }

        // Multipliers as precise as the certified accumulator interval allows.
        let accInterval = try run(l, stopAtAccumulator: true, input: nil, interval: interval).1
        let accBound = max(-accInterval.lo, accInterval.hi, 1)
        var m = [Int32](repeating: 1, count: l.cout), s = [Int32](repeating: 0, count: l.cout)
        for o in 0..<l.cout {
            switch gains[o] {
            case let .fixed(multiplier, shift): (m[o], s[o]) = (multiplier, shift)
            default: (m[o], s[o]) = multiplierAndShift(gain: gain[o], accumulatorBound: accBound)
            }
        }
        l.requantize = RequantizeParams(multiplier: m, shift: s, lo: lo, hi: hi)
        l.gdn = gdn
        let (out, outInterval) = try run(l, stopAtAccumulator: false, input: input, interval: interval)
        return (l, out, outInterval)
    }

    /// The largest shift (most precise multiplier) with |x·m| + 2^(s−1) inside int32 for
    /// every accumulator x up to `accumulatorBound`.
    static func multiplierAndShift(gain: Double, accumulatorBound: Int64) -> (Int32, Int32) {
        let limit = Int64(Int32.max)
        for s in stride(from: 31, through: 0, by: -1) {
            let exact = (gain * Double(Int64(1) << s)).rounded()
            guard exact < Double(limit) else { continue }
            let m = max(1, Int64(exact))
            let half: Int64 = s > 0 ? 1 << (s - 1) : 0
            if m <= limit / accumulatorBound, m * accumulatorBound + half <= limit { return (Int32(m), Int32(s)) }
        }
        return (1, 0)
    }

    /// Runs the layer (to its accumulator, or whole) on `input` with the reference
    /// interpreter; with no input only the certified output interval is computed.
    static func run(_ l: ModelLayer, stopAtAccumulator: Bool, input: TensorValue?, interval: Interval) throws
        -> (TensorValue, Interval) {
        var b = GraphBuilder()
        // Without data any size gives the same interval (integer-ops.md §5); the kernel's own
        // size is one every layer accepts (a 4×4 unpadded one needs 4×4).
        let shape = input?.shape ?? Shape(l.cin, l.kernel, l.kernel)
        let x = b.input("x", shape, storage: storage(interval), interval: interval)
        var layer = l
        if stopAtAccumulator { layer.requantize = nil }
        let out = try layer.add(to: &b, x, name: "layer")
        let g = try b.build(outputs: [out])
        let iv = g.tensors[out].interval
        guard let input else { return (TensorValue(zeros: g.tensors[out].shape), iv) }
        return (try ReferenceInterpreter.run(g, inputs: [input])[0], iv)
    }
}
