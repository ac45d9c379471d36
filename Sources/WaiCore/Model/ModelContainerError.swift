// Why a .whm container was refused (docs/model-container.md §9). Every case names the
// source (usually the file name); parse failures also name the field and its byte offset.

public enum ModelContainerError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case tooLarge(source: String, size: Int, limit: Int)
    case badMagic(source: String)
    case unsupportedVersion(source: String, version: UInt16, supported: UInt16)
    case truncated(source: String, offset: Int, field: String, needed: Int, available: Int)
    case invalidField(source: String, offset: Int, field: String, problem: String)
    case checksumMismatch(source: String, stored: String, computed: String)
    case trailingBytes(source: String, offset: Int, count: Int)
    case invalidGraph(source: String, error: GraphError)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read model '\(path)': \(reason)"
        case .tooLarge(let source, let size, let limit):
            return "\(source): \(size) bytes exceeds the container limit of \(limit) bytes (docs/model-container.md §8)"
        case .badMagic(let source):
            return "\(source): not a .whm model container (wrong magic bytes, docs/model-container.md §3)"
        case .unsupportedVersion(let source, let version, let supported):
            return "\(source): container version \(version) is not supported (this host reads version \(supported))"
        case .truncated(let source, let offset, let field, let needed, let available):
            return "\(source): truncated at byte \(offset) reading \(field): needs \(needed) bytes, \(available) left"
        case .invalidField(let source, let offset, let field, let problem):
            return "\(source): invalid \(field) at byte \(offset): \(problem)"
        case .checksumMismatch(let source, let stored, let computed):
            return "\(source): corrupted: the SHA-256 trailer is \(stored) but the content hashes to \(computed) "
                + "(docs/model-container.md §7)"
        case .trailingBytes(let source, let offset, let count):
            return "\(source): \(count) unexpected bytes at byte \(offset) before the trailer (docs/model-container.md §7)"
        case .invalidGraph(let source, let error):
            return "\(source): model refused: \(error)"
        }
    }
}
