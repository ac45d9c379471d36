/// Which units the host may use (docs/configuration.md §4), as GGML_VK_VISIBLE_DEVICES does
/// for devices: a unit left out is never probed, listed or run on, and keeps its index.
public struct UnitFilter: Equatable, Sendable {
    /// Units never used.
    public var hide: [UnitSelection]
    /// When set, the only units used (less those hidden).
    public var visible: [UnitSelection]?

    public init(hide: [UnitSelection] = [], visible: [UnitSelection]? = nil) {
        self.hide = hide; self.visible = visible
    }

    public static let all = UnitFilter()

    public func admits(backend: String, index: Int, kind: UnitKind) -> Bool {
        let named = { (s: UnitSelection) in s.names(backend: backend, index: index, kind: kind) }
        if hide.contains(where: named) { return false }
        return visible.map { $0.contains(where: named) } ?? true
    }
}

extension UnitSelection {
    /// Whether this word names the unit: its kind, its backend, or exactly it.
    func names(backend: String, index: Int, kind: UnitKind) -> Bool {
        switch self {
        case .kind(let k): return k == kind
        case .backend(let name): return name == backend
        case .backendUnit(let name, let i): return name == backend && i == index
        case .best, .reference: return false
        }
    }
}
