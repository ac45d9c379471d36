/// Why a `wai.video.int_cond` payload was refused (docs/capabilities/video_int_cond.md
/// §5–§6): each case names the field and its byte offset in the payload, and the frame when
/// the problem is in one frame.
public enum VideoIntCondPayloadError: Error, Equatable, Sendable, CustomStringConvertible {
    case badMagic(found: [UInt8])
    case unsupportedVersion(UInt8)
    case invalidField(field: String, offset: Int, problem: String)
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    case invalidIndexEntry(frame: Int, field: String, offset: Int, problem: String)
    case trailingBytes(count: Int, offset: Int)
    /// A P-frame's body is malformed (§5.1): a length, the sum of the lengths.
    case invalidFrame(frame: Int, field: String, offset: Int, problem: String)
    /// A P-frame's count is not what the size and the model set give (§6 step 5.1).
    case countMismatch(frame: Int, field: String, offset: Int, declared: Int, expected: Int)
    /// An intra frame's picture does not fit the sequence (size, model set).
    case frameMismatch(frame: Int, offset: Int, problem: String)
    /// An intra frame's picture, or a P-frame's stream, was refused.
    case framePicture(frame: Int, offset: Int, part: String, error: IntHyperPayloadError)
    case frameRange(first: Int, last: Int, frameCount: Int)
    case modelSetMismatch(which: String, payload: String, modelSet: String, name: String, version: String)
    /// The frame size needs more memory than the bound (§3).
    case tooLarge(width: Int, height: Int, reason: String)

    public var description: String {
        let p = "video int_cond payload: "
        switch self {
        case let .badMagic(found):
            return p + "magic is \(Hex.spaced(found)), expected 89 56 49 43 — not a wai.video.int_cond payload"
        case let .unsupportedVersion(v):
            return p + "version \(v) is not supported (this host reads version \(VideoIntCondPayload.version))"
        case let .invalidField(field, offset, problem):
            return p + "\(field) (byte \(offset)) \(problem)"
        case let .truncated(field, offset, needed, available):
            return p + "truncated in \(field) at byte \(offset): \(needed) bytes needed, \(available) left"
        case let .invalidIndexEntry(frame, field, offset, problem):
            return p + "frame \(frame): index entry \(field) (byte \(offset)) \(problem)"
        case let .trailingBytes(count, offset):
            return p + "\(count) bytes after the last frame (from byte \(offset))"
        case let .invalidFrame(frame, field, offset, problem):
            return p + "P-frame \(frame): \(field) (byte \(offset)) \(problem)"
        case let .countMismatch(frame, field, offset, declared, expected):
            return p + "P-frame \(frame): \(field) (byte \(offset)) is \(declared); the frame size and the model set give \(expected)"
        case let .frameMismatch(frame, offset, problem):
            return p + "frame \(frame) (at byte \(offset)): \(problem)"
        case let .framePicture(frame, offset, part, error):
            return p + "frame \(frame) (at byte \(offset)), \(part): \(error)"
        case let .frameRange(first, last, count):
            return "frames \(first)..\(last) are not inside the sequence's \(count) frames (0..\(count - 1))"
        case let .modelSetMismatch(which, payload, modelSet, name, version):
            return p + "\(which) frames were made with model set \(payload), but the \(which) model set given is '\(name)' "
                + "version \(version) with id \(modelSet); decode it with the model set it was encoded with"
        case let .tooLarge(width, height, reason):
            return p + "a \(width)×\(height) frame is too large: \(reason)"
        }
    }

    /// The shared header's refusal as this payload's (same case, field and offset).
    init(_ e: VideoSequenceHeaderError) {
        switch e {
        case let .badMagic(found): self = .badMagic(found: found)
        case let .unsupportedVersion(v): self = .unsupportedVersion(v)
        case let .invalidField(field, offset, problem): self = .invalidField(field: field, offset: offset, problem: problem)
        case let .truncated(field, offset, needed, available): self = .truncated(field: field, offset: offset, needed: needed, available: available)
        case let .invalidIndexEntry(frame, field, offset, problem): self = .invalidIndexEntry(frame: frame, field: field, offset: offset, problem: problem)
        case let .trailingBytes(count, offset): self = .trailingBytes(count: count, offset: offset)
        }
    }
}
