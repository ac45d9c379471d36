/// The built-in int_motion decode vector for the exactness probe's `decode` stage
/// (docs/probe.md §1): a small seeded motion set (with int_hyper's probe-vector set for the
/// intra frame), a two-frame pan encoded with them on the reference interpreter, and the
/// graph runs the decode of its P-frame makes — both h_s on the entropy-decoded z and
/// p_synth on the decoded reference and both latents. Entropy decoding and the colour
/// conversion are host code, so a unit that computes these runs exactly decodes the
/// P-frame exactly; `pFrameSHA256` is that frame's answer.
public enum IntMotionProbeVector {
    public static let seed: UInt64 = 0x494E_544D_4F54_494F   // "INTMOTIO"
    public static let hyperChannels = 8
    public static let latentChannels = 12
    /// Odd sizes, as int_hyper's vector: 3 × 2 latents, the reference extended to 48 × 32.
    public static let width = IntHyperProbeVector.width
    public static let height = IntHyperProbeVector.height

    public struct Vector: Sendable {
        public var motionSet: MotionModelSet
        public var payload: [UInt8]
        /// The P-frame's runs in decode order: motion_h_s, residual_h_s, p_synth.
        public var graphs: [(name: String, graph: IntegerGraph, inputs: [TensorValue])]
        /// SHA-256 of the decoded P-frame's RGB8 rows on the reference interpreter.
        public var pFrameSHA256: String
    }

    public static func shared() throws -> Vector { try cached.get() }

    private static let cached = Result { try make() }

    /// Deterministic: the same vector on every host.
    public static func make() throws -> Vector {
        let intra = try IntHyperProbeVector.shared().modelSet
        let motion = try MotionModelGenerator.generate(seed: seed, n: hyperChannels, m: latentChannels, name: "probe-vector-motion")
        let names = ["int_motion_motion_h_s", "int_motion_residual_h_s", "int_motion_p_synth"]
        let r = try PredictiveProbeVector.record(format: "int_motion", names: names, encode: { frames, width, height, runner in
            try VideoIntMotionCodec.encode(count: 2, frame: { frames[$0] }, chroma: .rgb, width: width, height: height,
                                           frameRate: Rational(25, 1), aspect: Rational(1, 1), gop: 2,
                                           intraSet: intra, motionSet: motion, runner: runner, envelope: false).bytes
        }, decode: { payload, runner, each in
            try VideoIntMotionCodec.decode(try VideoIntMotionCodec.open(payload), intraSet: intra, motionSet: motion, runner: runner, each: each)
        })
        return Vector(motionSet: motion, payload: r.payload, graphs: r.graphs, pFrameSHA256: r.pFrameSHA256)
    }
}

/// Runs graphs on another runner and keeps every (graph, inputs) it was given, in order.
final class RecordingRunner: GraphRunner, @unchecked Sendable {
    private let inner: GraphRunner
    private(set) var runs: [(graph: IntegerGraph, inputs: [TensorValue])] = []

    init(_ inner: GraphRunner) { self.inner = inner }

    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        runs.append((graph, inputs))
        return try inner.run(graph, inputs: inputs)
    }
}
