/// The field of a WAI1 envelope a problem was found in (docs/envelope.md §1).
public enum EnvelopeField: String, Sendable, Equatable {
    case magic
    case version = "format version"
    case capabilityLength = "capability name length"
    case capability = "capability name"
    case payloadLength = "payload length"
    case payload
    case digest = "integrity digest"
}

/// Every envelope error names the field and the byte offset where that field starts.
public struct EnvelopeError: Error, Equatable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case truncated(needed: Int, available: Int)
        case wrongMagic([UInt8])
        case unsupportedVersion(UInt8)
        case invalidCapabilityName(String)
        case lengthBeyondEnd(length: UInt64, available: Int)
        case trailingBytes(count: Int)
        case digestMismatch
    }

    public let field: EnvelopeField
    public let offset: Int
    public let problem: Problem

    public init(field: EnvelopeField, offset: Int, problem: Problem) {
        self.field = field
        self.offset = offset
        self.problem = problem
    }

    public var description: String {
        let at = "WAI1 envelope: \(field.rawValue) at byte \(offset)"
        switch problem {
        case .truncated(let needed, let available):
            return "\(at): truncated, needs \(needed) bytes, \(available) left"
        case .wrongMagic(let found):
            return "\(at): magic is \(found.map { String($0, radix: 16) }), expected 57 41 49 31 (\"WAI1\")"
        case .unsupportedVersion(let v):
            return "\(at): format version \(v) is not supported (this host reads version \(Envelope.formatVersion))"
        case .invalidCapabilityName(let name):
            return "\(at): \"\(name)\" is not a capability name (wai.<family>.<name>, lowercase, 5…64 bytes)"
        case .lengthBeyondEnd(let length, let available):
            return "\(at): payload length \(length) exceeds the \(available) bytes before the digest"
        case .trailingBytes(let count):
            return "\(at): \(count) bytes follow the digest"
        case .digestMismatch:
            return "\(at): SHA-256 does not match the envelope's contents"
        }
    }
}
