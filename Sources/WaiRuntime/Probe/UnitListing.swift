/// The units as listed without probing (`BackendHost.listUnits`, `waihost probe --list`):
/// each row with its cached verdict when there is one.
public struct UnitListing: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The row as `probe` would give it; for a unit not probed yet, state `failed` with
        /// reason "not probed" — read `probed`.
        public var record: UnitProbeRecord
        /// False for a unit with no cached verdict (its row is only listed).
        public var probed: Bool
        /// The unit's key in the probe cache (docs/probe.md, "Cache"); nil on rows without a unit.
        public var cacheKey: String?

        public init(record: UnitProbeRecord, probed: Bool, cacheKey: String?) {
            self.record = record; self.probed = probed; self.cacheKey = cacheKey
        }
    }

    public var entries: [Entry]
    /// The probe cache file consulted; nil when the host has no cache.
    public var cacheFile: String?
    public var warnings: [String]

    public init(entries: [Entry], cacheFile: String?, warnings: [String]) {
        self.entries = entries; self.cacheFile = cacheFile; self.warnings = warnings
    }
}
