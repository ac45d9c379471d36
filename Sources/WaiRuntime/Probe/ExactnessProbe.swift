/// The verdict of the exactness probe on one unit.
public struct ProbeOutcome: Codable, Sendable, Equatable {
    public var state: ProbeState
    public var stage: VerdictStage?
    public var reason: String
    public var mismatch: ProbeMismatch?
    /// Accepted units: the ops (and widths) they are exact on, and the ops they refused.
    public var coverage: ProbeCoverage?
    /// Accepted units: whether their concurrent runs were seen to overlap (nil: the
    /// repetition stage did not run, which the host treats as unverified).
    public var concurrency: ConcurrencyCheck?
    /// Rejections: set when the unit ran past the probe's time limit (docs/probe.md §5,
    /// "Time-outs"); absent from cache files of older hosts.
    public var timeout: ProbeTimeout?

    public init(state: ProbeState, stage: VerdictStage? = nil, reason: String, mismatch: ProbeMismatch? = nil,
                coverage: ProbeCoverage? = nil, concurrency: ConcurrencyCheck? = nil, timeout: ProbeTimeout? = nil) {
        self.state = state; self.stage = stage; self.reason = reason; self.mismatch = mismatch
        self.coverage = coverage; self.concurrency = concurrency; self.timeout = timeout
    }
}

/// Why the probe itself could not run (never the unit's fault).
public struct ProbeSuiteError: Error, CustomStringConvertible {
    public var stage: VerdictStage
    public var graph: String
    public var underlying: String
    public var description: String { "probe suite: stage \(stage), graph \(graph): \(underlying)" }
}

/// Runs the stages on one unit and compares every observed tensor for equality with the
/// reference interpreter (docs/probe.md). The unit is reached through `GraphUnit`, so the
/// same logic probes a plugin unit in a worker and a fake unit in a test.
public enum ExactnessProbe {
    public static func run(stages: [ProbeStage] = ProbeStage.allCases,
                           progress: (ProbeStage) -> Void = { _ in },
                           unit: any GraphUnit) throws -> ProbeOutcome {
        try run(stages: stages, progress: progress, unit: unit, references: ProbeReferences(sessions: 1))
    }

    /// The same, sharing cases and reference outputs with the other units of a probe run.
    static func run(stages: [ProbeStage] = ProbeStage.allCases, progress: (ProbeStage) -> Void = { _ in },
                    unit: any GraphUnit, references: ProbeReferences) throws -> ProbeOutcome {
        var session = ProbeSession(unit: unit, references: references)
        for stage in stages {
            progress(stage)
            if let rejection = try session.run(stage) { return rejection }
        }
        return session.verdict(stages: stages)
    }

    /// The probe on a unit given as one closure (tests, fakes): prepare and run in one call.
    public static func run(stages: [ProbeStage] = ProbeStage.allCases,
                           progress: (ProbeStage) -> Void = { _ in },
                           execute: (IntegerGraph, [TensorValue]) throws -> [TensorValue]) throws -> ProbeOutcome {
        try withoutActuallyEscaping(execute) { body in
            // The closure outlives no call of this function; the box only carries it
            // across the threads of the concurrency check, which is what a real unit sees.
            let box = UncheckedClosure(body)
            return try run(stages: stages, progress: progress, unit: ClosureUnit { g, i in try box.call(g, i) })
        }
    }

    static func firstDifference(_ a: [Int32], _ b: [Int32]) -> Int? {
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                for i in 0..<pa.count where pa[i] != pb[i] { return i }
                return nil
            }
        }
    }

    /// The first difference between `expected` and `got` for the outputs of `graph`, as
    /// the mismatch a report shows (shape differences as a reason), or nil when equal.
    static func compare(graph: IntegerGraph, caseName: String, stage: VerdictStage, expected: [TensorValue],
                        got: [TensorValue], run: Int? = nil) -> ProbeOutcome? {
        guard got.count == expected.count else {
            return ProbeOutcome(state: .rejected, stage: stage,
                                reason: "stage \(stage), graph \(caseName): \(got.count) outputs, expected \(expected.count)")
        }
        for (k, (e, g)) in zip(expected, got).enumerated() {
            let t = graph.outputs[k]
            let spec = graph.tensors[t]
            guard g.shape == e.shape, g.values.count == e.values.count else {
                return ProbeOutcome(state: .rejected, stage: stage,
                                    reason: "stage \(stage), graph \(caseName): tensor \(spec.name) has shape \(g.shape), expected \(e.shape)")
            }
            guard let i = firstDifference(e.values, g.values) else { continue }
            let m = mismatch(graph: graph, tensor: t, caseName: caseName, stage: stage, index: i,
                             expected: e.values[i], got: g.values[i], run: run)
            return ProbeOutcome(state: .rejected, stage: stage, reason: m.description, mismatch: m)
        }
        return nil
    }

    /// A mismatch at flat index `index` of tensor `t`, naming the op that wrote it, its
    /// parameters, and whether the element was left as the host's pre-filled sentinel.
    static func mismatch(graph: IntegerGraph, tensor t: Int, caseName: String, stage: VerdictStage, index i: Int,
                         expected: Int32, got: Int32, run: Int? = nil) -> ProbeMismatch {
        let spec = graph.tensors[t]
        let shape = spec.shape
        let node = graph.nodes.firstIndex { $0.output == t } ?? -1
        let op = MismatchSite(tensor: t, in: graph)
        let plane = shape.height * shape.width
        let unwritten = got == OutputSentinel.value(outside: spec.interval) && !spec.interval.contains(Int64(got))
        return ProbeMismatch(stage: stage, graph: caseName, op: op, node: node, tensor: spec.name,
                             index: i, channel: i / plane, y: (i % plane) / shape.width, x: i % shape.width,
                             expected: expected, got: got,
                             parameters: node >= 0 ? OpDescription.text(graph, node: node) : nil,
                             unwritten: unwritten ? true : nil, run: run)
    }
}

/// A non-escaping closure carried where a Sendable one is needed; see `ExactnessProbe.run(execute:)`.
private final class UncheckedClosure: @unchecked Sendable {
    let call: (IntegerGraph, [TensorValue]) throws -> [TensorValue]
    init(_ call: @escaping (IntegerGraph, [TensorValue]) throws -> [TensorValue]) { self.call = call }
}

/// The value the host pre-fills every output buffer with before a unit runs: outside the
/// output's certified interval, so an element the unit never wrote cannot equal the
/// reference by luck, and a mismatch on it can be called "unwritten".
public enum OutputSentinel {
    /// Far from the interval where possible (0x5A5A5A5A, then INT32_MIN), so that a unit
    /// off by one at the interval's edge is not mistaken for one that wrote nothing.
    public static func value(outside interval: Interval) -> Int32 {
        let pattern = Int32(bitPattern: 0x5A5A_5A5A)
        if !interval.contains(Int64(pattern)) { return pattern }
        if !interval.contains(Int64(Int32.min)) { return Int32.min }
        if interval.hi < Int64(Int32.max) { return Int32(interval.hi + 1) }
        return pattern
    }
}

/// An op's parameters and shapes in one line, for mismatch reports.
enum OpDescription {
    static func text(_ graph: IntegerGraph, node k: Int) -> String {
        let n = graph.nodes[k]
        let shapes = n.inputs.map { "\(graph.tensors[$0].shape) \(graph.tensors[$0].storage.rawValue)-bit" }
            .joined(separator: ", ")
        let out = graph.tensors[n.output]
        let io = "in \(shapes) → out \(out.shape) \(out.storage.rawValue)-bit"
        switch n.op {
        case .conv2d(let p), .convTranspose2d(let p):
            var s = "kernel \(p.kernelH)×\(p.kernelW), stride \(p.stride), pad \(p.pad)"
            if case .convTranspose2d = n.op { s += ", output_pad \(p.outputPad)" }
            return s + "; " + io
        case .requantize(let p):
            let ms = Set(p.multiplier).count == 1 ? "\(p.multiplier[0])" : "per channel \(p.multiplier.prefix(4))…"
            let ss = Set(p.shift).count == 1 ? "\(p.shift[0])" : "per channel \(p.shift.prefix(4))…"
            return "multiplier \(ms), shift \(ss), clamp [\(p.lo), \(p.hi)]; " + io
        case .clamp(let lo, let hi):
            return "clamp [\(lo), \(hi)]; " + io
        case .depthToSpace(let r):
            return "block \(r); " + io
        case .lookup(let p):
            return "table of \(p.table.count), offset \(p.offset); " + io
        case .inverseGDN(let p):
            return "square_shift \(p.squareShift), out_shift \(p.outShift), \(p.beta.count) channels; " + io
        case .warp(let p):
            return "scales \(p.scales), frac_bits \(p.fracBits); " + io
        case .add, .concat:
            return io
        }
    }
}
