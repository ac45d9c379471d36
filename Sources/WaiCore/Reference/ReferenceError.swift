// Why the reference interpreter refused to produce a result. On a graph that passed
// CertificateVerifier.verify and inputs that passed checkInputContract, none of these can
// happen; they exist so a wrong verifier or an unverified graph fails loudly, not silently.

public enum ReferenceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An intermediate named in docs/integer-ops.md §4 left int32 (§3).
    case overflow(node: Int, op: String, tensor: Int, name: String, index: Int, intermediate: String, value: Int64)
    /// A value of a narrow tensor does not fit int16 (§2).
    case narrowOverflow(node: Int, op: String, tensor: Int, name: String, index: Int, value: Int32)
    /// A value lies outside the tensor's certificate interval (§5).
    case outsideCertificate(node: Int, op: String, tensor: Int, name: String, index: Int, value: Int32, interval: Interval)

    public var description: String {
        switch self {
        case .overflow(let node, let op, let tensor, let name, let index, let intermediate, let value):
            return "reference: node \(node) (\(op)) writing tensor \(tensor) '\(name)': \(intermediate) at element "
                + "\(index) is \(value), outside int32 (docs/integer-ops.md §3)"
        case .narrowOverflow(let node, let op, let tensor, let name, let index, let value):
            return "reference: node \(node) (\(op)) wrote \(value) at element \(index) of narrow tensor \(tensor) "
                + "'\(name)', outside int16 (docs/integer-ops.md §2)"
        case .outsideCertificate(let node, let op, let tensor, let name, let index, let value, let interval):
            return "reference: node \(node) (\(op)) wrote \(value) at element \(index) of tensor \(tensor) '\(name)', "
                + "outside its certificate interval \(interval) (docs/integer-ops.md §5)"
        }
    }
}

/// Why inputs do not meet a graph's input contract (docs/integer-ops.md §5 rule 1).
public enum InputContractError: Error, Equatable, Sendable, CustomStringConvertible {
    case count(expected: Int, got: Int)
    case shape(input: Int, tensor: Int, name: String, expected: Shape, got: Shape)
    case valueCount(input: Int, tensor: Int, name: String, expected: Int, got: Int)
    case value(input: Int, tensor: Int, name: String, index: Int, value: Int32, interval: Interval)

    public var description: String {
        switch self {
        case .count(let expected, let got):
            return "the graph takes \(expected) input\(expected == 1 ? "" : "s"), \(got) given"
        case .shape(let input, let tensor, let name, let expected, let got):
            return "input \(input) (tensor \(tensor) '\(name)') has shape \(got), the graph expects \(expected)"
        case .valueCount(let input, let tensor, let name, let expected, let got):
            return "input \(input) (tensor \(tensor) '\(name)') has \(got) values, its shape needs \(expected)"
        case .value(let input, let tensor, let name, let index, let value, let interval):
            return "input \(input) (tensor \(tensor) '\(name)'): value \(value) at element \(index) lies outside "
                + "the input contract \(interval) (docs/integer-ops.md §5)"
        }
    }
}
