// Builds a graph in code: shapes are inferred (docs/integer-ops.md §4) and intervals
// computed (§5) as each node is added, so a bad parameter or a possible overflow is reported
// at the call that introduced it. build() fills the certificate by computeIntervals and
// verifies the whole graph, exactly as a loaded model would be.

/// Builds a graph in code, inferring shapes; build() fills the certificate by
/// computeIntervals and then verifies. storage nil = narrow when the interval fits, else wide.
public struct GraphBuilder {
    private var tensors: [TensorSpec] = []
    private var nodes: [Node] = []
    private var inputs: [Int] = []

    public init() {}

    public mutating func input(_ name: String, _ shape: Shape, storage: Storage, interval: Interval) -> Int {
        tensors.append(TensorSpec(name: name, shape: shape, storage: storage, interval: interval))
        inputs.append(tensors.count - 1)
        return tensors.count - 1
    }

    public mutating func conv2d(_ x: Int, _ p: ConvParams, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.conv2d(p), [x], storage: storage, name: name)
    }

    public mutating func convTranspose2d(_ x: Int, _ p: ConvParams, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.convTranspose2d(p), [x], storage: storage, name: name)
    }

    public mutating func requantize(_ x: Int, _ p: RequantizeParams, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.requantize(p), [x], storage: storage, name: name)
    }

    public mutating func add(_ a: Int, _ b: Int, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.add, [a, b], storage: storage, name: name)
    }

    public mutating func clamp(_ x: Int, lo: Int32, hi: Int32, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.clamp(lo: lo, hi: hi), [x], storage: storage, name: name)
    }

    public mutating func depthToSpace(_ x: Int, block: Int, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.depthToSpace(block: block), [x], storage: storage, name: name)
    }

    public mutating func concat(_ xs: [Int], storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.concat, xs, storage: storage, name: name)
    }

    public mutating func lookup(_ x: Int, _ p: LookupParams, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.lookup(p), [x], storage: storage, name: name)
    }

    public mutating func inverseGDN(_ x: Int, _ p: InverseGDNParams, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.inverseGDN(p), [x], storage: storage, name: name)
    }

    public mutating func warp(_ volume: Int, _ flow: Int, _ p: WarpParams, storage: Storage? = nil, name: String? = nil) throws -> Int {
        try node(.warp(p), [volume, flow], storage: storage, name: name)
    }

    public func build(outputs: [Int]) throws -> IntegerGraph {
        var graph = IntegerGraph(tensors: tensors, nodes: nodes, inputs: inputs, outputs: outputs)
        let intervals = try CertificateVerifier.computeIntervals(graph)
        for t in graph.tensors.indices { graph.tensors[t].interval = intervals[t] }
        try CertificateVerifier.verify(graph)
        return graph
    }

    private mutating func node(_ op: Op, _ xs: [Int], storage: Storage?, name: String?) throws -> Int {
        let k = nodes.count
        for x in xs {
            guard x >= 0, x < tensors.count else {
                throw GraphError.node(index: k, op: op.name, problem: "input names tensor \(x); the builder has \(tensors.count) tensors")
            }
            // An input's declaration is checked before its interval feeds any arithmetic.
            if inputs.contains(x) {
                let spec = tensors[x]
                try GraphStructure.checkTensor(spec, index: x)
                guard spec.storage.range.contains(spec.interval) else {
                    throw GraphError.storage(node: nil, op: nil, tensor: x, name: spec.name,
                                             storage: spec.storage, interval: spec.interval)
                }
            }
        }
        let shape = try GraphStructure.inferShape(op, inputs: xs.map { tensors[$0].shape }, node: k)
        let out = tensors.count
        let tensorName = name ?? "\(op.name)_\(k)"
        let site = IntervalRules.Site(node: k, op: op.name, tensor: out, name: tensorName)
        let interval = try IntervalRules.interval(of: op, inputs: xs.map { tensors[$0].interval },
                                                  inputShape: tensors[xs[0]].shape, site: site)
        let chosen = storage ?? (Storage.narrow.range.contains(interval) ? .narrow : .wide)
        guard chosen.range.contains(interval) else {
            throw GraphError.storage(node: k, op: op.name, tensor: out, name: tensorName, storage: chosen, interval: interval)
        }
        tensors.append(TensorSpec(name: tensorName, shape: shape, storage: chosen, interval: interval))
        nodes.append(Node(op: op, inputs: xs, output: out))
        return out
    }
}
