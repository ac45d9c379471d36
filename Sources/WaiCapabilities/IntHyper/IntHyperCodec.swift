/// Files in, files out: `wai.neural.int_hyper` as the CLI and library users see it — an
/// envelope or a bare payload in, RGB8 out; a picture in, an envelope (or bare payload) out.
public enum IntHyperCodec {
    public struct Decoded: Sendable {
        public var result: IntHyperDecoder.Result
        public var payload: IntHyperPayload
        public var enveloped: Bool
        public var inputBytes: Int
        public var payloadBytes: Int
        public var image: RGB8Image { result.image }
    }

    public static func decode(_ bytes: [UInt8], modelSet: IntHyperModelSet, runner: GraphRunner,
                              keepingScaleIndices: Bool = false) throws -> Decoded {
        let opened = try CapabilityRegistry.open(bytes, expecting: IntHyperModelSet.capability)
        let payload = try IntHyperPayload.parse(opened.payload)
        let result = try IntHyperDecoder(modelSet: modelSet).decode(payload, runner: runner, keepingScaleIndices: keepingScaleIndices)
        return Decoded(result: result, payload: payload, enveloped: opened.enveloped, inputBytes: bytes.count,
                       payloadBytes: opened.payload.count)
    }

    /// The model-set id an envelope or bare payload names (its header, docs/capabilities/int_hyper.md §4).
    public static func modelSetID(of bytes: [UInt8]) throws -> [UInt8] {
        let opened = try CapabilityRegistry.open(bytes, expecting: IntHyperModelSet.capability)
        return try IntHyperPayload.parse(opened.payload).modelSetID
    }

    /// The payload in a WAI1 envelope, or bare when `envelope` is false; its streams coded
    /// as `version` says (docs/capabilities/int_hyper.md §4).
    public static func encode(_ image: RGB8Image, modelSet: IntHyperModelSet, runner: GraphRunner,
                              envelope: Bool = true,
                              version: IntHyperPayload.Version = IntHyperPayload.defaultVersion)
        throws -> (bytes: [UInt8], result: IntHyperEncoder.Result) {
        let result = try IntHyperEncoder(modelSet: modelSet).encode(image, runner: runner, version: version)
        let payload = result.bytes
        return (envelope ? try Envelope.encode(capability: IntHyperModelSet.capability, payload: payload) : payload, result)
    }
}
