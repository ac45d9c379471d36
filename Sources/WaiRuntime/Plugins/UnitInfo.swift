import BackendABI

/// What kind of hardware a unit is (wai_unit_kind). Its raw value is the word used in
/// reports, JSON and `--unit` selections.
public enum UnitKind: String, Codable, Sendable, CaseIterable {
    case cpu, gpu, other

    init?(abi raw: UInt32) {
        switch raw {
        case WAI_UNIT_CPU.rawValue: self = .cpu
        case WAI_UNIT_GPU.rawValue: self = .gpu
        case WAI_UNIT_OTHER.rawValue: self = .other
        default: return nil
        }
    }
}

/// One unit a backend offers, as its unit_info call described it.
public struct UnitInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var kind: UnitKind
    public var device: String
    /// Driver name and version: part of the probe cache key, so a driver update re-probes.
    public var driver: String
    public var narrowStorage: Bool

    public init(index: Int, kind: UnitKind, device: String, driver: String, narrowStorage: Bool) {
        self.index = index; self.kind = kind; self.device = device
        self.driver = driver; self.narrowStorage = narrowStorage
    }
}
