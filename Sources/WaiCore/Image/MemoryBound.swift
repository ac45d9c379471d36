#if canImport(Glibc)
import Glibc
#endif

/// The memory a picture may make the host hold (docs/capabilities/int_hyper.md §3.1): 1 GiB,
/// or `WAIHOST_MEMORY_LIMIT_MIB` MiB when set (at least 320 MiB); a quarter of it bounds
/// one tile's graph (`TileBudget.standard`). The PNG reader's bound on decoded rows and the codec's bound on a whole
/// decode or encode are this one number, so neither admits what the other refuses.
public enum MemoryBound {
    public static let defaultBytes = 1 << 30
    static let smallestBytes = 320 << 20

    public static var bytes: Int {
        if let text = getenv("WAIHOST_MEMORY_LIMIT_MIB").map({ String(cString: $0) }), let mib = Int(text), mib > 0,
           mib <= 1 << 24 {
            return max(mib << 20, smallestBytes)
        }
        return defaultBytes
    }
}
