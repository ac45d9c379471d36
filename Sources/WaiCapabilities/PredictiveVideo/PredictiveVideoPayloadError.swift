/// The words a predictive payload's errors use for its format: int_motion's and int_cond's
/// payload types give them.
public protocol PredictiveVideoFormat: Sendable {
    /// `int_motion`, `int_cond`: the capability without its `wai.video.` prefix.
    static var formatName: String { get }
    static var magic: [UInt8] { get }
    static var version: UInt8 { get }
}

/// Why a predictive video payload was refused (int_motion's and int_cond's §5–§6): each case
/// names the field and its byte offset in the payload, and the frame when the problem is in
/// one frame. `Format` only names the payload in the messages.
public enum PredictiveVideoPayloadError<Format: PredictiveVideoFormat>: Error, Equatable, Sendable, CustomStringConvertible,
                                                                      VideoSequenceHeaderRefusal {
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
        typealias W = VideoSequenceHeaderWords
        let p = "video \(Format.formatName) payload: "
        switch self {
        case let .badMagic(found):
            return p + W.badMagic(found, expected: Format.magic, capability: "wai.video." + Format.formatName)
        case let .unsupportedVersion(v):
            return p + W.unsupportedVersion(v, reads: Format.version)
        case let .invalidField(field, offset, problem):
            return p + W.invalidField(field, offset: offset, problem: problem)
        case let .truncated(field, offset, needed, available):
            return p + W.truncated(field, offset: offset, needed: needed, available: available)
        case let .invalidIndexEntry(frame, field, offset, problem):
            return p + W.invalidIndexEntry(frame: frame, field: field, offset: offset, problem: problem)
        case let .trailingBytes(count, offset):
            return p + W.trailingBytes(count, offset: offset)
        case let .invalidFrame(frame, field, offset, problem):
            return p + "P-frame \(frame): \(field) (byte \(offset)) \(problem)"
        case let .countMismatch(frame, field, offset, declared, expected):
            return p + "P-frame \(frame): \(field) (byte \(offset)) is \(declared); the frame size and the model set give \(expected)"
        case let .frameMismatch(frame, offset, problem):
            return p + "frame \(frame) (at byte \(offset)): \(problem)"
        case let .framePicture(frame, offset, part, error):
            return p + "frame \(frame) (at byte \(offset)), \(part): \(error)"
        case let .frameRange(first, last, count):
            return W.frameRange(first: first, last: last, frameCount: count)
        case let .modelSetMismatch(which, payload, modelSet, name, version):
            return p + "\(which) frames were made with model set \(payload), but the \(which) model set given is '\(name)' "
                + "version \(version) with id \(modelSet); decode it with the model set it was encoded with"
        case let .tooLarge(width, height, reason):
            return p + "a \(width)×\(height) frame is too large: \(reason)"
        }
    }
}
