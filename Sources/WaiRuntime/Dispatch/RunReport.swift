/// What ran a graph and why: returned with every run's outputs.
public struct RunReport: Encodable, Sendable, Equatable {
    /// The unit's kind (the reference interpreter: cpu).
    public var unit: UnitKind
    /// Exactly where it ran: that unit of that backend, or the reference interpreter; the
    /// CLI's `selector` and `unit_index` and the C API's `unit_index` (not in this JSON).
    public var ref: UnitRef
    /// The plugin's name, or "reference".
    public var backend: String { ref.backend }
    public var device: String
    public var driver: String
    /// Why this unit: "ranked_first", "forced", "dispatch_unit_inexact", … in JSON.
    public var dispatch: DispatchKind
    /// A sentence: why this unit.
    public var reason: String
    /// The unit's rank among accepted units; nil for the reference interpreter.
    public var rank: Int?
    /// Model graphs (docs/probe.md §9): each unit's qualification verdict met on the way to
    /// this run, in order; nil for runs of graphs that name no model set.
    public var qualification: [QualificationNote]?
    /// The run's spot check (docs/probe.md §7), when it had one: the CPU time its windows
    /// took on all threads, and how long the run waited for it after the unit answered
    /// (milliseconds). Nil for runs not checked.
    public var spotCheckCPUMilliseconds: Double?
    public var spotCheckWaitMilliseconds: Double?

    enum CodingKeys: String, CodingKey {
        case unit, backend, device, driver, dispatch, reason, rank, qualification
        case spotCheckCPUMilliseconds = "spot_check_cpu_ms", spotCheckWaitMilliseconds = "spot_check_wait_ms"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(unit, forKey: .unit); try c.encode(backend, forKey: .backend)
        try c.encode(device, forKey: .device); try c.encode(driver, forKey: .driver)
        try c.encode(dispatch, forKey: .dispatch); try c.encode(reason, forKey: .reason)
        try c.encodeIfPresent(rank, forKey: .rank); try c.encodeIfPresent(qualification, forKey: .qualification)
        try c.encodeIfPresent(spotCheckCPUMilliseconds, forKey: .spotCheckCPUMilliseconds)
        try c.encodeIfPresent(spotCheckWaitMilliseconds, forKey: .spotCheckWaitMilliseconds)
    }

    public init(unit: UnitKind, ref: UnitRef, device: String, driver: String, dispatch: DispatchKind,
                reason: String, rank: Int?) {
        self.unit = unit; self.ref = ref; self.device = device; self.driver = driver
        self.dispatch = dispatch; self.reason = reason; self.rank = rank
    }
}

/// Dispatch decisions, as the report spells them.
public enum DispatchKind: String, Codable, Sendable, CustomStringConvertible {
    case rankedFirst = "ranked_first"
    case forced
    case dispatchUnitInexact = "dispatch_unit_inexact"
    case noAcceptedUnit = "no_accepted_unit"
    /// The chosen unit failed while preparing or running the graph (device lost, out of
    /// memory, a graph it cannot take); it is marked failed and the graph ran elsewhere.
    case unitFailed = "dispatch_unit_failed"
    /// A spot check found the chosen unit's output wrong: its bytes were dropped, the unit
    /// is demoted to rejected (stage runtime, persisted in the probe cache) and the graph
    /// ran elsewhere; the reason carries the evidence.
    case unitDemoted = "dispatch_unit_demoted"
    /// The chosen unit is not qualified for this model set's graph (docs/probe.md §9): it
    /// computed the graph at the qualification size differently from the reference, so the
    /// graph ran elsewhere; the reason carries the evidence.
    case unitUnqualified = "dispatch_unit_unqualified"

    /// The report's spelling, also in text output.
    public var description: String { rawValue }
}
