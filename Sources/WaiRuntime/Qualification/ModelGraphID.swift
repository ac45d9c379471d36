/// Which graph of which model set a run is (docs/probe.md §9): what model qualification is
/// keyed by. The model set's id is the hash of its files (IntHyperManifest.modelSetID), so
/// it pins every weight of the graph; `graph` names the graph within the set ("h_s").
public struct ModelGraphID: Sendable, Equatable, Hashable {
    /// The model set's id, lowercase hex.
    public var modelSet: String
    /// "name version", for reports.
    public var modelSetLabel: String
    public var graph: String

    public init(modelSet: String, modelSetLabel: String, graph: String) {
        self.modelSet = modelSet; self.modelSetLabel = modelSetLabel; self.graph = graph
    }

    /// "h_s of model set sample-n32-m48 1 (efa3c9c10147)".
    public var description: String { "\(graph) of model set \(modelSetLabel) (\(modelSet.prefix(12)))" }
}
