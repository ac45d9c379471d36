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
}
