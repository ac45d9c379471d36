/// Why a `wai.video.int_hyper` payload was refused (docs/capabilities/video_int_hyper.md §3–§4):
/// each case names the field and its byte offset in the payload, and the frame number when
/// the problem is in one frame's index entry or picture.
public enum VideoPayloadError: Error, Equatable, Sendable, CustomStringConvertible, VideoSequenceHeaderRefusal {
    case badMagic(found: [UInt8])
    case unsupportedVersion(UInt8)
    case invalidField(field: String, offset: Int, problem: String)
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    /// A frame's index entry is wrong (offset not where the previous frame ends, zero length, kind).
    case invalidIndexEntry(frame: Int, field: String, offset: Int, problem: String)
    case trailingBytes(count: Int, offset: Int)
    /// A frame's picture does not fit the sequence: another size or another model set.
    case frameMismatch(frame: Int, offset: Int, problem: String)
    /// A frame's int_hyper picture was refused.
    case framePicture(frame: Int, offset: Int, error: IntHyperPayloadError)
    /// `--frames A..B` outside the sequence.
    case frameRange(first: Int, last: Int, frameCount: Int)
    case modelSetMismatch(payload: String, modelSet: String, name: String, version: String)

    public var description: String {
        typealias W = VideoSequenceHeaderWords
        let p = "video int_hyper payload: "
        switch self {
        case let .badMagic(found):
            return p + W.badMagic(found, expected: VideoIntHyperPayload.magic, capability: VideoIntHyperCodec.capability)
        case let .unsupportedVersion(v):
            return p + W.unsupportedVersion(v, reads: VideoIntHyperPayload.version)
        case let .invalidField(field, offset, problem):
            return p + W.invalidField(field, offset: offset, problem: problem)
        case let .truncated(field, offset, needed, available):
            return p + W.truncated(field, offset: offset, needed: needed, available: available)
        case let .invalidIndexEntry(frame, field, offset, problem):
            return p + W.invalidIndexEntry(frame: frame, field: field, offset: offset, problem: problem)
        case let .trailingBytes(count, offset):
            return p + W.trailingBytes(count, offset: offset)
        case let .frameMismatch(frame, offset, problem):
            return p + "frame \(frame) (picture at byte \(offset)): \(problem)"
        case let .framePicture(frame, offset, error):
            return p + "frame \(frame) (picture at byte \(offset)): \(error)"
        case let .frameRange(first, last, count):
            return W.frameRange(first: first, last: last, frameCount: count)
        case let .modelSetMismatch(payload, modelSet, name, version):
            return p + "made with model set \(payload), but the model set given is '\(name)' version \(version) "
                + "with id \(modelSet); decode it with the model set it was encoded with"
        }
    }
}
