// The one JSON reader for everything the audit and the collector trust: signed payloads,
// bundles, acknowledgements and CMCD JSON bodies (docs/audit-bundle.md §2.1). Strict I-JSON
// (RFC 7493): UTF-8 only, no duplicate member names, no surrogate or noncharacter code
// points, no trailing commas or trailing bytes, bounded nesting. Foundation's reader accepts
// duplicates (one reader takes the first value, another the last) and UTF-16, so two readers
// of the same signed bytes could disagree; this one gives every input one meaning or none,
// and names the JSON path of what it refuses.

import WaiSupport

/// A parsed I-JSON value. Objects keep their members in order; names are unique.
public enum IJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(IJSONNumber)
    case string(String)
    case array([IJSON])
    case object(IJSONObject)

    /// The largest integer every I-JSON reader represents exactly (RFC 7493 §2.2).
    public static let maxSafeInteger: Int64 = (1 << 53) - 1
    public static let maxDepth = 32

    /// Parses `bytes` as one I-JSON text; `root` names it in errors ("bundle", "records[2].payload").
    public static func parse(_ bytes: [UInt8], root: String) throws(IJSONError) -> IJSON {
        var p = IJSONParser(bytes: bytes)
        return try p.document(root: root)
    }

    /// `base.name`; a member of the unnamed root is just `name`.
    static func member(_ base: String, _ name: String) -> String { base.isEmpty ? name : base + "." + name }

    /// The JSON spelling: members in their order, no whitespace, only the escapes JSON requires.
    public var encoded: String {
        var out = ""
        IJSON.write(self, into: &out)
        return out
    }

    private static func write(_ v: IJSON, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.text
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() { if i > 0 { out += "," }; write(e, into: &out) }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, m) in o.members.enumerated() {
                if i > 0 { out += "," }
                writeString(m.name, into: &out)
                out += ":"
                write(m.value, into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += JSONCoding.quoted(s)
    }
}

/// A number as written, with its integer value when it is written as an integer in range.
public struct IJSONNumber: Equatable, Sendable {
    public let text: String
    /// Set when `text` has no fraction or exponent and its magnitude is ≤ 2^53 − 1.
    public let integer: Int64?
}

/// An object's members in order, names unique.
public struct IJSONObject: Equatable, Sendable {
    public private(set) var members: [(name: String, value: IJSON)] = []
    /// Built only past `linearLimit` members: the objects the audit reads have a dozen at most,
    /// and comparing a few short names costs less than hashing each into a dictionary.
    private var index: [String: Int]?
    private static let linearLimit = 16

    public subscript(name: String) -> IJSON? {
        if let index { return index[name].map { members[$0].value } }
        return members.first(where: { $0.name == name })?.value
    }
    public var names: [String] { members.map { $0.name } }

    /// False (and nothing added) when `name` is already there.
    mutating func add(_ name: String, _ value: IJSON) -> Bool {
        if index != nil {
            guard index?[name] == nil else { return false }
            index?[name] = members.count
        } else {
            guard !members.contains(where: { $0.name == name }) else { return false }
            if members.count == Self.linearLimit {
                index = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.name, $0) })
                index?[name] = members.count
            }
        }
        members.append((name, value))
        return true
    }

    public static func == (a: IJSONObject, b: IJSONObject) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

public struct IJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JSON path of the value at fault ("records[3].payload.seq").
    public var path: String
    /// Byte offset in the text parsed.
    public var offset: Int
    public var reason: String
    public var description: String { "\(path.isEmpty ? "JSON text" : path): \(reason) (byte \(offset))" }
}

/// A value's JSON path, spelled only when an error names it: building "records[3].payload.ack.uri"
/// for every member read cost more than reading most members (docs/collector.md §Throughput).
private typealias IJSONPath = () -> String

private struct IJSONParser {
    let bytes: [UInt8]
    var i = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document(root: String) throws(IJSONError) -> IJSON {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.prefix(4).contains(0) {
            throw IJSONError(path: root, offset: 0, reason: "not UTF-8 JSON (a byte-order mark, or UTF-16/UTF-32)")
        }
        skipSpace()
        let v = try value(path: { root }, depth: 0)
        skipSpace()
        guard i == bytes.count else { throw fail({ root }, "bytes after the JSON value") }
        return v
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    private func fail(_ path: IJSONPath, _ reason: String) -> IJSONError { IJSONError(path: path(), offset: i, reason: reason) }

    private mutating func value(path: IJSONPath, depth: Int) throws(IJSONError) -> IJSON {
        guard i < bytes.count else { throw fail(path, "value missing (truncated?)") }
        switch bytes[i] {
        case 0x7B: // {
            guard depth < IJSON.maxDepth else { throw fail(path, "nested deeper than \(IJSON.maxDepth)") }
            i += 1
            var o = IJSONObject()
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D { i += 1; return .object(o) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x22 else { throw fail(path, "expected a member name in quotes") }
                let nameAt = i
                let name = try string(path: path)
                func memberPath() -> String { IJSON.member(path(), name) }
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3A else { throw fail(memberPath, "expected ':'") }
                i += 1
                skipSpace()
                let v = try value(path: memberPath, depth: depth + 1)
                guard o.add(name, v) else {
                    throw IJSONError(path: memberPath(), offset: nameAt, reason: "duplicate member name (RFC 7493 §2.3)")
                }
                skipSpace()
                guard i < bytes.count else { throw fail(path, "object not closed (truncated?)") }
                if bytes[i] == 0x7D { i += 1; return .object(o) }
                guard bytes[i] == 0x2C else { throw fail(path, "expected ',' or '}'") }
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == 0x7D { throw fail(path, "trailing comma") }
            }
        case 0x5B: // [
            guard depth < IJSON.maxDepth else { throw fail(path, "nested deeper than \(IJSON.maxDepth)") }
            i += 1
            var a: [IJSON] = []
            skipSpace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return .array(a) }
            while true {
                skipSpace()
                let index = a.count
                func elementPath() -> String { "\(path())[\(index)]" }
                a.append(try value(path: elementPath, depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail(path, "array not closed (truncated?)") }
                if bytes[i] == 0x5D { i += 1; return .array(a) }
                guard bytes[i] == 0x2C else { throw fail(path, "expected ',' or ']'") }
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == 0x5D { throw fail(path, "trailing comma") }
            }
        case 0x22: return .string(try string(path: path))
        case 0x74: try literal("true", path); return .bool(true)
        case 0x66: try literal("false", path); return .bool(false)
        case 0x6E: try literal("null", path); return .null
        case 0x2D, 0x30...0x39: return .number(try number(path: path))
        case let c where c >= 0x80: throw fail(path, "not UTF-8 JSON (byte 0x\(String(c, radix: 16)) outside a string)")
        default: throw fail(path, "unexpected character '\(Character(Unicode.Scalar(bytes[i])))'")
        }
    }

    private mutating func literal(_ word: String, _ path: IJSONPath) throws(IJSONError) {
        let w = Array(word.utf8)
        guard bytes.count - i >= w.count, Array(bytes[i..<i + w.count]) == w else { throw fail(path, "expected \(word)") }
        i += w.count
    }

    private mutating func number(path: IJSONPath) throws(IJSONError) -> IJSONNumber {
        let start = i
        if bytes[i] == 0x2D { i += 1 }
        guard i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw fail(path, "malformed number") }
        if bytes[i] == 0x30 {
            i += 1
            if i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { throw fail(path, "leading zero in a number") }
        } else {
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        }
        var integral = true
        if i < bytes.count, bytes[i] == 0x2E {
            integral = false
            i += 1
            let f = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            guard i > f else { throw fail(path, "malformed number: no digits after '.'") }
        }
        if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
            integral = false
            i += 1
            if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            let e = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            guard i > e else { throw fail(path, "malformed number: no exponent digits") }
        }
        guard i - start <= 40 else { throw IJSONError(path: path(), offset: start, reason: "number longer than 40 characters") }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        var integer: Int64?
        if integral, let n = Int64(text), n >= -IJSON.maxSafeInteger, n <= IJSON.maxSafeInteger { integer = n }
        return IJSONNumber(text: text, integer: integer)
    }

    private mutating func string(path: IJSONPath) throws(IJSONError) -> String {
        i += 1 // opening quote
        // Fast path: no escape before the closing quote (base64 payloads, hex, most names):
        // one validation of the whole run instead of one scalar at a time.
        var j = i, bits: UInt8 = 0
        let n = bytes.count
        while j < n {
            let c = bytes[j]
            if c == 0x22 || c == 0x5C || c < 0x20 { break }
            bits |= c
            j += 1
        }
        let high = bits >= 0x80
        if j < n, bytes[j] == 0x22 {
            if !high {
                let text = String(decoding: bytes[i..<j], as: UTF8.self)
                i = j + 1
                return text
            }
            if let text = String(validating: bytes[i..<j], as: UTF8.self),
               !text.unicodeScalars.contains(where: { (0xFDD0...0xFDEF).contains($0.value) || $0.value & 0xFFFE == 0xFFFE }) {
                i = j + 1
                return text
            }
            // Invalid UTF-8 or a noncharacter: the scalar-by-scalar path below names the byte.
        }
        var scalars = String.UnicodeScalarView()
        while true {
            guard i < bytes.count else { throw fail(path, "string not closed (truncated?)") }
            let c = bytes[i]
            if c == 0x22 { i += 1; return String(scalars) }
            if c == 0x5C {
                i += 1
                guard i < bytes.count else { throw fail(path, "string not closed (truncated?)") }
                let e = bytes[i]
                i += 1
                switch e {
                case 0x22: scalars.append("\"")
                case 0x5C: scalars.append("\\")
                case 0x2F: scalars.append("/")
                case 0x62: scalars.append("\u{08}")
                case 0x66: scalars.append("\u{0C}")
                case 0x6E: scalars.append("\n")
                case 0x72: scalars.append("\r")
                case 0x74: scalars.append("\t")
                case 0x75:
                    var u = try hex4(path)
                    if (0xD800...0xDBFF).contains(u) {
                        guard bytes.count - i >= 6, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else {
                            throw fail(path, "unpaired surrogate \\u\(String(u, radix: 16)) (RFC 7493 §2.1)")
                        }
                        i += 2
                        let low = try hex4(path)
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw fail(path, "unpaired surrogate \\u\(String(u, radix: 16)) (RFC 7493 §2.1)")
                        }
                        u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(u) {
                        throw fail(path, "unpaired surrogate \\u\(String(u, radix: 16)) (RFC 7493 §2.1)")
                    }
                    guard let s = Unicode.Scalar(u) else { throw fail(path, "invalid code point") }
                    try checkNoncharacter(s, path)
                    scalars.append(s)
                default: throw fail(path, "invalid escape '\\\(Character(Unicode.Scalar(e)))'")
                }
                continue
            }
            guard c >= 0x20 else { throw fail(path, "control character 0x\(String(c, radix: 16)) in a string (escape it)") }
            if c < 0x80 {
                scalars.append(Unicode.Scalar(c))
                i += 1
                continue
            }
            // One UTF-8 sequence, validated by the standard decoder (overlongs, surrogates refused).
            let len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2
            guard c >= 0xC2, c <= 0xF4, bytes.count - i >= len,
                  let text = String(validating: bytes[i..<i + len], as: UTF8.self),
                  let s = text.unicodeScalars.first, text.unicodeScalars.count == 1 else {
                throw fail(path, "not UTF-8 (invalid byte sequence in a string)")
            }
            try checkNoncharacter(s, path)
            scalars.append(s)
            i += len
        }
    }

    private func checkNoncharacter(_ s: Unicode.Scalar, _ path: IJSONPath) throws(IJSONError) {
        let v = s.value
        if (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
            throw fail(path, "noncharacter U+\(String(v, radix: 16, uppercase: true)) in a string (RFC 7493 §2.1)")
        }
    }

    private mutating func hex4(_ path: IJSONPath) throws(IJSONError) -> UInt32 {
        guard bytes.count - i >= 4 else { throw fail(path, "\\u needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail(path, "\\u needs four hex digits")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }
}
