/// The built-in int_hyper decode vector for the exactness probe's `decode` stage: a small
/// model set generated from a fixed seed, a synthetic picture encoded with it on the
/// reference interpreter, and the two graph runs a decode of that payload makes — h_s on
/// the entropy-decoded z and g_s on the entropy-decoded y. Entropy decoding is host code,
/// identical everywhere, so a unit that computes these two runs exactly decodes the whole
/// payload exactly; `decodeSHA256` is the whole decode's answer.
public enum IntHyperProbeVector {
    public static let seed: UInt64 = 0x494E_5448_5950_4552   // "INTHYPER"
    public static let hyperChannels = 8
    public static let latentChannels = 12
    /// 3 × 2 latents, 1 × 1 hyper-latents; odd sizes so the crops are exercised.
    public static let width = 45
    public static let height = 29

    public struct Vector: Sendable {
        public var modelSet: IntHyperModelSet
        /// A bare payload.
        public var payload: [UInt8]
        /// h_s at the payload's size with the decoded z, then g_s with the decoded y.
        public var graphs: [(name: String, graph: IntegerGraph, inputs: [TensorValue])]
        /// SHA-256 of the decoded RGB8 rows on the reference interpreter.
        public var decodeSHA256: String
    }

    /// Made once per process (`make()` is deterministic, so every call would give the same).
    public static func shared() throws -> Vector { try cached.get() }

    private static let cached = Result { try make() }

    /// Deterministic: the same vector on every host. About 0.3 s in a debug build.
    public static func make() throws -> Vector {
        let set = try SampleModelGenerator.generate(seed: seed, n: hyperChannels, m: latentChannels, name: "probe-vector")
        let reference = HostGraphRunner.reference()
        let picture = try SamplePicture.make(width: width, height: height)
        let payload = try IntHyperEncoder(modelSet: set).encode(picture, runner: reference).bytes
        let decoded = try IntHyperDecoder(modelSet: set).decode(try IntHyperPayload.parse(payload), runner: reference)
        let inst = try IntHyperDecoder.instance(set, width: width, height: height)
        return Vector(modelSet: set, payload: payload,
                      graphs: [("int_hyper_h_s", inst.hyperSynthesis, [decoded.z]),
                               ("int_hyper_g_s", inst.synthesis, [decoded.y])],
                      decodeSHA256: decoded.image.sha256)
    }
}
