/// Whether a unit computes a model set's graph exactly (docs/probe.md §9).
public enum QualificationState: String, Codable, Sendable {
    case qualified, unqualified
}

/// The verdict of one qualification, as cached and reported.
public struct QualificationVerdict: Codable, Sendable, Equatable {
    public var state: QualificationState
    /// The model set's id (hex) and "name version".
    public var modelSet: String
    public var modelSetLabel: String
    public var graph: String
    /// The input height × width it was qualified at ("3×5").
    public var size: String
    public var reason: String
    /// Unqualified: the first differing element (graph, op, tensor, index, expected, got).
    public var mismatch: ProbeMismatch?

    init(state: QualificationState, model: ModelGraphID, size: String, reason: String, mismatch: ProbeMismatch? = nil) {
        self.state = state; modelSet = model.modelSet; modelSetLabel = model.modelSetLabel; graph = model.graph
        self.size = size; self.reason = reason; self.mismatch = mismatch
    }

    enum CodingKeys: String, CodingKey {
        case state, modelSet = "model_set", modelSetLabel = "model_set_label", graph, size, reason, mismatch
    }
}

/// What a run report says about qualification: for each unit considered for the run, its
/// verdict for the graph and whether it came from the cache.
public struct QualificationNote: Codable, Sendable, Equatable {
    /// The unit (`cpu:0` in JSON).
    public var unit: UnitRef
    public var verdict: QualificationVerdict
    /// True when the verdict was read from the cache (this host's or the file), false when
    /// the qualification ran for this run.
    public var cached: Bool
    /// When it ran for this run: how long it took (unit and reference runs at the
    /// qualification size, concurrently), milliseconds.
    public var milliseconds: Double?
    /// Why the qualification cache could not be read or written (the verdict still holds
    /// for this run, but is not remembered); nil when it was.
    public var warning: String?

    public init(unit: UnitRef, verdict: QualificationVerdict, cached: Bool, milliseconds: Double? = nil) {
        self.unit = unit; self.verdict = verdict; self.cached = cached; self.milliseconds = milliseconds
    }

    enum CodingKeys: String, CodingKey {
        case unit, verdict, cached, milliseconds = "elapsed_ms", warning
    }
}
