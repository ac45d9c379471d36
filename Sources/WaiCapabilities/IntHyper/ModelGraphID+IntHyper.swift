// A model set's graph as the qualification keys it (docs/probe.md §9); here, beside the
// model set, because the host (WaiRuntime) knows no codec.

extension ModelGraphID {
    public init(_ set: IntHyperModelSet, graph: String) {
        self.init(modelSet: set.idHex, modelSetLabel: "\(set.name) \(set.version)", graph: graph)
    }
}
