import WaiHost

/// Shows a codec's graph runs as progress: each run is a step weighted by its graph's
/// tensor elements (a proxy for its work: g_s dwarfs h_s), so percent and ETA follow the
/// time the graphs take. The runs between graphs (entropy coding) are not counted.
final class ProgressRunner: GraphRunner {
    private let inner: GraphRunner
    private let progress: Progress
    private let plan: [(name: String, weight: Int)]
    private var next = 0

    /// `plan`: the graphs the codec runs, in order.
    init(_ inner: GraphRunner, progress: Progress, plan: [(name: String, graph: IntegerGraph)]) {
        self.inner = inner
        self.progress = progress
        self.plan = plan.map { ($0.name, max(1, $0.graph.tensors.reduce(0) { $0 + $1.shape.count })) }
    }

    static func decoding(_ set: IntHyperModelSet, _ inner: GraphRunner, _ progress: Progress) -> ProgressRunner {
        ProgressRunner(inner, progress: progress, plan: [("h_s", set.hyperSynthesis), ("g_s", set.synthesis)])
    }

    static func encoding(_ set: IntHyperModelSet, _ inner: GraphRunner, _ progress: Progress) -> ProgressRunner {
        var plan: [(name: String, graph: IntegerGraph)] = []
        if let a = set.analysis { plan = [("g_a", a.latent), ("h_a", a.hyper)] }
        return ProgressRunner(inner, progress: progress, plan: plan + [("h_s", set.hyperSynthesis)])
    }

    private var total: Int { plan.reduce(0) { $0 + $1.weight } }
    private func done(_ k: Int) -> Int { plan.prefix(k).reduce(0) { $0 + $1.weight } }

    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        let k = next
        next += 1
        if k < plan.count { progress.update(done(k), of: total, detail: plan[k].name) }
        let result = try inner.run(graph, inputs: inputs)
        if k < plan.count { progress.update(done(k + 1), of: total, detail: plan[k].name + " done") }
        return result
    }
}
