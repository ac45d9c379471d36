/// Runs every graph through `BackendHost.run` on one selection.
public struct HostGraphRunner: GraphRunner {
    public let host: BackendHost
    public let selection: UnitSelection

    public init(host: BackendHost, selection: UnitSelection) {
        self.host = host; self.selection = selection
    }

    /// On the unit the host's configuration names by default (docs/configuration.md §3, `unit`).
    public init(host: BackendHost) {
        self.init(host: host, selection: host.configuration.defaultUnit)
    }

    /// The reference interpreter, with no plugins to look at.
    public static func reference() -> HostGraphRunner {
        HostGraphRunner(host: BackendHost(configuration: HostConfiguration(pluginDirectories: [], cacheDirectory: nil,
                                                                    proberExecutable: nil)),
                        selection: .reference)
    }

    public func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        try host.run(graph, inputs: inputs, on: selection)
    }

    public func maxTensorElements(for graph: IntegerGraph) -> Int? { host.maxTensorElements(for: graph, on: selection) }

    public func release(_ graph: IntegerGraph) { host.release(graph) }
    public func run(_ graph: IntegerGraph, inputs: [TensorValue], model: ModelGraphID) throws
        -> (outputs: [TensorValue], report: RunReport) {
        try host.run(graph, inputs: inputs, on: selection, model: model)
    }
}
