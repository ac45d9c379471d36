/// Why a YUV4MPEG2 stream was refused (docs/capabilities/video_int_hyper.md §7): every case
/// names the byte offset in the stream, and the frame number where one applies.
public struct Y4MError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case notY4M
        case headerTooLong(limit: Int)
        case missingParameter(String)
        case duplicateParameter(String)
        case unknownParameter(String)
        case invalidValue(parameter: String, value: String, expected: String)
        case unsupportedChroma(String)
        case interlaced(String)
        case frameTooLarge(width: Int, height: Int, bytes: Int, limit: Int)
        case badFrameMarker(found: String)
        case frameLineTooLong(limit: Int)
        case truncatedFrame(needed: Int, available: Int)
        case noFrames
        case tooManyFrames(limit: Int)
        case frameSizeMismatch(expected: Int, found: Int)
    }

    public var source: String
    public var offset: Int
    /// 0-based frame number, when the problem is inside one frame.
    public var frame: Int?
    public var problem: Problem

    public init(source: String, offset: Int, frame: Int? = nil, problem: Problem) {
        self.source = source; self.offset = offset; self.frame = frame; self.problem = problem
    }

    public var description: String {
        let at = "\(source): Y4M" + (frame.map { " frame \($0)" } ?? "") + " at byte \(offset)"
        switch problem {
        case .notY4M:
            return "\(at): not a YUV4MPEG2 stream (it must start with \"YUV4MPEG2 \")"
        case let .headerTooLong(limit):
            return "\(at): the stream header has no end of line within \(limit) bytes"
        case let .missingParameter(p):
            return "\(at): the stream header has no \(p) parameter"
        case let .duplicateParameter(p):
            return "\(at): parameter \(p) appears twice in the stream header"
        case let .unknownParameter(t):
            return "\(at): unknown stream header parameter \"\(t)\" (W H F A I C X are defined)"
        case let .invalidValue(p, v, expected):
            return "\(at): parameter \(p) is \"\(v)\"; expected \(expected)"
        case let .unsupportedChroma(c):
            return "\(at): chroma C\(c) is not supported (C420jpeg, C420paldv, C420mpeg2, C420, C444 are); "
                + "convert first, e.g. `ffmpeg -i IN -pix_fmt yuv420p -f yuv4mpegpipe OUT.y4m`"
        case let .interlaced(i):
            return "\(at): interlacing I\(i) is not supported (progressive Ip or unknown I? only)"
        case let .frameTooLarge(w, h, bytes, limit):
            return "\(at): a \(w)×\(h) frame takes \(bytes) bytes, more than the limit of \(limit)"
        case let .badFrameMarker(found):
            return "\(at): expected a FRAME line, found \"\(found)\""
        case let .frameLineTooLong(limit):
            return "\(at): the FRAME line has no end of line within \(limit) bytes"
        case let .truncatedFrame(needed, available):
            return "\(at): truncated frame, \(needed) bytes of planes needed, \(available) left"
        case .noFrames:
            return "\(at): the stream holds no frame"
        case let .tooManyFrames(limit):
            return "\(at): more than \(limit) frames"
        case let .frameSizeMismatch(expected, found):
            return "\(at): frame has \(found) bytes, \(expected) expected for this header"
        }
    }
}
