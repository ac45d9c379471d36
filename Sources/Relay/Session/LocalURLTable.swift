// The map between relay-local paths and origin URLs. The player can reach only what a
// playlist the relay served listed (or the entry playlist): the relay is no open proxy.

struct OriginTarget: Sendable, Equatable {
    let id: Int
    /// Absolute, CMCD removed.
    let url: String
    let kind: ObjectEvent.Kind
    /// The last path segment of `url`, kept so players that choose a demuxer by extension
    /// (ffmpeg's hls demuxer does) see the origin's name.
    let name: String

    var localPath: String { "/r/\(id)/\(name)" }
}

/// Not thread-safe: the session locks around it.
///
/// Pruned as live windows slide (docs/relay.md, "Memory"): an object stays while one of the
/// last `retainedRevisions` revisions of some playlist lists it, or while the cache holds its
/// checked copy; ids are never reused, so a stale local URL never names another object.
struct LocalURLTable {
    static let retainedRevisions = 2

    private var byID: [Int: OriginTarget] = [:]
    private var byURL: [String: Int] = [:]
    private var nextID = 0
    /// How many retained revisions list each id.
    private var listed: [Int: Int] = [:]
    /// Per playlist id, the ids each retained revision listed, oldest first.
    private var revisions: [Int: [[Int]]] = [:]
    /// Ids pinned whatever lists them: the entry playlist.
    private var pinned: Set<Int> = []

    var count: Int { byID.count }

    mutating func register(url: String, kind: ObjectEvent.Kind) -> OriginTarget {
        let key = (kind == .playlist ? "p " : "o ") + url
        if let id = byURL[key], let t = byID[id] { return t }
        let target = OriginTarget(id: nextID, url: url, kind: kind, name: Self.name(of: url))
        nextID += 1
        byID[target.id] = target
        byURL[key] = target.id
        return target
    }

    mutating func pin(_ id: Int) { pinned.insert(id) }

    /// Records that playlist `playlistID` now lists `ids`; returns the ids no retained
    /// revision lists any more (the caller drops those whose copy it does not keep).
    mutating func released(playlist playlistID: Int, listing ids: [Int]) -> [Int] {
        var revs = revisions[playlistID] ?? []
        revs.append(ids)
        for id in Set(ids) { listed[id, default: 0] += 1 }
        var unlisted: [Int] = []
        while revs.count > Self.retainedRevisions {
            for id in Set(revs.removeFirst()) {
                let n = (listed[id] ?? 1) - 1
                if n <= 0 { listed[id] = nil; unlisted.append(id) } else { listed[id] = n }
            }
        }
        revisions[playlistID] = revs
        return unlisted
    }

    func isListed(_ id: Int) -> Bool { listed[id] != nil || pinned.contains(id) }

    /// Forgets `id` unless a retained revision lists it. Returns whether it was removed.
    @discardableResult
    mutating func remove(_ id: Int) -> Bool {
        guard !isListed(id), let t = byID.removeValue(forKey: id) else { return false }
        byURL[(t.kind == .playlist ? "p " : "o ") + t.url] = nil
        revisions[id] = nil
        return true
    }

    func target(_ id: Int) -> OriginTarget? { byID[id] }

    /// The target for a local path `/r/<id>/<name>`; nil for anything else.
    func lookup(path: Substring) -> OriginTarget? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "r", let id = Int(parts[2]),
              let t = byID[id], t.name == parts[3] else { return nil }
        return t
    }

    /// The file name: letters, digits, '.', '-', '_' kept, anything else made '_'.
    static func name(of url: String) -> String {
        var path = Substring(url)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        // The authority is no file name: "http://h/" has none.
        if let scheme = path.range(of: "://") {
            let afterAuthority = path[scheme.upperBound...]
            path = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? ""
        }
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let cleaned = String(last.map { c -> Character in
            c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "-" || c == "_") ? c : "_"
        })
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "object" + cleaned : cleaned
    }
}

/// Common Media Client Data (CTA-5004) travels as a `CMCD=` query parameter; it says what the
/// player was doing, not which object it wants, so it is dropped before an URL names an object.
public func removingCMCD(_ url: String) -> String {
    guard let q = url.firstIndex(of: "?") else { return url }
    var query = Substring(url[url.index(after: q)...])
    var fragment = ""
    if let h = query.firstIndex(of: "#") {
        fragment = String(query[h...])
        query = query[..<h]
    }
    let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter {
        !($0 == "CMCD" || $0.hasPrefix("CMCD="))
    }
    let base = String(url[..<q])
    return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&")) + fragment
}
