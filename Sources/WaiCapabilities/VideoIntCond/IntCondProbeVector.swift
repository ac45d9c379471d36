/// The built-in int_cond decode vector for the exactness probe's `decode` stage
/// (docs/probe.md §1): a small seeded conditional set (with int_hyper's probe-vector set for
/// the intra frame), a two-frame pan encoded with them on the reference interpreter, and the
/// graph runs the decode of its P-frame makes — cond_context on the decoded reference,
/// cond_prior on the context and the entropy-decoded z, cond_synth on the context and the
/// decoded y. Entropy decoding and the colour conversion are host code, so a unit that
/// computes these runs exactly decodes the P-frame exactly; `pFrameSHA256` is its answer.
public enum IntCondProbeVector {
    public static let seed: UInt64 = 0x494E_5443_4F4E_4456   // "INTCONDV"
    public static let hyperChannels = 8
    public static let latentChannels = 12
    /// int_hyper's vector's odd size (45 × 29): the P-frame grid extends it to 64 × 64.
    public static let width = IntHyperProbeVector.width
    public static let height = IntHyperProbeVector.height

    public struct Vector: Sendable {
        public var condSet: CondModelSet
        public var payload: [UInt8]
        /// The P-frame's runs in decode order: cond_context, cond_prior, cond_synth.
        public var graphs: [(name: String, graph: IntegerGraph, inputs: [TensorValue])]
        /// SHA-256 of the decoded P-frame's RGB8 rows on the reference interpreter.
        public var pFrameSHA256: String
    }

    public static func shared() throws -> Vector { try cached.get() }

    private static let cached = Result { try make() }

    /// Deterministic: the same vector on every host.
    public static func make() throws -> Vector {
        let intra = try IntHyperProbeVector.shared().modelSet
        let cond = try CondModelGenerator.generate(seed: seed, n: hyperChannels, m: latentChannels, name: "probe-vector-cond")
        let names = ["int_cond_context", "int_cond_prior", "int_cond_synth"]
        let r = try PredictiveProbeVector.record(format: "int_cond", names: names, encode: { frames, width, height, runner in
            try VideoIntCondCodec.encode(count: 2, frame: { frames[$0] }, chroma: .rgb, width: width, height: height,
                                         frameRate: Rational(25, 1), aspect: Rational(1, 1), gop: 2,
                                         intraSet: intra, condSet: cond, runner: runner, envelope: false).bytes
        }, decode: { payload, runner, each in
            try VideoIntCondCodec.decode(try VideoIntCondCodec.open(payload), intraSet: intra, condSet: cond, runner: runner, each: each)
        })
        return Vector(condSet: cond, payload: r.payload, graphs: r.graphs, pFrameSHA256: r.pFrameSHA256)
    }
}
