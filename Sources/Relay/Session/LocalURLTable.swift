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
struct LocalURLTable {
    private var byID: [OriginTarget] = []
    private var byURL: [String: Int] = [:]

    mutating func register(url: String, kind: ObjectEvent.Kind) -> OriginTarget {
        let key = (kind == .playlist ? "p " : "o ") + url
        if let id = byURL[key] { return byID[id] }
        let target = OriginTarget(id: byID.count, url: url, kind: kind, name: Self.name(of: url))
        byID.append(target)
        byURL[key] = target.id
        return target
    }

    /// The target for a local path `/r/<id>/<name>`; nil for anything else.
    func lookup(path: String) -> OriginTarget? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "r", let id = Int(parts[2]),
              id >= 0, id < byID.count, byID[id].name == parts[3] else { return nil }
        return byID[id]
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
