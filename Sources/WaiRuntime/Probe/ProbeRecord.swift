/// The outcome of probing a unit: `accepted` units may run graphs, `rejected` ones computed
/// something wrong (or crashed, hung, or refused a graph), `failed` ones could not be probed
/// at all (the plugin did not load, its units could not be listed, no probe worker).
public enum ProbeState: String, Codable, Sendable {
    case accepted, rejected, failed
}

/// The first element where a unit differed from the reference interpreter.
public struct ProbeMismatch: Codable, Sendable, Equatable, CustomStringConvertible {
    public var stage: VerdictStage
    public var graph: String
    /// The op that wrote the element (`input`, `output` for what no op wrote).
    public var op: MismatchSite
    public var node: Int
    public var tensor: String
    public var index: Int
    public var channel: Int
    public var y: Int
    public var x: Int
    public var expected: Int32
    public var got: Int32
    /// The op's parameters and shapes ("kernel 3×3, stride 1, pad 1; x 2×3×4103 → y 3×3×4103"),
    /// so a plugin author can rebuild the failing case.
    public var parameters: String?
    /// True when `got` is the sentinel the host pre-filled the output with: the unit never
    /// wrote this element (docs/probe.md §2).
    public var unwritten: Bool?
    /// Which run of one prepared graph differed (1 = the first), when it was run more than once.
    public var run: Int?
    /// Runtime demotions: how many spot-checked runs the unit had passed before this one.
    public var runsPassed: Int?

    public init(stage: VerdictStage, graph: String, op: MismatchSite, node: Int, tensor: String, index: Int,
                channel: Int, y: Int, x: Int, expected: Int32, got: Int32, parameters: String? = nil,
                unwritten: Bool? = nil, run: Int? = nil, runsPassed: Int? = nil) {
        self.stage = stage; self.graph = graph; self.op = op; self.node = node; self.tensor = tensor
        self.index = index; self.channel = channel; self.y = y; self.x = x
        self.expected = expected; self.got = got; self.parameters = parameters
        self.unwritten = unwritten; self.run = run; self.runsPassed = runsPassed
    }

    public var description: String {
        let value = unwritten == true ? "expected \(expected), got \(got), the host's pre-filled sentinel: unwritten (the unit never wrote this element)"
                                      : "expected \(expected), got \(got)"
        var text = "stage \(stage), graph \(graph): \(op) (node \(node)) tensor \(tensor) index \(index) (c \(channel), y \(y), x \(x)): \(value)"
        if let run { text += "; run \(run) of one prepared graph" }
        if let runsPassed { text += "; after \(runsPassed) spot-checked run\(runsPassed == 1 ? "" : "s") passed" }
        if let parameters { text += " [\(op): \(parameters)]" }
        return text
    }

    enum CodingKeys: String, CodingKey {
        case stage, graph, op, node, tensor, index, channel, y, x, expected, got, parameters, unwritten, run,
             runsPassed = "runs_passed"
    }
}

/// Which ops (and storage widths of their inputs) a unit was found exact on, and which it
/// refused as `unsupported` (docs/probe.md §2, "Per-op acceptance"). Dispatch sends a graph
/// only to a unit whose coverage holds every op of the graph.
public struct ProbeCoverage: Codable, Sendable, Equatable {
    public struct OpWidths: Codable, Sendable, Equatable {
        public var op: OpKind
        /// Storage widths (16, 32) of the op's first input on the graphs it was exact on.
        public var widths: [Int]
        public init(op: OpKind, widths: [Int]) { self.op = op; self.widths = widths }
    }

    public var exact: [OpWidths]
    public var unsupported: [OpKind]
    /// The largest tensor (elements) the unit ran without running out of memory, when it
    /// ran out on a larger probe graph; nil when it never did.
    public var maxElements: Int?

    public init(exact: [OpWidths], unsupported: [OpKind], maxElements: Int? = nil) {
        self.exact = exact; self.unsupported = unsupported; self.maxElements = maxElements
    }

    /// Why this coverage does not hold `graph` (an op it is not exact on, a tensor past its
    /// memory), or nil when the unit may run it.
    public func refusal(for graph: IntegerGraph) -> String? {
        let have = Set(exact.map(\.op))
        var missing: [OpKind] = []
        for n in graph.nodes where !have.contains(n.op.kind) && !missing.contains(n.op.kind) { missing.append(n.op.kind) }
        if !missing.isEmpty {
            return "it is not accepted for \(missing.map(\.name).joined(separator: ", "))"
                + (missing.contains(where: unsupported.contains) ? " (unsupported)" : "")
        }
        if let limit = maxElements, Self.largestTensor(graph) > limit {
            return "the graph has a tensor of \(Self.largestTensor(graph)) elements; it ran out of memory above \(limit)"
        }
        return nil
    }

    static func largestTensor(_ graph: IntegerGraph) -> Int { graph.tensors.map(\.shape.count).max() ?? 0 }

    enum CodingKeys: String, CodingKey { case exact, unsupported, maxElements = "max_elements" }
}

/// Speed on the calibration graph, measured in the probe worker after the unit passed.
public struct ProbeSpeed: Codable, Sendable, Equatable {
    public var runsPerSecond: Double
    public var medianMilliseconds: Double
    public var runs: Int
    public var graph: String

    public init(runsPerSecond: Double, medianMilliseconds: Double, runs: Int, graph: String) {
        self.runsPerSecond = runsPerSecond; self.medianMilliseconds = medianMilliseconds
        self.runs = runs; self.graph = graph
    }

    enum CodingKeys: String, CodingKey {
        case runsPerSecond = "runs_per_second", medianMilliseconds = "median_ms", runs, graph
    }
}

/// One row of `waihost probe`: a unit, or a plugin or folder that produced no units.
public struct UnitProbeRecord: Codable, Sendable, Equatable {
    /// The plugin's name; for a plugin that did not load, its file name.
    public var backend: String
    public var path: String
    public var backendVersion: String?
    /// SHA-256 of the plugin file when it was probed; the host refuses to run a unit whose
    /// file changed since.
    public var pluginSHA256: String?
    public var device: String
    /// The unit's kind; `unknown` on a failed row that has no unit.
    public var unit: ProbeRowKind
    /// The unit's index within its backend; nil on a failed row that has no unit.
    public var index: Int?
    public var driver: String
    public var state: ProbeState
    /// 1 = fastest accepted unit; accepted units only.
    public var rank: Int?
    /// Why the state: the first mismatch, the failing call, the crash, or for accepted
    /// units the stages passed.
    public var reason: String
    /// The stage that rejected the unit, or in which it crashed or hung.
    public var stage: VerdictStage?
    public var mismatch: ProbeMismatch?
    public var speed: ProbeSpeed?
    /// Which ops the unit is exact on and which it refused; nil on rows of an older host
    /// (read as every op).
    public var coverage: ProbeCoverage?
    /// Whether the probe saw the unit's concurrent runs overlap (docs/probe.md §3); the host
    /// runs graphs on a unit one at a time unless this is `verified`.
    public var concurrency: ConcurrencyCheck?
    /// Set when the rejection was a time-out: which one in a row, and whether a later probe
    /// tries the unit again (docs/probe.md §5, "Time-outs").
    public var timeout: ProbeTimeout?
    /// True when the exactness outcome and speed came from the probe cache.
    public var cached: Bool
    /// True when the unit came from a cached listing (its identity matched, docs/probe.md §5
    /// "Listing"), false when its plugin's worker listed it in this probe; nil on rows
    /// without a unit.
    public var listingCached: Bool?

    public init(backend: String, path: String, backendVersion: String? = nil, device: String,
                unit: ProbeRowKind, index: Int?, driver: String, state: ProbeState, rank: Int? = nil,
                reason: String, stage: VerdictStage? = nil, mismatch: ProbeMismatch? = nil,
                speed: ProbeSpeed? = nil, cached: Bool = false) {
        self.backend = backend; self.path = path; self.backendVersion = backendVersion
        self.device = device; self.unit = unit; self.index = index; self.driver = driver
        self.state = state; self.rank = rank; self.reason = reason; self.stage = stage
        self.mismatch = mismatch; self.speed = speed; self.cached = cached
    }

    /// This unit; nil on a row without one.
    public var ref: UnitRef? { index.map { .unit(backend: backend, index: $0) } }

    /// True when runs on this unit may overlap: the probe saw its concurrent runs overlap
    /// and stay exact. Otherwise the host gives it one run at a time.
    public var concurrentRunsVerified: Bool { concurrency?.state == .verified }

    /// "cpu:0" — how a selection names this unit; the file name on a row without one.
    public var selector: String { ref?.description ?? backend }

    enum CodingKeys: String, CodingKey {
        case backend, path, backendVersion = "backend_version", pluginSHA256 = "plugin_sha256", device, unit, index, driver, state,
             rank, reason, stage, mismatch, speed, coverage, concurrency, timeout, cached, listingCached = "listing_cached"
    }
}

/// Everything one probe found, accepted units ranked.
public struct ProbeResult: Codable, Sendable, Equatable {
    public var hostVersion: String
    public var probeSuite: String
    public var units: [UnitProbeRecord]
    /// Things worth telling that changed no verdict (a corrupt cache ignored, a cache that
    /// could not be written).
    public var warnings: [String]

    public init(hostVersion: String = WaiHostVersion.string, probeSuite: String = ProbeSuite.version,
                units: [UnitProbeRecord], warnings: [String] = []) {
        self.hostVersion = hostVersion; self.probeSuite = probeSuite; self.units = units; self.warnings = warnings
    }

    public var accepted: [UnitProbeRecord] {
        units.filter { $0.state == .accepted }.sorted { ($0.rank ?? Int.max) < ($1.rank ?? Int.max) }
    }

    enum CodingKeys: String, CodingKey {
        case hostVersion = "host_version", probeSuite = "probe_suite", units, warnings
    }
}

extension ProbeResult {
    /// This result with unit `selector` rejected by `outcome` (a runtime demotion) and the
    /// remaining accepted units ranked again in their order.
    func demoting(_ selector: String, _ outcome: ProbeOutcome) -> ProbeResult {
        var r = self
        for i in r.units.indices where r.units[i].selector == selector {
            r.units[i].state = outcome.state
            r.units[i].stage = outcome.stage
            r.units[i].reason = outcome.reason
            r.units[i].mismatch = outcome.mismatch
            r.units[i].timeout = outcome.timeout
            r.units[i].rank = nil
        }
        let order = r.units.indices.filter { r.units[$0].state == .accepted }
            .sorted { (r.units[$0].rank ?? Int.max) < (r.units[$1].rank ?? Int.max) }
        for (k, i) in order.enumerated() { r.units[i].rank = k + 1 }
        return r
    }

    /// This result with the given units (selector → reason) turned `failed`: they failed at
    /// run time in this process, so dispatch must not choose them again.
    func markingFailed(_ failures: [String: String]) -> ProbeResult {
        guard !failures.isEmpty else { return self }
        var r = self
        for i in r.units.indices {
            guard let why = failures[r.units[i].selector] else { continue }
            r.units[i].state = .failed
            r.units[i].rank = nil
            r.units[i].reason = why
        }
        return r
    }
}
