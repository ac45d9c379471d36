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

    public var description: String {
        switch self {
        case .empty: return "CMCD: no report in the request"
        case .tooMany(let c, let l): return "CMCD: \(c) reports in one request (limit \(l))"
        case .tooLong(let r, let b, let l): return "CMCD report \(r): \(b) bytes (limit \(l))"
        case .syntax(let r, let o, let why): return "CMCD report \(r), offset \(o): \(why)"
        case .missingKey(let r, let k): return "CMCD report \(r): required key \(k) missing"
        case .badValue(let r, let k, let why): return "CMCD report \(r): key \(k): \(why)"
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
            out.append(try parseKeyList(text, report: i))
        }
        return out
    }

    /// One CMCD key list (`br=3200,sid="…",sn=4`), as sent in `?CMCD=` or one event line.
    public static func parseKeyList(_ text: String, report: Int = 0) throws(CMCDError) -> CMCDReport {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= CMCDLimits.reportBytes else {
            throw .tooLong(report: report, bytes: bytes.count, limit: CMCDLimits.reportBytes)
        }
        var scanner = KeyListScanner(bytes: bytes, report: report)
        let pairs = try scanner.pairs()
        var sid: String?
        var sn: Int64?
        var seen = Set<String>()
        for (key, value) in pairs {
            guard seen.insert(key).inserted else {
                throw .badValue(report: report, key: key, reason: "appears twice")
            }
            if key == "sid" {
                guard case .string(let s) = value else { throw .badValue(report: report, key: key, reason: "must be a quoted string") }
                sid = s
            } else if key == "sn" {
                guard case .integer(let n) = value else { throw .badValue(report: report, key: key, reason: "must be an integer") }
                sn = n
            }
        }
        return try keyed(sid: sid, sn: sn, body: text, report: report)
    }

    /// A JSON object, or an array of them; each object's keys are CMCD keys.
    public static func parseJSONBody(_ body: [UInt8]) throws(CMCDError) -> [CMCDReport] {
        let list: [[String: JSONValue]]
        if let one = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body)) {
            list = [one]
        } else if let many = try? JSONDecoder().decode([[String: JSONValue]].self, from: Data(body)) {
            list = many
        } else {
            throw .syntax(report: 0, offset: 0, reason: "not a JSON object or array of objects (truncated?)")
        }
        guard !list.isEmpty else { throw .empty }
        guard list.count <= CMCDLimits.reportsPerRequest else {
            throw .tooMany(count: list.count, limit: CMCDLimits.reportsPerRequest)
        }
        var out: [CMCDReport] = []
        for (i, object) in list.enumerated() {
            var sid: String?
            var sn: Int64?
            for (key, value) in object {
                guard isKey(Array(key.utf8)) else { throw .syntax(report: i, offset: 0, reason: "\(key) is not a CMCD key") }
                if key == "sid" {
                    guard case .string(let s) = value else { throw .badValue(report: i, key: key, reason: "must be a string") }
                    sid = s
                } else if key == "sn" {
                    guard case .integer(let n) = value else { throw .badValue(report: i, key: key, reason: "must be an integer") }
                    sn = n
                }
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let canonical = try? encoder.encode(object) else {
                throw .badValue(report: i, key: "", reason: "not representable as JSON")
            }
            guard canonical.count <= CMCDLimits.reportBytes else {
                throw .tooLong(report: i, bytes: canonical.count, limit: CMCDLimits.reportBytes)
            }
            out.append(try keyed(sid: sid, sn: sn, body: String(decoding: canonical, as: UTF8.self), report: i))
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

/// A JSON value that keeps booleans, integers and other numbers apart.
enum JSONValue: Codable, Equatable {
    case bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "CMCD values are booleans, numbers, strings or lists") }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        }
    }
}

/// A CMCD value in key-list form.
enum CMCDValue: Equatable {
    case integer(Int64), decimal(String), string(String), token(String), boolean(Bool), list([CMCDValue])
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

    private mutating func item(allowList: Bool) throws(CMCDError) -> CMCDValue {
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
