// The CMCD key table the collector checks reports against and the relay's sender writes by
// (docs/collector.md §CMCD rules): CTA-5004-B Table 1 — each key's type, its allowed tokens,
// the keys an event type requires and the keys only one event type may carry. Custom keys
// (a `-` in the name, CTA-5004 §3.2) are accepted with any value.

enum CMCDKeyType: Equatable {
    case integer, decimal, boolean
    /// A quoted string of at most `max` characters.
    case string(max: Int)
    case token(Set<String>)
    /// An integer, or (CMCD v2) an inner list of integers, each optionally with an object-type parameter.
    case integerList
    /// An inner list of strings (or one string).
    case stringList
}

struct CMCDKeySpec {
    var type: CMCDKeyType
    /// The event type this key may appear with only (`url` only on `rr`).
    var onlyOn: String?
}

enum CMCDKeys {
    /// The event types of the `e` key (CTA-5004-B §3.4 Table 2).
    static let events: Set<String> = ["abs", "abe", "ae", "as", "b", "bc", "c", "ce", "e", "h", "m", "pc", "pe",
                                      "pr", "ps", "rr", "sk", "t", "um"]
    /// Player states of `sta`: starting, playing, seeking, rebuffering, paused, waiting, ended,
    /// fatal error, quit, preloading.
    static let playerStates: Set<String> = ["s", "p", "k", "r", "a", "w", "e", "f", "q", "d"]

    static let table: [String: CMCDKeySpec] = {
        func k(_ t: CMCDKeyType, only: String? = nil) -> CMCDKeySpec { CMCDKeySpec(type: t, onlyOn: only) }
        return [
            "ab": k(.integerList), "bg": k(.boolean), "bl": k(.integerList), "br": k(.integerList), "bs": k(.boolean),
            "bsa": k(.integerList), "bsd": k(.integerList), "bsda": k(.integerList), "cdn": k(.string(max: 128)),
            "cen": k(.string(max: 64), only: "ce"), "cid": k(.string(max: 128)), "cmsdd": k(.string(max: 8192), only: "rr"),
            "cmsds": k(.string(max: 8192), only: "rr"), "cs": k(.string(max: 8192)), "d": k(.integer), "dfa": k(.integer),
            "dl": k(.integer), "e": k(.token(events)), "ec": k(.stringList), "h": k(.string(max: 128)),
            "lab": k(.integerList), "lb": k(.integerList), "ltc": k(.integer), "msd": k(.integer), "mtp": k(.integerList),
            "nor": k(.stringList), "nr": k(.boolean), "nrr": k(.string(max: 8192)),
            "ot": k(.token(["m", "a", "v", "av", "i", "c", "tt", "k", "o"])), "pb": k(.integerList), "pr": k(.decimal),
            "pt": k(.integer), "rc": k(.integer, only: "rr"), "rtp": k(.integer), "sf": k(.token(["d", "h", "e", "s", "o"])),
            "sid": k(.string(max: 64)), "smrt": k(.string(max: 8192), only: "rr"), "sn": k(.integer),
            "st": k(.token(["v", "l", "ll"])), "sta": k(.token(playerStates)), "su": k(.boolean), "tab": k(.integerList),
            "tb": k(.integerList), "tbl": k(.integerList), "tpb": k(.integerList), "ts": k(.integer),
            "ttfb": k(.integer, only: "rr"), "ttfbb": k(.integer, only: "rr"), "ttlb": k(.integer, only: "rr"),
            "url": k(.string(max: 8192), only: "rr"), "v": k(.integer),
        ]
    }()

    /// Keys an event type requires besides the ones every event report carries (`e`, `ts`, `v`).
    static let requiredOn: [String: String] = ["ps": "sta", "e": "ec", "rr": "url", "b": "bg", "bc": "br",
                                               "c": "cid", "ce": "cen", "h": "h", "pr": "pr"]

    static func isCustom(_ key: String) -> Bool { key.contains("-") }

    /// JSON has no tokens: a JSON string is the token where the key takes a token.
    static func fromJSON(_ key: String, _ value: CMCDValue) -> CMCDValue {
        if case .token? = table[key]?.type, case .string(let s) = value { return .token(s) }
        return value
    }

    /// Checks one key's value against the table.
    static func check(_ key: String, _ value: CMCDValue, report: Int) throws(CMCDError) {
        if isCustom(key) { return }
        guard let spec = table[key] else {
            throw .badValue(report: report, key: key, reason: "not a key of CTA-5004-B (custom keys carry a '-')")
        }
        func bad(_ why: String) -> CMCDError { .badValue(report: report, key: key, reason: why) }
        switch (spec.type, value) {
        case (.integer, .integer(let n)), (.integerList, .integer(let n)):
            guard n >= 0 else { throw bad("must not be negative") }
        case (.integer, _): throw bad("must be an integer")
        case (.decimal, .integer(let n)):
            guard n >= 0 else { throw bad("must not be negative") }
        case (.decimal, .decimal(let d)):
            guard !d.hasPrefix("-") else { throw bad("must not be negative") }
        case (.decimal, _): throw bad("must be a decimal")
        case (.boolean, .boolean): break
        case (.boolean, _): throw bad("must be a boolean (?0, ?1 or the bare key)")
        case (.string(let max), .string(let s)):
            guard !s.isEmpty, s.count <= max else { throw bad("must be 1 to \(max) characters") }
        case (.string, _): throw bad("must be a quoted string")
        case (.token(let allowed), .token(let t)):
            guard allowed.contains(t) else { throw bad("unknown value '\(t)' (expected one of \(allowed.sorted().joined(separator: ", ")))") }
        case (.token, _): throw bad("must be a token")
        case (.integerList, .list(let items)):
            for i in items {
                guard case .integer(let n) = i, n >= 0 else { throw bad("list items must be non-negative integers") }
            }
        case (.integerList, _): throw bad("must be an integer or an inner list of integers")
        case (.stringList, .string(let s)):
            guard !s.isEmpty else { throw bad("must not be empty") }
        case (.stringList, .list(let items)):
            for i in items {
                guard case .string(let s) = i, !s.isEmpty else { throw bad("list items must be non-empty strings") }
            }
        case (.stringList, _): throw bad("must be a string or an inner list of strings")
        }
    }

    /// The event-mode rules (CTA-5004-B §3.4): `e`, `ts` and `v`=2 in every report, the keys
    /// the event type requires, and no key reserved for another event type.
    static func checkEvent(_ values: [String: CMCDValue], report: Int) throws(CMCDError) {
        for key in ["e", "ts", "v"] where values[key] == nil { throw .missingKey(report: report, key: key) }
        guard values["v"] == .integer(2) else { throw .badValue(report: report, key: "v", reason: "event mode is CMCD version 2") }
        guard case .token(let event)? = values["e"] else { throw .badValue(report: report, key: "e", reason: "must be a token") }
        if let required = requiredOn[event], values[required] == nil {
            throw .badValue(report: report, key: required, reason: "required on e=\(event) events")
        }
        for (key, _) in values {
            if let only = table[key]?.onlyOn, only != event {
                throw .badValue(report: report, key: key, reason: "only allowed on e=\(only) events")
            }
        }
    }
}
