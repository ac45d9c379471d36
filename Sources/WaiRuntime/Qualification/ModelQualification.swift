import Dispatch

/// Model qualification (docs/probe.md §9): before a model set's graph first runs on a
/// plugin unit, the unit and the reference interpreter run that graph at a small size with
/// the model's real channel counts and partial tiles everywhere (QualificationSize), on
/// fixed-seed inputs spanning the input contract, and every output element is compared for
/// equality. The probe's graphs exercise ops at chosen channel counts; a kernel selected
/// only for the model's own (a path tuned for C_out = 48) is seen here first.
enum ModelQualification {
    /// Part of every cache key: a change to the size rule, the inputs or the comparison
    /// qualifies again.
    static let version = "1"
    static let stage = VerdictStage.qualification

    /// The inputs: uniform in each input's declared interval, both ends present.
    static func inputs(_ graph: IntegerGraph) -> [TensorValue] {
        var rng = SplitMix64(seed: 0x9A11_F1ED)
        return graph.inputs.map { t in
            let spec = graph.tensors[t]
            return TensorValue(shape: spec.shape, values: ProbeGraphs.values(&rng, count: spec.shape.count, in: spec.interval))
        }
    }

    /// Runs `graph` at the qualification size on the unit (`run`: prepare and run, as the
    /// decode would, observing only the graph's outputs) and on the reference. On a
    /// difference it runs again observing every tensor, to name the op at fault. Errors of
    /// `run` are the unit's and are rethrown as `UnitFailure`.
    static func qualify(_ graph: IntegerGraph, model: ModelGraphID,
                        run: (IntegerGraph, [TensorValue]) throws -> [TensorValue]) throws -> QualificationVerdict {
        let sized = QualificationSize.instantiate(graph)
        let size = QualificationSize.text(sized)
        var observed = sized
        observed.outputs = sized.nodes.map(\.output)
        for t in sized.outputs where !observed.outputs.contains(t) { observed.outputs.append(t) }
        let inputs = inputs(sized)
        // One reference run observing every tensor serves both comparisons; it runs on a
        // thread of its own while the unit (another process) runs the graph.
        let reference = Background { try ReferenceInterpreter.run(observed, inputs: inputs) }
        let unit = Result { try unitRun { try run(sized, inputs) } }
        let all = try reference.value()
        let got = try unit.get()
        let expected = sized.outputs.map { t in all[observed.outputs.lastIndex(of: t) ?? 0] }
        let name = "\(model.graph) at \(size)"
        guard let first = ExactnessProbe.compare(graph: sized, caseName: name, stage: stage, expected: expected, got: got)
        else {
            return QualificationVerdict(state: .qualified, model: model, size: size,
                                        reason: "equal to the reference on every output element of \(name)")
        }
        let located = ExactnessProbe.compare(graph: observed, caseName: name, stage: stage, expected: all,
                                             got: try unitRun { try run(observed, inputs) })
        let outcome = located?.mismatch != nil ? located ?? first : first
        return QualificationVerdict(state: .unqualified, model: model, size: size, reason: outcome.reason,
                                    mismatch: outcome.mismatch)
    }

    /// A failure of the unit's prepare or run, kept apart from the reference's.
    struct UnitFailure: Error, CustomStringConvertible {
        var underlying: any Error
        var description: String { "\(underlying)" }
    }

    private static func unitRun(_ body: () throws -> [TensorValue]) throws -> [TensorValue] {
        do { return try body() } catch { throw UnitFailure(underlying: error) }
    }
}

/// A computation started on a global queue at once, waited for with `value()`.
private final class Background<T>: @unchecked Sendable {
    private let group = DispatchGroup()
    private var result: Result<T, any Error>?

    init(_ body: @escaping () throws -> T) {
        DispatchQueue.global().async(group: group) { [self] in result = Result { try body() } }
    }

    func value() throws -> T {
        group.wait()   // orders the write of `result` before this read
        guard let result else { throw BackgroundMissing() }
        return try result.get()
    }

    private struct BackgroundMissing: Error {}
}
