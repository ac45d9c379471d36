/// What wrote the element a mismatch is about (`ProbeMismatch.op`, docs/cli.md `probe
/// --json`): an op of the graph, or `input` (the tensor is no node's output), or `output`
/// (a spot check met an output of the wrong shape, or none). Its JSON is that word, the op's
/// name as docs/integer-ops.md spells it, so probe-cache files and reports read as before.
public enum MismatchSite: Hashable, Sendable, CustomStringConvertible {
    case op(OpKind)
    case input
    case output

    /// The site of tensor `t` in `graph`: the op of the node that writes it, else `input`.
    public init(tensor t: Int, in graph: IntegerGraph) {
        self = graph.nodes.first { $0.output == t }.map { .op($0.op.kind) } ?? .input
    }

    public init?(name: String) {
        switch name {
        case "input": self = .input
        case "output": self = .output
        default:
            guard let kind = OpKind(name: name) else { return nil }
            self = .op(kind)
        }
    }

    public var name: String {
        switch self {
        case .op(let kind): return kind.name
        case .input: return "input"
        case .output: return "output"
        }
    }

    public var description: String { name }

    /// Every spelling, for messages refusing another.
    public static var names: [String] { OpKind.allCases.map(\.name) + ["input", "output"] }
}

extension MismatchSite: Codable {
    public init(from decoder: Decoder) throws {
        self = try WordCoding.decode(decoder, refusal: "no op and neither input nor output", names: Self.names, MismatchSite.init(name:))
    }

    public func encode(to encoder: Encoder) throws { try WordCoding.encode(name, to: encoder) }
}
