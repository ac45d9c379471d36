/// The exactness probe's stages, in the order they run (docs/probe.md). The raw values
/// appear in reports and JSON.
public enum ProbeStage: String, CaseIterable, Codable, Sendable {
    case semantics, arithmetic, widths, parameters, channels, decode, repetition, scale

    /// The stages whose `repeated` cases the repetition stage runs again.
    static let repeatedFrom: [ProbeStage] = [.channels, .decode, .scale]
}

/// One probe graph with fixed inputs. Every tensor a node writes is a graph output (unless
/// `finalOutputsOnly`), so the first differing tensor in node order names the op at fault.
public struct ProbeCase: Sendable {
    public var name: String
    public var graph: IntegerGraph
    public var inputs: [TensorValue]
    /// Run again by the repetition stage: several times on one prepared graph, interleaved
    /// with the other repeated graphs, and concurrently with them.
    public var repeated: Bool

    public init(name: String, graph: IntegerGraph, inputs: [TensorValue], repeated: Bool = false) {
        self.name = name; self.graph = graph; self.inputs = inputs; self.repeated = repeated
    }

    /// The same graph with every node's output marked as a graph output, in node order.
    public var everyTensorObserved: IntegerGraph {
        var g = graph
        g.outputs = g.nodes.map(\.output)
        return g
    }
}

/// The built-in probe suite: deterministic graphs and inputs, identical on every host.
public enum ProbeSuite {
    /// Part of the probe cache key: change it whenever a graph, an input or a comparison
    /// changes, so cached verdicts of the old suite are not reused.
    public static let version = "7"

    /// Interleaved runs of each repeated graph on one prepared graph, then rounds of all
    /// repeated graphs at once on separate threads (docs/probe.md `repetition`).
    static let repetitionRounds = 3
    static let concurrentRounds = 3

    /// The graphs of one stage; `codecVectors` are the decode stage's whole-codec decodes.
    public static func cases(_ stage: ProbeStage, codecVectors: CodecProbeVectors) throws -> [ProbeCase] {
        switch stage {
        case .semantics: return try SemanticsCases.all() + WarpCases.semantics()
        case .arithmetic: return try ArithmeticCases.all() + WarpCases.arithmetic() + WarpStageCases.arithmetic()
        case .widths: return try WidthCases.all() + WarpStageCases.widths()
        case .parameters: return try ParameterCases.all()
        case .channels: return try ChannelCases.all() + WarpStageCases.channels()
        case .scale: return try ScaleCases.all() + WarpCases.scale() + WarpStageCases.scale()
        case .repetition:
            // Built from the repeated cases of ProbeStage.repeatedFrom by the session.
            return try ProbeStage.repeatedFrom.flatMap { try cases($0, codecVectors: codecVectors) }.filter(\.repeated)
        case .decode:
            // The synthesis-shaped vector, then whole codec decodes (WaiCapabilities gives
            // wai.neural.int_hyper's two graph runs: h_s on the entropy-decoded z, g_s on the
            // decoded y). Entropy decoding is host code, so a unit exact on both decodes the
            // payload exactly. The scale-space prediction puts the warp among the ops a
            // video decode chains it with.
            return [try DecodeVector.builtIn(), try WarpDecodeVector.builtIn()] + (try codecVectors.make())
        }
    }

    /// A small graph of `op` alone (the first of the arithmetic stage), run to find out
    /// which op of a refused graph the unit does not support.
    static func opSample(_ op: String) throws -> ProbeCase? {
        try (ArithmeticCases.all() + WarpCases.arithmetic()).first { c in c.graph.nodes.allSatisfy { $0.op.name == op } }
    }

    /// The graph accepted units are timed on for ranking: a synthesis transform like the
    /// decode vector, at a size where a run takes milliseconds, not microseconds.
    public static func calibration() throws -> ProbeCase {
        try DecodeVector.calibration()
    }
}

/// Helpers shared by the case generators.
enum ProbeGraphs {
    /// Builds with every node's output observed (`last`: any tensor, to satisfy build()).
    static func finish(_ b: GraphBuilder, last: Int, name: String, inputs: [TensorValue]) throws -> ProbeCase {
        var g = try b.build(outputs: [last])
        g.outputs = g.nodes.map(\.output)
        return ProbeCase(name: name, graph: g, inputs: inputs)
    }

    /// A 1×1×n (or c×1×n) tensor value from a flat list.
    static func row(_ values: [Int32], channels: Int = 1) -> TensorValue {
        TensorValue(shape: Shape(channels, 1, values.count / channels), values: values)
    }

    /// Random values in `interval`, with both ends of it present (when there is room).
    static func values(_ rng: inout SplitMix64, count: Int, in interval: Interval) -> [Int32] {
        var v = (0..<count).map { _ in Int32(rng.int(interval.lo, interval.hi)) }
        if count >= 1 { v[rng.int(0...(count - 1))] = Int32(interval.lo) }
        if count >= 2 {
            var k = rng.int(0...(count - 1))
            if v[k] == Int32(interval.lo) && interval.lo != interval.hi { k = (k + 1) % count }
            v[k] = Int32(interval.hi)
        }
        return v
    }

    static func interval(_ lo: Int64, _ hi: Int64) -> Interval { Interval(lo: lo, hi: hi) }

    static let int32Min = Int64(Int32.min)
    static let int32Max = Int64(Int32.max)
}
