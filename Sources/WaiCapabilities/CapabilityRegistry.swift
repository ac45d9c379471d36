/// The capabilities this host decodes, by name (docs/envelope.md §2). A file is either a
/// WAI1 envelope, which names its capability, or a bare payload, recognised by its magic.
public enum CapabilityRegistry {
    public struct Entry: Sendable {
        public var name: String
        /// The first bytes of a bare payload of this capability.
        public var payloadMagic: [UInt8]
        public var summary: String
    }

    public static let entries: [Entry] = [
        Entry(name: IntHyperModelSet.capability, payloadMagic: IntHyperPayload.magic,
              summary: "learned picture codec: hyperprior, integer h_s and g_s, RGB8 output"),
        Entry(name: VideoIntHyperCodec.capability, payloadMagic: VideoIntHyperPayload.magic,
              summary: "intra-only video: every frame an int_hyper picture, Y4M (BT.601 4:2:0 or 4:4:4) or RGB8 output"),
        Entry(name: MotionModelSet.capability, payloadMagic: VideoIntMotionPayload.magic,
              summary: "motion-compensated video (scale-space flow): int_hyper intra frames, warped P-frames, Y4M or RGB8 output"),
        Entry(name: CondModelSet.capability, payloadMagic: VideoIntCondPayload.magic,
              summary: "conditional video (DCVC-style temporal context): int_hyper intra frames, P-frames decoded from the previous frame's features, Y4M or RGB8 output"),
    ]

    public static var names: [String] { entries.map(\.name) }

    public struct Opened: Sendable {
        public var capability: String
        public var payload: [UInt8]
        /// True when the bytes were a WAI1 envelope (its SHA-256 checked).
        public var enveloped: Bool
    }

    /// Unwraps an envelope (checking its digest) or recognises a bare payload; refuses a
    /// capability this host has no decoder for.
    public static func open(_ bytes: [UInt8]) throws -> Opened {
        if Envelope.isEnvelope(bytes) {
            let (capability, payload) = try Envelope.parse(bytes)
            guard names.contains(capability) else {
                throw CapabilityError.unsupported(capability: capability, supported: names)
            }
            return Opened(capability: capability, payload: payload, enveloped: true)
        }
        if let e = entries.first(where: { bytes.count >= $0.payloadMagic.count && bytes.prefix($0.payloadMagic.count).elementsEqual($0.payloadMagic) }) {
            return Opened(capability: e.name, payload: bytes, enveloped: false)
        }
        throw CapabilityError.unrecognised(firstBytes: Array(bytes.prefix(8)))
    }

    /// Only `capability` is acceptable here (the caller has that capability's model set).
    public static func open(_ bytes: [UInt8], expecting capability: String) throws -> Opened {
        let opened = try open(bytes)
        guard opened.capability == capability else {
            throw CapabilityError.wrongCapability(found: opened.capability, expected: capability)
        }
        return opened
    }
}

public enum CapabilityError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsupported(capability: String, supported: [String])
    case unrecognised(firstBytes: [UInt8])
    case wrongCapability(found: String, expected: String)

    public var description: String {
        switch self {
        case let .unsupported(c, supported):
            return "the envelope carries capability \(c), which this host does not decode (it decodes \(supported.joined(separator: ", ")))"
        case let .unrecognised(first):
            let hex = Hex.spaced(first)
            return "not a WAI1 envelope nor a payload of a known capability (first bytes: \(hex.isEmpty ? "none, the input is empty" : hex))"
        case let .wrongCapability(found, expected):
            return "the input is a \(found) payload; this needs \(expected)"
        }
    }
}
