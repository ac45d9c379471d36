// The playlist receipt (docs/receipts.md): one tag, the playlist's last line, signing the
// bytes before it together with the playlist's name, revision, predecessor and (version 2)
// the time it was sealed.

public struct PlaylistReceipt: Equatable, Sendable {
    public static let tag = "#EXT-X-WAI-RECEIPT:"
    /// What the sealer writes. Version 1 (no TIME) is still verified (docs/receipts.md §2).
    public static let version: UInt64 = 2
    public static let supportedVersions: Set<UInt64> = [1, 2]
    /// DSSE payload type of the signed statement, per version (docs/receipts.md §3).
    public static func payloadType(version: UInt64) -> String { "application/vnd.waihost.playlist-receipt.v\(version)" }
    public static let maxNameLength = 1024

    public let name: String
    /// 1 for the first revision; each later revision of a live playlist adds 1.
    public let revision: UInt64
    /// When the sealer signed it, in whole seconds since the Unix epoch (UTC); nil exactly for
    /// a version 1 receipt, which carries no time.
    public let time: UInt64?
    public let publisherKey: Ed25519PublicKey
    /// SHA-256 of the previous revision's receipt line; nil exactly when revision is 1.
    public let previous: [UInt8]?
    public let signature: [UInt8]

    public var version: UInt64 { time == nil ? 1 : 2 }

    /// The receipt line, without its LF. Its only spelling: parsing re-creates it and refuses
    /// any line that differs, so no two lines carry the same receipt.
    public var line: String {
        var s = "\(Self.tag)VERSION=\(version),NAME=\"\(name)\",REVISION=\(revision)"
        if let t = time { s += ",TIME=\(t)" }
        s += ",KEY=0x\(publisherKey.hex)"
        if let p = previous { s += ",PREVIOUS=0x\(Hex.encode(p))" }
        s += ",SIGNATURE=0x\(Hex.encode(signature))"
        return s
    }

    /// SHA-256 of `line`'s UTF-8 bytes: what the next revision names as PREVIOUS.
    public var hash: [UInt8] { SHA256Hasher.digest(Array(line.utf8)) }

    /// The exact bytes signed: DSSE v1 PAE(payloadType, statement) (docs/receipts.md §3).
    /// `time` nil gives the version 1 statement, otherwise version 2's.
    public static func signedMessage(name: String, revision: UInt64, time: UInt64? = nil, publisherKey: Ed25519PublicKey,
                                     previous: [UInt8]?, playlistSHA256: [UInt8]) -> [UInt8] {
        let version: UInt64 = time == nil ? 1 : 2
        var text = "waihost playlist receipt v\(version)\nname: \(name)\nrevision: \(revision)\n"
        if let t = time { text += "time: \(t)\n" }
        text += "previous: \(previous.map(Hex.encode) ?? "none")\nkey: \(publisherKey.hex)\n"
        text += "playlist-sha256: \(Hex.encode(playlistSHA256))\n"
        let statement = Array(text.utf8)
        let type = Array(payloadType(version: version).utf8)
        var m = Array("DSSEv1 \(type.count) ".utf8)
        m += type
        m += Array(" \(statement.count) ".utf8)
        m += statement
        return m
    }

    /// Whether a name can be carried in a receipt: 1 to 1024 bytes of UTF-8 without '"',
    /// controls or line breaks.
    public static func isValidName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        return !u.isEmpty && u.count <= maxNameLength && !u.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") })
    }

    /// Parses one receipt line (without LF). Refuses anything but the canonical spelling.
    public static func parse(line: String) throws(ReceiptError) -> PlaylistReceipt {
        guard line.hasPrefix(tag) else { throw .malformedReceipt("line does not start with \(tag)") }
        let bytes = Array(line.utf8)
        let attrs: [Attribute]
        do { attrs = try AttributeList.parse(bytes, from: tag.utf8.count, line: 0, tag: "EXT-X-WAI-RECEIPT") } catch {
            throw .malformedReceipt(error.reason)
        }
        func value(_ n: String) -> Attribute? { attrs.first { $0.name == n } }
        guard let v = value("VERSION") else { throw .malformedReceipt("no VERSION") }
        guard let version = UInt64(v.value), supportedVersions.contains(version), v.value == String(version) else {
            throw .unsupportedVersion(v.value)
        }
        guard let nameA = value("NAME"), nameA.quoted, isValidName(nameA.value) else { throw .malformedReceipt("NAME must be a quoted name") }
        guard let revA = value("REVISION"), let rev = UInt64(revA.value), rev >= 1 else {
            throw .malformedReceipt("REVISION must be a decimal integer of at least 1")
        }
        var time: UInt64?
        if version >= 2 {
            guard let t = value("TIME"), !t.quoted, let seconds = UInt64(t.value) else {
                throw .malformedReceipt("TIME must be a decimal integer (seconds since the Unix epoch)")
            }
            time = seconds
        }
        guard let keyA = value("KEY"), let key = hex0x(keyA, count: 32) else { throw .malformedReceipt("KEY must be 0x and 64 lowercase hex digits") }
        var prev: [UInt8]?
        if let p = value("PREVIOUS") {
            guard let h = hex0x(p, count: 32) else { throw .malformedReceipt("PREVIOUS must be 0x and 64 lowercase hex digits") }
            prev = h
        }
        guard (rev == 1) == (prev == nil) else {
            throw .malformedReceipt(rev == 1 ? "revision 1 must not name a PREVIOUS" : "revision \(rev) must name its PREVIOUS")
        }
        guard let sigA = value("SIGNATURE"), let sig = hex0x(sigA, count: 64) else {
            throw .malformedReceipt("SIGNATURE must be 0x and 128 lowercase hex digits")
        }
        let publisherKey: Ed25519PublicKey
        do { publisherKey = try Ed25519PublicKey(bytes: key) } catch { throw .malformedReceipt(error.description) }
        let r = PlaylistReceipt(name: nameA.value, revision: rev, time: time, publisherKey: publisherKey, previous: prev, signature: sig)
        guard r.line == line else { throw .malformedReceipt("not in canonical form (attribute order, spelling or extra attributes)") }
        return r
    }

    private static func hex0x(_ a: Attribute, count: Int) -> [UInt8]? {
        guard !a.quoted, a.value.hasPrefix("0x"), let b = Hex.decode(String(a.value.dropFirst(2))), b.count == count else { return nil }
        return b
    }

    public init(name: String, revision: UInt64, time: UInt64? = nil, publisherKey: Ed25519PublicKey, previous: [UInt8]?, signature: [UInt8]) {
        self.name = name
        self.revision = revision
        self.time = time
        self.publisherKey = publisherKey
        self.previous = previous
        self.signature = signature
    }
}

/// Where a receipt line sits in a file's bytes.
enum ReceiptSplit {
    /// (covered bytes, receipt line without LF). The receipt must be the last line, begin
    /// after an LF and end with exactly one LF; no other line may be a receipt.
    static func split(_ bytes: [UInt8]) throws(ReceiptError) -> (covered: ArraySlice<UInt8>, line: String) {
        guard bytes.last == 0x0A else {
            if bytes.isEmpty { throw .missingReceipt }
            // A file cut short inside its receipt line, or without one.
            if lastLineStart(bytes, end: bytes.count).map({ bytes[$0...].starts(with: Array(PlaylistReceipt.tag.utf8)) }) == true {
                throw .malformedReceipt("receipt line does not end in LF (truncated?)")
            }
            throw .missingReceipt
        }
        let lineEnd = bytes.count - 1
        guard let start = lastLineStart(bytes, end: lineEnd), bytes[start..<lineEnd].starts(with: Array(PlaylistReceipt.tag.utf8)) else {
            throw .missingReceipt
        }
        guard start > 0 else { throw .malformedReceipt("the receipt is the whole file") }
        if bytes[lineEnd - 1] == 0x0D { throw .malformedReceipt("receipt line must end in LF, not CRLF") }
        let covered = bytes[0..<start]
        // Another receipt line anywhere else would make "the" receipt ambiguous.
        var lineNumber = 1
        var ls = 0
        for i in 0..<start where bytes[i] == 0x0A {
            if bytes[ls..<i].starts(with: Array(PlaylistReceipt.tag.utf8)) { throw .multipleReceipts(line: lineNumber) }
            lineNumber += 1
            ls = i + 1
        }
        return (covered, String(decoding: bytes[start..<lineEnd], as: UTF8.self))
    }

    /// Where the line ending at `end` starts; nil when that line is empty.
    static func lastLineStart(_ bytes: [UInt8], end: Int) -> Int? {
        var i = end
        while i > 0, bytes[i - 1] != 0x0A { i -= 1 }
        return i < end ? i : nil
    }
}
