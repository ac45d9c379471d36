/// Which unit a run should use (`--unit` on the CLI).
public enum UnitSelection: Equatable, Sendable, CustomStringConvertible {
    /// The accepted unit ranked first.
    case best
    /// The best-ranked accepted unit of that kind.
    case kind(UnitKind)
    /// The best-ranked accepted unit of that backend.
    case backend(String)
    /// One unit: backend name and unit index.
    case backendUnit(String, Int)
    /// The host's reference interpreter.
    case reference

    /// "best", "reference", "cpu" | "gpu" | "other" (a kind), "NAME:INDEX", or "NAME".
    /// A kind word wins over a backend of the same name; use "NAME:INDEX" for that backend.
    public init(parsing text: String) throws(HostError) {
        switch text {
        case "": throw HostError.invalidSelection(text: text, reason: "empty")
        case "best": self = .best
        case "reference": self = .reference
        default:
            if let kind = UnitKind(rawValue: text) { self = .kind(kind); return }
            self = try Self(backendNaming: text)
        }
    }

    /// "NAME" or "NAME:INDEX", always a backend (`--backend`), even one spelled like a unit
    /// kind or "best".
    public init(backendNaming text: String) throws(HostError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard !text.isEmpty else { throw HostError.invalidSelection(text: text, reason: "empty") }
            self = .backend(text)
        case 2:
            guard !parts[0].isEmpty else {
                throw HostError.invalidSelection(text: text, reason: "no backend name before ':'")
            }
            guard let index = Int(parts[1]), index >= 0 else {
                throw HostError.invalidSelection(text: text, reason: "unit index '\(parts[1])' is not a non-negative integer")
            }
            self = .backendUnit(String(parts[0]), index)
        default:
            throw HostError.invalidSelection(text: text, reason: "more than one ':'")
        }
    }

    public var description: String {
        switch self {
        case .best: return "best"
        case .kind(let k): return k.rawValue
        case .backend(let name): return name
        case .backendUnit(let name, let index): return "\(name):\(index)"
        case .reference: return "reference"
        }
    }
}

extension HostError {
    /// What is wrong with a refused selection's text ("more than one ':'"), for callers that
    /// name the text their own way (`--backend`, `probe NAME`); the whole message otherwise.
    public var selectionReason: String {
        if case let .invalidSelection(_, reason) = self { return reason }
        return description
    }
}
