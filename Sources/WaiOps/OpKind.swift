/// The op set (docs/integer-ops.md §4), one row per op: its `wai_op` value in the backend ABI
/// (the raw value; `Sources/BackendABI/include/wai_backend.h`, append only), which is also
/// its code in the model container (docs/model-container.md §2); the name docs, errors,
/// probe reports and JSON spell; and how many inputs it takes. Every other spelling of an
/// op — the host's `Op`, the container, the descriptor the host marshals, the backends'
/// descriptor reader — comes from this table (OpTableTests holds it to the header).
public enum OpKind: UInt32, CaseIterable, Sendable {
    case conv2d = 1
    case convTranspose2d = 2
    case requantize = 3
    case add = 4
    case clamp = 5
    case depthToSpace = 6
    case concat = 7
    case lookup = 8
    case inverseGDN = 9
    /// Appended in ABI 1.1 (docs/backend-abi.md §13).
    case warp = 10

    public var name: String {
        switch self {
        case .conv2d: return "conv2d"
        case .convTranspose2d: return "conv_transpose2d"
        case .requantize: return "requantize"
        case .add: return "add"
        case .clamp: return "clamp"
        case .depthToSpace: return "depth_to_space"
        case .concat: return "concat"
        case .lookup: return "lookup"
        case .inverseGDN: return "inverse_gdn"
        case .warp: return "warp"
        }
    }

    /// The number of inputs; nil for concat, which takes one or more (§4.7).
    public var inputCount: Int? {
        switch self {
        case .add, .warp: return 2
        case .concat: return nil
        default: return 1
        }
    }

    public init?(name: String) {
        guard let k = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }

    /// "1…10": the codes this table knows, for messages refusing another.
    public static var codeRange: String { "\(allCases.first!.rawValue)…\(allCases.last!.rawValue)" }
}

/// An op in JSON (probe verdicts' coverage, docs/cli.md `probe --json`) is its name, as
/// docs/integer-ops.md spells it; another word is refused naming the ones there are.
extension OpKind: Codable {
    public init(from decoder: Decoder) throws {
        self = try WordCoding.decode(decoder, refusal: "no op", names: OpKind.allCases.map(\.name), OpKind.init(name:))
    }

    public func encode(to encoder: Encoder) throws { try WordCoding.encode(name, to: encoder) }
}
