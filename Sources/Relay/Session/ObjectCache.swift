// Released objects, kept so byte ranges, HEAD and objects that slid out of a live window are
// answered from the copy that was checked, never refetched unverified.

struct CachedObject: Sendable {
    /// The buffer the object was received and hashed in; served from in place.
    let bytes: SharedBytes
    let sha256: String
    let contentType: String

    init(bytes: SharedBytes, sha256: String, contentType: String) {
        self.bytes = bytes
        self.sha256 = sha256
        self.contentType = contentType
    }

    init(bytes: [UInt8], sha256: String, contentType: String) {
        self.init(bytes: SharedBytes(bytes), sha256: sha256, contentType: contentType)
    }
}

/// Least-recently-used under a byte budget. Not thread-safe: the session locks around it.
struct ObjectCache {
    let budget: Int
    private(set) var bytes = 0
    private var entries: [Int: (object: CachedObject, tick: UInt64)] = [:]
    private var tick: UInt64 = 0

    init(budget: Int) { self.budget = budget }

    var count: Int { entries.count }

    mutating func get(_ id: Int) -> CachedObject? {
        guard let e = entries[id] else { return nil }
        tick += 1
        entries[id] = (e.object, tick)
        return e.object
    }

    /// An object larger than the whole budget is served once and not kept. Returns the ids
    /// evicted to make room.
    @discardableResult
    mutating func put(_ id: Int, _ object: CachedObject) -> [Int] {
        guard object.bytes.count <= budget else { return [] }
        if let old = entries.removeValue(forKey: id) { bytes -= old.object.bytes.count }
        var evicted: [Int] = []
        while bytes + object.bytes.count > budget, let victim = entries.min(by: { $0.value.tick < $1.value.tick }) {
            entries.removeValue(forKey: victim.key)
            bytes -= victim.value.object.bytes.count
            evicted.append(victim.key)
        }
        tick += 1
        entries[id] = (object, tick)
        bytes += object.bytes.count
        return evicted
    }

    func contains(_ id: Int) -> Bool { entries[id] != nil }
}
