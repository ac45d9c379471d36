// RFC 8216 §4.2 attribute lists, with the byte position of every value so a URI can be
// replaced without touching the rest of the line. Parsed strictly: players parse these lines
// leniently and differently (ffmpeg splits at whitespace and lets a later name win), so a
// line two readers could read differently is refused instead of interpreted.

struct Attribute {
    let name: String
    /// Without the quotes for a quoted-string.
    let value: String
    let quoted: Bool
    /// The value's UTF-8 range within the line (inside the quotes when quoted).
    let range: Range<Int>
}

enum AttributeList {
    /// Parses `bytes[start...]` as an attribute list. Refused: a name appearing twice (§4.2),
    /// a name outside [A-Z0-9-], whitespace anywhere outside a quoted string, an unquoted
    /// value holding '"' (only the §4.2 value types are allowed: decimal, hex, float,
    /// resolution, enumerated string, none of which holds whitespace, '"' or ','), and
    /// anything but ',' or the end after a value.
    static func parse(_ bytes: [UInt8], from start: Int, line: Int, tag: String) throws(PlaylistError) -> [Attribute] {
        var out: [Attribute] = []
        var i = start
        let n = bytes.count
        if i == n { return [] }
        while true {
            let nameStart = i
            while i < n, isNameByte(bytes[i]) { i += 1 }
            guard i > nameStart else {
                if i < n, isWhitespace(bytes[i]) {
                    throw PlaylistError(line: line, "\(tag): whitespace at column \(i + 1) (RFC 8216 §4.2 allows none between attributes)")
                }
                throw PlaylistError(line: line, "\(tag): attribute name expected at column \(i + 1)")
            }
            let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
            guard i < n, bytes[i] == UInt8(ascii: "=") else {
                throw PlaylistError(line: line, "\(tag): attribute \(name) has no '='")
            }
            i += 1
            let value: String, quoted: Bool, range: Range<Int>
            if i < n, bytes[i] == UInt8(ascii: "\"") {
                let vs = i + 1
                var j = vs
                while j < n, bytes[j] != UInt8(ascii: "\"") { j += 1 }
                guard j < n else { throw PlaylistError(line: line, "\(tag): attribute \(name) has an unterminated quoted string") }
                value = String(decoding: bytes[vs..<j], as: UTF8.self)
                quoted = true
                range = vs..<j
                i = j + 1
            } else {
                let vs = i
                while i < n, bytes[i] != UInt8(ascii: ",") { i += 1 }
                guard i > vs else { throw PlaylistError(line: line, "\(tag): attribute \(name) has an empty value") }
                if let bad = bytes[vs..<i].firstIndex(where: { isWhitespace($0) || $0 == UInt8(ascii: "\"") }) {
                    let what = bytes[bad] == UInt8(ascii: "\"") ? "'\"'" : "whitespace"
                    throw PlaylistError(line: line, "\(tag): unquoted value of attribute \(name) contains \(what) at column \(bad + 1)")
                }
                value = String(decoding: bytes[vs..<i], as: UTF8.self)
                quoted = false
                range = vs..<i
            }
            guard !out.contains(where: { $0.name == name }) else {
                throw PlaylistError(line: line, "\(tag): attribute \(name) appears twice")
            }
            out.append(Attribute(name: name, value: value, quoted: quoted, range: range))
            if i == n { return out }
            guard bytes[i] == UInt8(ascii: ",") else {
                throw PlaylistError(line: line, "\(tag): expected ',' after attribute \(name)")
            }
            i += 1
        }
    }

    private static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
            || c == UInt8(ascii: "-")
    }
}
