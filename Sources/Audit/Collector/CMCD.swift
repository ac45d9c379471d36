// CMCD reports (CTA-5004 / CTA-5004-B) as the collector accepts them: a key list in
// `GET ?CMCD=`, one key list per line in event mode (`application/cmcd`), or JSON objects.
// Each report must carry `sid` (string) and `sn` (integer): the deduplication key.
import Foundation

public enum CMCDLimits {
    public static let bodyBytes = 256 << 10
    public static let reportsPerRequest = 1000
    public static let reportBytes = 8192
    /// CTA-5004: a session ID is at most 64 characters.
    public static let sessionIDLength = 64
}

public enum CMCDError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooMany(count: Int, limit: Int)
    case tooLong(report: Int, bytes: Int, limit: Int)
    case syntax(report: Int, offset: Int, reason: String)
    case missingKey(report: Int, key: String)
    case badValue(report: Int, key: String, reason: String)
    /// A JSON body refused at `path` ("[2].sn").
    case json(path: String, reason: String)

    public var description: String {
        switch self {
        case .empty: return "CMCD: no report in the request"
        case .tooMany(let c, let l): return "CMCD: \(c) reports in one request (limit \(l))"
        case .tooLong(let r, let b, let l): return "CMCD report \(r): \(b) bytes (limit \(l))"
        case .syntax(let r, let o, let why): return "CMCD report \(r), offset \(o): \(why)"
        case .missingKey(let r, let k): return "CMCD report \(r): required key \(k) missing"
        case .badValue(let r, let k, let why): return "CMCD report \(r): key \(k): \(why)"
        case .json(let p, let why): return "CMCD JSON at \(p): \(why)"
        }
    }
}

public enum CMCDParser {
    /// Event mode: one key list per line (LF or CRLF); blank lines are skipped.
    public static func parseEventBody(_ body: [UInt8]) throws(CMCDError) -> [CMCDReport] {
        // Split on bytes: Swift treats CRLF as one Character, so a String split on "\n" misses it.
        let lines = body.split(separator: 0x0a, omittingEmptySubsequences: false)
            .map { $0.last == 0x0d ? $0.dropLast() : $0 }
            .filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw .empty }
        guard lines.count <= CMCDLimits.reportsPerRequest else {
            throw .tooMany(count: lines.count, limit: CMCDLimits.reportsPerRequest)
        }
        var out: [CMCDReport] = []
        for (i, line) in lines.enumerated() {
            guard let text = String(validating: line, as: UTF8.self) else {
                throw .syntax(report: i, offset: 0, reason: "not UTF-8")
            }
            out.append(try parseKeyList(text, report: i, event: true))
        }
        return out
    }

    /// One CMCD key list (`br=3200,sid="…",sn=4`), as sent in `?CMCD=` or one event line;
    /// `event`: also the event-mode rules (CMCDKeys.checkEvent).
    public static func parseKeyList(_ text: String, report: Int = 0, event: Bool = false) throws(CMCDError) -> CMCDReport {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= CMCDLimits.reportBytes else {
            throw .tooLong(report: report, bytes: bytes.count, limit: CMCDLimits.reportBytes)
        }
        var scanner = KeyListScanner(bytes: bytes, report: report)
        let pairs = try scanner.pairs()
        var sid: String?
        var sn: Int64?
        var values: [String: CMCDValue] = [:]
        for (key, value) in pairs {
            guard values.updateValue(value, forKey: key) == nil else {
                throw .badValue(report: report, key: key, reason: "appears twice")
            }
            try CMCDKeys.check(key, value, report: report)
            if key == "sid" {
                guard case .string(let s) = value else { throw .badValue(report: report, key: key, reason: "must be a quoted string") }
                sid = s
            } else if key == "sn" {
                guard case .integer(let n) = value else { throw .badValue(report: report, key: key, reason: "must be an integer") }
                sn = n
            }
        }
        if event { try CMCDKeys.checkEvent(values, report: report) }
        return try keyed(sid: sid, sn: sn, body: text, report: report)
    }

    /// A JSON object, or an array of them; each object's keys are CMCD keys. Parsed as strict
    /// I-JSON (the reader bundles use): duplicate keys, trailing commas, non-UTF-8 are refused.
    public static func parseJSONBody(_ body: [UInt8]) throws(CMCDError) -> [CMCDReport] {
        let root: IJSON
        do { root = try IJSON.parse(body, root: "") } catch {
            throw .json(path: error.path.isEmpty ? "$" : error.path, reason: "\(error.reason) (byte \(error.offset))")
        }
        let list: [(IJSON, String)]
        switch root {
        case .object: list = [(root, "$")]
        case .array(let a): list = a.enumerated().map { ($1, "[\($0)]") }
        default: throw .json(path: "$", reason: "not a JSON object or array of objects")
        }
        guard !list.isEmpty else { throw .empty }
        guard list.count <= CMCDLimits.reportsPerRequest else {
            throw .tooMany(count: list.count, limit: CMCDLimits.reportsPerRequest)
        }
        var out: [CMCDReport] = []
        for (i, (value, path)) in list.enumerated() {
            guard case .object(let object) = value else { throw .json(path: path, reason: "not a JSON object") }
            var sid: String?
            var sn: Int64?
            var sorted = IJSONObject()
            var values: [String: CMCDValue] = [:]
            for m in object.members.sorted(by: { $0.name < $1.name }) {
                let at = path == "$" ? m.name : path + "." + m.name
                guard isKey(Array(m.name.utf8)) else { throw .json(path: at, reason: "\(m.name) is not a CMCD key") }
                let v = CMCDKeys.fromJSON(m.name, try CMCDValue(json: m.value, path: at))
                try CMCDKeys.check(m.name, v, report: i)
                values[m.name] = v
                if m.name == "sid", case .string(let s) = v { sid = s }
                if m.name == "sn", case .integer(let n) = v { sn = n }
                _ = sorted.add(m.name, m.value)
            }
            if values["e"] != nil { try CMCDKeys.checkEvent(values, report: i) }
            let canonical = IJSON.object(sorted).encoded
            guard canonical.utf8.count <= CMCDLimits.reportBytes else {
                throw .tooLong(report: i, bytes: canonical.utf8.count, limit: CMCDLimits.reportBytes)
            }
            out.append(try keyed(sid: sid, sn: sn, body: canonical, report: i))
        }
        return out
    }

    private static func keyed(sid: String?, sn: Int64?, body: String, report: Int) throws(CMCDError) -> CMCDReport {
        guard let sid = sid else { throw .missingKey(report: report, key: "sid") }
        guard let sn = sn else { throw .missingKey(report: report, key: "sn") }
        guard !sid.isEmpty, sid.count <= CMCDLimits.sessionIDLength else {
            throw .badValue(report: report, key: "sid", reason: "must be 1 to \(CMCDLimits.sessionIDLength) characters")
        }
        guard sn >= 0 else { throw .badValue(report: report, key: "sn", reason: "must not be negative") }
        return CMCDReport(sessionID: sid, sequence: sn, body: body)
    }

    /// sf-key (RFC 8941): lowercase letter or `*`, then lowercase letters, digits, `_-.*`.
    static func isKey(_ k: [UInt8]) -> Bool {
        guard let first = k.first, (first >= 0x61 && first <= 0x7a) || first == 0x2a, k.count <= 64 else { return false }
        return k.dropFirst().allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || "_-.*".utf8.contains($0) }
    }
}

/// A CMCD value in key-list form.
enum CMCDValue: Equatable {
    case integer(Int64), decimal(String), string(String), token(String), boolean(Bool), list([CMCDValue])

    /// The JSON form (CTA-5004 §3.3 JSON): numbers, strings, booleans, arrays of them. A JSON
    /// string stands for a string or a token; CMCDKeys tells which the key wants.
    init(json: IJSON, path: String) throws(CMCDError) {
        switch json {
        case .bool(let b): self = .boolean(b)
        case .string(let s): self = .string(s)
        case .number(let n):
            if let i = n.integer { self = .integer(i) }
            else if !n.text.contains(where: { $0 == "e" || $0 == "E" }) { self = .decimal(n.text) }
            else { throw .json(path: path, reason: "number \(n.text) with an exponent") }
        case .array(let a):
            var items: [CMCDValue] = []
            for (i, e) in a.enumerated() {
                if case .array = e { throw .json(path: "\(path)[\(i)]", reason: "nested list") }
                items.append(try CMCDValue(json: e, path: "\(path)[\(i)]"))
            }
            self = .list(items)
        case .null, .object: throw .json(path: path, reason: "CMCD values are numbers, strings, booleans or lists")
        }
    }
}

/// Reads `key[=value]` pairs separated by commas (RFC 8941 dictionary syntax without parameters).
struct KeyListScanner {
    let bytes: [UInt8]
    let report: Int
    var i = 0

    init(bytes: [UInt8], report: Int) {
        self.bytes = bytes
        self.report = report
    }

    mutating func pairs() throws(CMCDError) -> [(String, CMCDValue)] {
        var out: [(String, CMCDValue)] = []
        while true {
            let start = i
            while i < bytes.count, bytes[i] != 0x3d, bytes[i] != 0x2c { i += 1 }
            let key = Array(bytes[start..<i])
            guard CMCDParser.isKey(key) else { throw fail(start, "expected a key (lowercase letters, digits, _-.*)") }
            let value: CMCDValue
            if i < bytes.count, bytes[i] == 0x3d {
                i += 1
                value = try item(allowList: true)
            } else {
                value = .boolean(true)
            }
            out.append((String(decoding: key, as: UTF8.self), value))
            if i == bytes.count { return out }
            guard bytes[i] == 0x2c else { throw fail(i, "expected ',' between keys") }
            i += 1
            guard i < bytes.count else { throw fail(i, "key list ends with ','") }
        }
    }

    /// An item or inner list, then its parameters (`;key` or `;key=value`, RFC 8941 §3.1.2),
    /// which CMCD v2 uses for object types in lists (`br=(3200;v 128;a)`).
    private mutating func item(allowList: Bool) throws(CMCDError) -> CMCDValue {
        let v = try bareItem(allowList: allowList)
        while i < bytes.count, bytes[i] == 0x3b {
            i += 1
            let start = i
            while i < bytes.count, bytes[i] != 0x3d, bytes[i] != 0x3b, bytes[i] != 0x2c, bytes[i] != 0x20, bytes[i] != 0x29 { i += 1 }
            guard CMCDParser.isKey(Array(bytes[start..<i])) else { throw fail(start, "expected a parameter key") }
            if i < bytes.count, bytes[i] == 0x3d {
                i += 1
                let p = try bareItem(allowList: false)
                if case .list = p { throw fail(i, "a parameter value cannot be a list") }
            }
        }
        return v
    }

    private mutating func bareItem(allowList: Bool) throws(CMCDError) -> CMCDValue {
        guard i < bytes.count else { throw fail(i, "value missing") }
        let c = bytes[i]
        if c == 0x22 { return try string() }
        if c == 0x3f { // ?0 / ?1
            guard i + 1 < bytes.count, bytes[i + 1] == 0x30 || bytes[i + 1] == 0x31 else { throw fail(i, "boolean must be ?0 or ?1") }
            i += 2
            return .boolean(bytes[i - 1] == 0x31)
        }
        if c == 0x2d || (c >= 0x30 && c <= 0x39) { return try number() }
        if c == 0x28 {
            guard allowList else { throw fail(i, "nested list") }
            i += 1
            var items: [CMCDValue] = []
            while true {
                while i < bytes.count, bytes[i] == 0x20 { i += 1 }
                guard i < bytes.count else { throw fail(i, "list not closed") }
                if bytes[i] == 0x29 { i += 1; return .list(items) }
                items.append(try item(allowList: false))
                guard i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x29 else { throw fail(i, "expected ' ' or ')' in list") }
            }
        }
        if (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2a {
            let start = i
            i += 1
            while i < bytes.count, isTokenChar(bytes[i]) { i += 1 }
            return .token(String(decoding: bytes[start..<i], as: UTF8.self))
        }
        throw fail(i, "unexpected character in value")
    }

    private mutating func string() throws(CMCDError) -> CMCDValue {
        let start = i
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == 0x22 { return .string(String(decoding: out, as: UTF8.self)) }
            if c == 0x5c {
                guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x5c else { throw fail(i, "only \\\" and \\\\ may be escaped") }
                out.append(bytes[i])
                i += 1
            } else {
                guard c >= 0x20, c < 0x7f else { throw fail(i - 1, "strings are printable ASCII") }
                out.append(c)
            }
        }
        throw fail(start, "string not closed (truncated?)")
    }

    private mutating func number() throws(CMCDError) -> CMCDValue {
        let start = i
        if bytes[i] == 0x2d { i += 1 }
        let digitsStart = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > digitsStart else { throw fail(start, "number without digits") }
        if i < bytes.count, bytes[i] == 0x2e {
            i += 1
            let fracStart = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            guard i > fracStart, i - fracStart <= 3, fracStart - 1 - digitsStart <= 12 else { throw fail(start, "malformed decimal") }
            return .decimal(String(decoding: bytes[start..<i], as: UTF8.self))
        }
        guard i - digitsStart <= 15, let n = Int64(String(decoding: bytes[start..<i], as: UTF8.self)) else {
            throw fail(start, "integer longer than 15 digits")
        }
        return .integer(n)
    }

    private func isTokenChar(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)
            || "!#$%&'*+-.^_`|~:/".utf8.contains(c)
    }

    private func fail(_ offset: Int, _ reason: String) -> CMCDError {
        .syntax(report: report, offset: offset, reason: reason)
    }
}
