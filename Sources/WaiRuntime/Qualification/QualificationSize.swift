/// The size a model graph is qualified at (docs/probe.md §9). Channel counts are the
/// model's own at any size (resizing changes only heights and widths); the size is chosen
/// small, so the reference's share stays cheap, with odd, unequal input sides: every
/// tensor's side is then an odd number times a power of two, never a multiple of the next
/// power, so each row and column of every layer ends in a partial vector or tile (3×5 into
/// g_s gives 5, 10, 20, 40 and 80 columns: a partial vector of 8 in the first three, a
/// partial tile of 64 in the last), and a transposed height and width cannot pass.
enum QualificationSize {
    /// Input heights × widths tried in order; the first the graph accepts is used (a graph
    /// whose kernels need a larger input skips the small ones).
    static let candidates: [(height: Int, width: Int)] = [(3, 5), (5, 7), (7, 9), (9, 11), (11, 13), (13, 15),
                                                           (17, 19), (23, 29), (31, 37)]

    /// `graph` at the first candidate size it can run at, or as given when none fits
    /// (then it is qualified at the size it is about to run at).
    static func instantiate(_ graph: IntegerGraph) -> IntegerGraph {
        for c in candidates {
            if let g = try? GraphResizing.resized(graph, height: c.height, width: c.width) { return g }
        }
        return graph
    }

    /// "3×5" (input height × width).
    static func text(_ graph: IntegerGraph) -> String {
        guard let i = graph.inputs.first else { return "-" }
        let s = graph.tensors[i].shape
        return "\(s.height)×\(s.width)"
    }
}
