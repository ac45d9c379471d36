/// The outcome of probing a unit: `accepted` units may run graphs, `rejected` ones computed
/// something wrong (or crashed, hung, or refused a graph), `failed` ones could not be probed
/// at all (the plugin did not load, its units could not be listed, no probe worker).
public enum ProbeState: String, Codable, Sendable {
    case accepted, rejected, failed
}

/// The first element where a unit differed from the reference interpreter.
public struct ProbeMismatch: Codable, Sendable, Equatable, CustomStringConvertible {
    public var stage: String
    public var graph: String
    public var op: String
    public var node: Int
    public var tensor: String
    public var index: Int
    public var channel: Int
    public var y: Int
    public var x: Int
    public var expected: Int32
    public var got: Int32

    public init(stage: String, graph: String, op: String, node: Int, tensor: String, index: Int,
                channel: Int, y: Int, x: Int, expected: Int32, got: Int32) {
        self.stage = stage; self.graph = graph; self.op = op; self.node = node; self.tensor = tensor
        self.index = index; self.channel = channel; self.y = y; self.x = x
        self.expected = expected; self.got = got
    }

    public var description: String {
        "stage \(stage), graph \(graph): \(op) (node \(node)) tensor \(tensor) index \(index) (c \(channel), y \(y), x \(x)): expected \(expected), got \(got)"
    }
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
    /// "cpu" | "gpu" | "other"; "unknown" on a failed row that has no unit.
    public var unit: String
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
    public var stage: String?
    public var mismatch: ProbeMismatch?
    public var speed: ProbeSpeed?
    /// True when the exactness outcome and speed came from the probe cache.
    public var cached: Bool

    public init(backend: String, path: String, backendVersion: String? = nil, device: String,
                unit: String, index: Int?, driver: String, state: ProbeState, rank: Int? = nil,
                reason: String, stage: String? = nil, mismatch: ProbeMismatch? = nil,
                speed: ProbeSpeed? = nil, cached: Bool = false) {
        self.backend = backend; self.path = path; self.backendVersion = backendVersion
        self.device = device; self.unit = unit; self.index = index; self.driver = driver
        self.state = state; self.rank = rank; self.reason = reason; self.stage = stage
        self.mismatch = mismatch; self.speed = speed; self.cached = cached
    }

    /// "cpu:0" — how a selection names this unit.
    public var selector: String { index.map { "\(backend):\($0)" } ?? backend }

    enum CodingKeys: String, CodingKey {
        case backend, path, backendVersion = "backend_version", pluginSHA256 = "plugin_sha256", device, unit, index, driver, state,
             rank, reason, stage, mismatch, speed, cached
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
