/// A model set's graphs are stored at a nominal size; a picture needs them at its own. The
/// certificate does not depend on spatial size (docs/integer-ops.md §5: every tap counts,
/// whether or not it reaches the input), so only the shapes change: they are re-inferred
/// node by node and the resized graph is verified again like any loaded graph (once per
/// model set and size in a process: VerifiedInstantiations).
package enum GraphResizing {
    /// `graph` (one input) with that input's height and width replaced.
    package static func resized(_ graph: IntegerGraph, height: Int, width: Int) throws -> IntegerGraph {
        guard graph.inputs.count == 1, let input = graph.inputs.first, graph.tensors.indices.contains(input) else {
            throw GraphError.graph(problem: "has \(graph.inputs.count) inputs; a resizable graph has exactly one")
        }
        let shape = graph.tensors[input].shape
        if shape.height == height, shape.width == width { return graph }
        return try VerifiedInstantiations.shared.instantiation(of: graph, height: height, width: width) {
            try instantiate(graph, input: input, height: height, width: width)
        }
    }

    /// `graph` with input k's height and width replaced by `sizes[k]` (graphs of several
    /// inputs, e.g. docs/capabilities/video_int_motion.md §2.3's p_synth); verified again, not
    /// remembered (the caller keeps it for the frames of one size).
    package static func resized(_ graph: IntegerGraph, sizes: [(height: Int, width: Int)]) throws -> IntegerGraph {
        guard graph.inputs.count == sizes.count, graph.inputs.allSatisfy({ graph.tensors.indices.contains($0) }) else {
            throw GraphError.graph(problem: "has \(graph.inputs.count) inputs; \(sizes.count) sizes were given")
        }
        if zip(graph.inputs, sizes).allSatisfy({ graph.tensors[$0].shape.height == $1.height && graph.tensors[$0].shape.width == $1.width }) {
            return graph
        }
        return try instantiate(graph, inputs: Array(zip(graph.inputs, sizes)))
    }

    private static func instantiate(_ graph: IntegerGraph, input: Int, height: Int, width: Int) throws -> IntegerGraph {
        try instantiate(graph, inputs: [(input, (height, width))])
    }

    private static func instantiate(_ graph: IntegerGraph, inputs: [(Int, (height: Int, width: Int))]) throws -> IntegerGraph {
        var g = graph
        for (input, size) in inputs {
            let shape = g.tensors[input].shape
            g.tensors[input].shape = Shape(shape.channels, size.height, size.width)
            try GraphStructure.checkTensor(g.tensors[input], index: input)
        }
        for (k, node) in g.nodes.enumerated() {
            guard node.inputs.allSatisfy({ g.tensors.indices.contains($0) }), g.tensors.indices.contains(node.output) else {
                throw GraphError.node(index: k, op: node.op.name, problem: "names a tensor the graph does not have")
            }
            g.tensors[node.output].shape = try GraphStructure.inferShape(node.op, inputs: node.inputs.map { g.tensors[$0].shape },
                                                                         node: k)
        }
        try CertificateVerifier.verify(g)
        return g
    }

    package static func outputShape(_ graph: IntegerGraph) -> Shape? {
        graph.outputs.first.map { graph.tensors[$0].shape }
    }
}

/// Sizes of one picture's latents (docs/capabilities/int_hyper.md §3): y is the picture
/// downsampled 16×, z is y downsampled 4×, each rounded up; the synthesis produces the
/// rounded-up size and the host crops it.
public struct IntHyperGeometry: Equatable, Sendable {
    public static let latentFactor = 16
    public static let hyperFactor = 4

    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) { self.width = width; self.height = height }

    public var latentHeight: Int { (height + Self.latentFactor - 1) / Self.latentFactor }
    public var latentWidth: Int { (width + Self.latentFactor - 1) / Self.latentFactor }
    public var hyperHeight: Int { (latentHeight + Self.hyperFactor - 1) / Self.hyperFactor }
    public var hyperWidth: Int { (latentWidth + Self.hyperFactor - 1) / Self.hyperFactor }
    /// The size g_a reads and g_s writes: the picture padded to a multiple of 16.
    public var paddedHeight: Int { latentHeight * Self.latentFactor }
    public var paddedWidth: Int { latentWidth * Self.latentFactor }
}
