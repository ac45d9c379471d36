/// Where a capability runs its integer graphs. The host (`HostGraphRunner`) is the normal
/// case: the probed, dispatched unit, or the reference interpreter with `.reference`.
/// Tests plug a prepared backend in directly; the fuzz harness the reference interpreter.
public protocol GraphRunner {
    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport)
    /// A model set's graph: the host qualifies a plugin unit for it first (docs/probe.md §9).
    func run(_ graph: IntegerGraph, inputs: [TensorValue], model: ModelGraphID) throws
        -> (outputs: [TensorValue], report: RunReport)
    /// The largest tensor (elements) the unit that would run `graph` takes, when it has a
    /// known limit; tiled runs (`TiledGraph`) plan their tiles below it.
    func maxTensorElements(for graph: IntegerGraph) -> Int?
    /// The caller will not run `graph` again soon: what was prepared for it may go (a tiled
    /// run's tile graphs would otherwise each keep their buffers on the unit).
    func release(_ graph: IntegerGraph)
}

extension GraphRunner {
    /// Runners that do not dispatch to plugin units have nothing to qualify.
    public func run(_ graph: IntegerGraph, inputs: [TensorValue], model: ModelGraphID) throws
        -> (outputs: [TensorValue], report: RunReport) {
        try run(graph, inputs: inputs)
    }
    public func maxTensorElements(for graph: IntegerGraph) -> Int? { nil }
    public func release(_ graph: IntegerGraph) {}
}
