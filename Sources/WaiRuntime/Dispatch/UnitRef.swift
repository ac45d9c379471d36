/// One place a graph can run, as reports name it (docs/cli.md, "Unit identity"): one unit of
/// a backend, or the host's reference interpreter. Its spelling — in JSON too — is what
/// `--unit` accepts for exactly that unit: `cpu:0`, `reference`.
public enum UnitRef: Hashable, Sendable, CustomStringConvertible {
    case reference
    /// Backend name and the unit's index in it.
    case unit(backend: String, index: Int)

    /// "reference" or "NAME:INDEX"; any other selection (a kind, a backend, "best") names no
    /// one unit and is refused, naming the text.
    public init(parsing text: String) throws(HostError) {
        switch try UnitSelection(parsing: text) {
        case .reference: self = .reference
        case let .backendUnit(name, index): self = .unit(backend: name, index: index)
        case .best, .kind, .backend:
            throw HostError.invalidSelection(text: text, reason: "not one unit (NAME:INDEX or reference)")
        }
    }

    /// The unit's index in its backend; nil for the reference interpreter.
    public var index: Int? {
        if case let .unit(_, index) = self { return index }
        return nil
    }

    /// The backend's name; "reference" for the interpreter, as reports spell it.
    public var backend: String {
        if case let .unit(name, _) = self { return name }
        return "reference"
    }

    /// The selection that runs exactly here.
    public var selection: UnitSelection {
        switch self {
        case .reference: return .reference
        case let .unit(name, index): return .backendUnit(name, index)
        }
    }

    public var description: String { selection.description }
}

extension UnitRef: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        do { self = try UnitRef(parsing: text) } catch {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
