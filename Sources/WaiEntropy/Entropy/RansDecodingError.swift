/// What the rANS decoder refuses (docs/entropy-coding.md §6); each case says where.
public enum RansDecodingError: Error, Equatable, CustomStringConvertible {
    case streamTooShort(length: Int)
    case invalidInitialState(UInt32)
    case truncated(valueIndex: Int, offset: Int)
    case invalidBypassLength(valueIndex: Int, nibbles: Int)
    case nonMinimalBypass(valueIndex: Int)
    case bypassValueOutOfRange(valueIndex: Int, rank: UInt64)
    case trailingBytes(consumed: Int, length: Int)
    case finalStateMismatch(state: UInt32)

    public var description: String {
        switch self {
        case .streamTooShort(let n):
            return "rANS stream: \(n) bytes, at least 4 needed for the initial state"
        case .invalidInitialState(let x):
            return "rANS stream: initial state \(x) is outside [2^23, 2^31)"
        case .truncated(let i, let offset):
            return "rANS stream truncated: value \(i) needs byte \(offset), beyond the end"
        case .invalidBypassLength(let i, let n):
            return "rANS stream corrupt: value \(i) has an escape of \(n) nibbles, at most 9 allowed"
        case .nonMinimalBypass(let i):
            return "rANS stream corrupt: value \(i) has an escape with a leading zero nibble"
        case .bypassValueOutOfRange(let i, let r):
            return "rANS stream corrupt: value \(i) has an escape of rank \(r), outside int32"
        case .trailingBytes(let consumed, let length):
            return "rANS stream: \(length - consumed) bytes left after the last value (consumed \(consumed) of \(length))"
        case .finalStateMismatch(let x):
            return "rANS stream corrupt or truncated: final state \(x), expected 2^23"
        }
    }
}
