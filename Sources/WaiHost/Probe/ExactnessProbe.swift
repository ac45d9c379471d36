/// The verdict of the exactness probe on one unit.
public struct ProbeOutcome: Codable, Sendable, Equatable {
    public var state: ProbeState
    public var stage: String?
    public var reason: String
    public var mismatch: ProbeMismatch?

    public init(state: ProbeState, stage: String? = nil, reason: String, mismatch: ProbeMismatch? = nil) {
        self.state = state; self.stage = stage; self.reason = reason; self.mismatch = mismatch
    }
}

/// Why the probe itself could not run (never the unit's fault).
public struct ProbeSuiteError: Error, CustomStringConvertible {
    public var stage: String
    public var graph: String
    public var underlying: String
    public var description: String { "probe suite: stage \(stage), graph \(graph): \(underlying)" }
}

/// Runs the four stages on one unit and compares every observed tensor for equality with
/// the reference interpreter (docs/probe.md). The unit is reached through `execute`, so
/// the same logic probes a plugin unit in a worker and a fake unit in a test.
public enum ExactnessProbe {
    public static func run(stages: [ProbeStage] = ProbeStage.allCases,
                           progress: (ProbeStage) -> Void = { _ in },
                           execute: (IntegerGraph, [TensorValue]) throws -> [TensorValue]) throws -> ProbeOutcome {
        for stage in stages {
            progress(stage)
            let cases: [ProbeCase]
            do { cases = try ProbeSuite.cases(stage) } catch {
                throw ProbeSuiteError(stage: stage.rawValue, graph: "(building)", underlying: "\(error)")
            }
            for c in cases {
                if let rejection = try check(c, stage: stage, execute: execute) { return rejection }
            }
        }
        return ProbeOutcome(state: .accepted,
                            reason: "exact on every stage (\(stages.map(\.rawValue).joined(separator: ", ")))")
    }

    /// One case: nil when the unit matched the reference on every observed tensor.
    static func check(_ c: ProbeCase, stage: ProbeStage,
                      execute: (IntegerGraph, [TensorValue]) throws -> [TensorValue]) throws -> ProbeOutcome? {
        if let r = try compare(c.graph, c, stage, execute) {
            // A whole decode observes only its final output, as a real decode would; on a
            // difference it runs again observing every tensor, to name the op at fault.
            if c.graph.outputs != c.everyTensorObserved.outputs,
               let located = try compare(c.everyTensorObserved, c, stage, execute) {
                return located
            }
            return r
        }
        return nil
    }

    private static func compare(_ graph: IntegerGraph, _ c: ProbeCase, _ stage: ProbeStage,
                                _ execute: (IntegerGraph, [TensorValue]) throws -> [TensorValue]) throws -> ProbeOutcome? {
        let expected: [TensorValue]
        do { expected = try ReferenceInterpreter.run(graph, inputs: c.inputs) } catch {
            throw ProbeSuiteError(stage: stage.rawValue, graph: c.name, underlying: "reference interpreter: \(error)")
        }
        let got: [TensorValue]
        do { got = try execute(graph, c.inputs) } catch {
            return ProbeOutcome(state: .rejected, stage: stage.rawValue,
                                reason: "stage \(stage.rawValue), graph \(c.name): \(error)")
        }
        guard got.count == expected.count else {
            return ProbeOutcome(state: .rejected, stage: stage.rawValue,
                                reason: "stage \(stage.rawValue), graph \(c.name): \(got.count) outputs, expected \(expected.count)")
        }
        for (k, (e, g)) in zip(expected, got).enumerated() {
            let t = graph.outputs[k]
            let spec = graph.tensors[t]
            guard g.shape == e.shape, g.values.count == e.values.count else {
                return ProbeOutcome(state: .rejected, stage: stage.rawValue,
                                    reason: "stage \(stage.rawValue), graph \(c.name): tensor \(spec.name) has shape \(g.shape), expected \(e.shape)")
            }
            guard let i = firstDifference(e.values, g.values) else { continue }
            let node = graph.nodes.firstIndex { $0.output == t } ?? -1
            let op = node >= 0 ? graph.nodes[node].op.name : "input"
            let plane = e.shape.height * e.shape.width
            let m = ProbeMismatch(stage: stage.rawValue, graph: c.name, op: op, node: node, tensor: spec.name,
                                  index: i, channel: i / plane, y: (i % plane) / e.shape.width, x: i % e.shape.width,
                                  expected: e.values[i], got: g.values[i])
            return ProbeOutcome(state: .rejected, stage: stage.rawValue, reason: m.description, mismatch: m)
        }
        return nil
    }

    static func firstDifference(_ a: [Int32], _ b: [Int32]) -> Int? {
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                for i in 0..<pa.count where pa[i] != pb[i] { return i }
                return nil
            }
        }
    }
}
