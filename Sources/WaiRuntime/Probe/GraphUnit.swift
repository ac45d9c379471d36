/// A unit as the probe, the timing and dispatch reach it: a graph is prepared once and run
/// many times. Implementations: the unit worker client (every real plugin unit — plugin
/// code never runs in the host process), an in-process plugin (`InProcessUnit`, the worker
/// side and tests), and fakes in tests. The probe and the spot checks see only this.
public protocol GraphUnit: Sendable {
    /// Prepares `graph` (weights uploaded, kernels built). Several graphs may be prepared
    /// and run concurrently on separate threads (docs/backend-abi.md §8).
    func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun
}

/// One prepared graph. Runs are serialised per prepared graph by the implementation.
public protocol PreparedGraphRun: AnyObject, Sendable {
    func run(_ inputs: [TensorValue]) throws -> [TensorValue]
    /// The same run, with when the plugin was inside it: what the probe's concurrent rounds
    /// compare (docs/probe.md §1 `repetition`).
    func timedRun(_ inputs: [TensorValue]) throws -> TimedRun
    /// False once the graph is gone with what held it (a unit worker that died): prepare again.
    var isUsable: Bool { get }
}

extension PreparedGraphRun {
    /// A graph in this process lives as long as its object.
    public var isUsable: Bool { true }

    /// In this process the host's own stamps around the call bracket the plugin's run.
    public func timedRun(_ inputs: [TensorValue]) throws -> TimedRun {
        let start = monotonicNanoseconds()
        let outputs = try run(inputs)
        return TimedRun(outputs: outputs, interval: RunInterval(start: start, end: monotonicNanoseconds()))
    }
}

extension PreparedGraph: PreparedGraphRun {}

/// A unit of a plugin loaded into this process.
public struct InProcessUnit: GraphUnit {
    public let plugin: BackendPlugin
    public let unit: Int

    public init(plugin: BackendPlugin, unit: Int) {
        self.plugin = plugin; self.unit = unit
    }

    public func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun {
        try plugin.prepare(unit: unit, graph: graph)
    }
}

/// A unit given as one closure that prepares and runs in one call (tests, fakes).
public struct ClosureUnit: GraphUnit {
    public let execute: @Sendable (IntegerGraph, [TensorValue]) throws -> [TensorValue]

    public init(_ execute: @escaping @Sendable (IntegerGraph, [TensorValue]) throws -> [TensorValue]) {
        self.execute = execute
    }

    public func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun {
        Prepared(graph: graph, execute: execute)
    }

    private final class Prepared: PreparedGraphRun, @unchecked Sendable {
        let graph: IntegerGraph
        let execute: @Sendable (IntegerGraph, [TensorValue]) throws -> [TensorValue]
        init(graph: IntegerGraph, execute: @escaping @Sendable (IntegerGraph, [TensorValue]) throws -> [TensorValue]) {
            self.graph = graph; self.execute = execute
        }
        func run(_ inputs: [TensorValue]) throws -> [TensorValue] { try execute(graph, inputs) }
    }
}
