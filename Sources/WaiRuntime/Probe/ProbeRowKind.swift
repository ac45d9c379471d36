/// The `unit` column of a probe row (docs/cli.md, `waihost probe`): the unit's kind, or
/// `unknown` on a row of a plugin or folder that produced no unit. Spelled as `UnitKind`.
public enum ProbeRowKind: String, Codable, Sendable, CaseIterable {
    case cpu, gpu, other, unknown

    public init(_ kind: UnitKind) {
        switch kind {
        case .cpu: self = .cpu
        case .gpu: self = .gpu
        case .other: self = .other
        }
    }

    /// The unit's kind; nil on a row without a unit.
    public var kind: UnitKind? { UnitKind(rawValue: rawValue) }
}

extension ProbeRowKind: CustomStringConvertible {
    public var description: String { rawValue }
}

extension UnitKind: CustomStringConvertible {
    /// The JSON spelling, also in text output.
    public var description: String { rawValue }
}
