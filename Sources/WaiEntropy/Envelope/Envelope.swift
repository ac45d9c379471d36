/// The WAI1 envelope (docs/envelope.md): magic, version, capability name, payload, and a
/// SHA-256 over everything before it.
public enum Envelope {
    public static let magic: [UInt8] = Array("WAI1".utf8)
    public static let formatVersion: UInt8 = 1
    public static let capabilityNameLengths = 5...64
    static let digestSize = SHA256.digestLength
    static let payloadLengthSize = 8

    /// True when `bytes` start with the magic: then they are meant as an envelope and must
    /// parse as one; anything else is a bare payload (no payload format starts with WAI1).
    public static func isEnvelope(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// `wai.<family>.<name>`, each part a lowercase letter then [a-z0-9_]*, ≤ 64 bytes (§2).
    public static func isValidCapabilityName(_ name: String) -> Bool {
        isValidCapabilityName(Array(name.utf8))
    }

    static func isValidCapabilityName<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        guard capabilityNameLengths.contains(bytes.count) else { return false }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual("wai".utf8) else { return false }
        return parts.dropFirst().allSatisfy { part in
            guard let first = part.first, isLowercaseLetter(first) else { return false }
            return part.allSatisfy { isLowercaseLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
        }
    }

    public static func encode(capability: String, payload: [UInt8]) throws -> [UInt8] {
        let name = Array(capability.utf8)
        guard isValidCapabilityName(name) else {
            throw EnvelopeError(field: .capability, offset: magic.count + 2,
                                problem: .invalidCapabilityName(printable(name[...])))
        }
        var out = magic
        out.reserveCapacity(46 + name.count + payload.count)
        out.append(formatVersion)
        out.append(UInt8(name.count))
        out += name
        let m = UInt64(payload.count)
        for i in 0..<payloadLengthSize { out.append(UInt8(truncatingIfNeeded: m >> UInt64(8 * i))) }
        out += payload
        out += SHA256.digest(out)
        return out
    }

    public static func parse(_ bytes: [UInt8]) throws -> (capability: String, payload: [UInt8]) {
        var reader = EnvelopeReader(bytes)
        let found = try reader.take(magic.count, .magic)
        guard found.elementsEqual(magic) else {
            throw EnvelopeError(field: .magic, offset: 0, problem: .wrongMagic(Array(found)))
        }
        let versionOffset = reader.offset
        let version = try reader.byte(.version)
        guard version == formatVersion else {
            throw EnvelopeError(field: .version, offset: versionOffset, problem: .unsupportedVersion(version))
        }
        let lengthOffset = reader.offset
        let nameLength = Int(try reader.byte(.capabilityLength))
        guard capabilityNameLengths.contains(nameLength) else {
            throw EnvelopeError(field: .capabilityLength, offset: lengthOffset,
                                problem: .invalidCapabilityName("<\(nameLength) bytes>"))
        }
        let nameOffset = reader.offset
        let name = try reader.take(nameLength, .capability)
        guard isValidCapabilityName(name) else {
            throw EnvelopeError(field: .capability, offset: nameOffset, problem: .invalidCapabilityName(printable(name)))
        }
        let payloadLengthOffset = reader.offset
        let payloadLength = try reader.uint64LE(.payloadLength)
        // Compared before any copy: an absurd length costs nothing.
        let available = max(reader.remaining - digestSize, 0)
        guard payloadLength <= UInt64(available) else {
            throw EnvelopeError(field: .payloadLength, offset: payloadLengthOffset,
                                problem: .lengthBeyondEnd(length: payloadLength, available: available))
        }
        let payload = try reader.take(Int(payloadLength), .payload)
        let digestOffset = reader.offset
        let digest = try reader.take(digestSize, .digest)
        guard reader.remaining == 0 else {
            throw EnvelopeError(field: .digest, offset: digestOffset, problem: .trailingBytes(count: reader.remaining))
        }
        guard SHA256.digest(Array(bytes[..<digestOffset])).elementsEqual(digest) else {
            throw EnvelopeError(field: .digest, offset: digestOffset, problem: .digestMismatch)
        }
        // The name was checked to be ASCII, so this decoding is lossless.
        return (String(decoding: name, as: UTF8.self), Array(payload))
    }

    private static func isLowercaseLetter(_ b: UInt8) -> Bool { b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") }
    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// A name for an error message: printable ASCII kept, anything else as \xNN.
    private static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { b in
            (0x20...0x7E).contains(b) && b != UInt8(ascii: "\\") && b != UInt8(ascii: "\"")
                ? String(UnicodeScalar(b))
                : "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16)
        }.joined()
    }
}
