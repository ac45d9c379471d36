// Why a graph was refused: structure and shapes (docs/integer-ops.md §1, §4) or the bounds
// certificate (§5). Every case names what it is about, so a refused model can be fixed.

public enum GraphError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The graph as a whole: its counts or its input/output lists (§1).
    case graph(problem: String)
    /// One tensor's own declaration: its shape or interval (§1).
    case tensor(index: Int, name: String, problem: String)
    /// One node's inputs, output or parameters (§1, §4).
    case node(index: Int, op: String, problem: String)
    /// A node's output shape (§4) differs from the shape its output tensor declares.
    case shapeMismatch(node: Int, op: String, tensor: Int, name: String, declared: Shape, inferred: Shape)
    /// §5 rule 1: the declared interval is not the one the rules give.
    case certificateMismatch(node: Int, op: String, tensor: Int, name: String, rule: String,
                             declared: Interval, computed: Interval)
    /// §5 rule 2: the interval does not fit the tensor's storage width. `node` is nil for a
    /// graph input.
    case storage(node: Int?, op: String?, tensor: Int, name: String, storage: Storage, interval: Interval)
    /// §5 rule 3: an intermediate of the op can reach `bound`, outside `allowed` (int32, or
    /// the tighter limit the rule states).
    case intermediate(node: Int, op: String, tensor: Int, name: String, rule: String,
                      intermediate: String, bound: Interval, allowed: Interval)

    public var description: String {
        switch self {
        case .graph(let problem):
            return "graph: \(problem)"
        case .tensor(let index, let name, let problem):
            return "tensor \(index) '\(name)': \(problem)"
        case .node(let index, let op, let problem):
            return "node \(index) (\(op)): \(problem)"
        case .shapeMismatch(let node, let op, let tensor, let name, let declared, let inferred):
            return "node \(node) (\(op)): output tensor \(tensor) '\(name)' declares shape \(declared) "
                + "but the op produces \(inferred) (docs/integer-ops.md §4)"
        case .certificateMismatch(let node, let op, let tensor, let name, let rule, let declared, let computed):
            return "certificate of tensor \(tensor) '\(name)' (written by node \(node), \(op)) is wrong: "
                + "declared \(declared), rule '\(rule)' computes \(computed) (docs/integer-ops.md §5)"
        case .storage(let node, let op, let tensor, let name, let storage, let interval):
            let writer = node.map { "written by node \($0) (\(op ?? "?"))" } ?? "graph input"
            return "tensor \(tensor) '\(name)' (\(writer)): interval \(interval) does not fit "
                + "\(storage == .narrow ? "narrow (int16)" : "wide (int32)") storage \(storage.range) (docs/integer-ops.md §2, §5 rule 2)"
        case .intermediate(let node, let op, let tensor, let name, let rule, let intermediate, let bound, let allowed):
            return "node \(node) (\(op)) writing tensor \(tensor) '\(name)': rule '\(rule)': "
                + "\(intermediate) can reach \(bound), outside \(allowed) (docs/integer-ops.md §5 rule 3)"
        }
    }
}
