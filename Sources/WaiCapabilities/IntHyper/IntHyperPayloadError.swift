/// Why a `wai.neural.int_hyper` payload was refused: each case says where (field and byte
/// offset, or stream and value index) and what was found.
public enum IntHyperPayloadError: Error, Equatable, Sendable, CustomStringConvertible {
    case badMagic(found: [UInt8])
    case unsupportedVersion(UInt8)
    case invalidField(field: String, offset: Int, problem: String)
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    case trailingBytes(count: Int, offset: Int)
    /// The payload was made with another model set.
    case modelSetMismatch(payload: String, modelSet: String, name: String, version: String)
    /// The picture needs graphs or streams larger than the limits.
    case tooLarge(width: Int, height: Int, reason: String)
    /// A symbol count differs from what the dimensions and the model set give.
    case countMismatch(field: String, declared: Int, expected: Int)
    case stream(name: String, error: RansDecodingError)
    /// A version-2 lane stream is refused (docs/entropy-coding.md §8.5).
    case lanes(name: String, error: RansLaneError)
    /// A decoded value outside the graph's input contract (docs/capabilities/int_hyper.md §5).
    case valueOutsideContract(stream: String, index: Int, channel: Int, row: Int, column: Int, value: Int32, contract: Interval)
    /// A unit returned a scale index outside the tables (it cannot happen on an exact unit).
    case scaleIndexOutOfRange(index: Int, value: Int32, tables: Int, unit: String)

    public var description: String {
        let p = "int_hyper payload: "
        switch self {
        case let .badMagic(found):
            return p + "magic is \(hex(found)), expected 89 49 48 50 — not a wai.neural.int_hyper payload"
        case let .unsupportedVersion(v):
            return p + "version \(v) (byte 4) is not supported (this host reads versions "
                + IntHyperPayload.Version.allCases.map { String($0.rawValue) }.joined(separator: " and ") + ")"
        case let .invalidField(field, offset, problem):
            return p + "\(field) (byte \(offset)) \(problem)"
        case let .truncated(field, offset, needed, available):
            return p + "truncated in \(field) at byte \(offset): \(needed) bytes needed, \(available) left"
        case let .trailingBytes(count, offset):
            return p + "\(count) bytes after the y stream (from byte \(offset))"
        case let .modelSetMismatch(payload, modelSet, name, version):
            return p + "made with model set \(payload), but the model set given is '\(name)' version \(version) "
                + "with id \(modelSet); decode it with the model set it was encoded with"
        case let .tooLarge(width, height, reason):
            return p + "picture \(width)×\(height) is too large for this model set: \(reason)"
        case let .countMismatch(field, declared, expected):
            return p + "\(field) is \(declared), but the picture size and the model set give \(expected)"
        case let .stream(name, error):
            return p + "\(name) stream: \(error)"
        case let .lanes(name, error):
            return p + "\(name) stream: \(error)"
        case let .valueOutsideContract(stream, index, c, i, j, value, contract):
            return p + "\(stream) value \(index) (channel \(c), row \(i), column \(j)) is \(value), outside the "
                + "input contract \(contract) of the model set's graph — the payload is corrupt"
        case let .scaleIndexOutOfRange(index, value, tables, unit):
            return p + "h_s on \(unit) returned scale index \(value) at element \(index), outside 0…\(tables - 1)"
        }
    }

    private func hex(_ b: [UInt8]) -> String {
        Hex.spaced(b)
    }
}
