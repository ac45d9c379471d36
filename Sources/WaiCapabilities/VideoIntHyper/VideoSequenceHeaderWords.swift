/// An error type that has the shared header's refusals as its own cases (VIH's, int_motion's
/// and int_cond's payload errors): the header's error maps to it case for case.
protocol VideoSequenceHeaderRefusal {
    static func badMagic(found: [UInt8]) -> Self
    static func unsupportedVersion(_ v: UInt8) -> Self
    static func invalidField(field: String, offset: Int, problem: String) -> Self
    static func truncated(field: String, offset: Int, needed: Int, available: Int) -> Self
    static func invalidIndexEntry(frame: Int, field: String, offset: Int, problem: String) -> Self
    static func trailingBytes(count: Int, offset: Int) -> Self
}

extension VideoSequenceHeaderRefusal {
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

/// How every sequence payload's error words the shared header's refusals (after its own
/// `video … payload: ` prefix), so the three capabilities say them alike.
enum VideoSequenceHeaderWords {
    static func badMagic(_ found: [UInt8], expected: [UInt8], capability: String) -> String {
        "magic is \(Hex.spaced(found)), expected \(Hex.spaced(expected)) — not a \(capability) payload"
    }

    static func unsupportedVersion(_ v: UInt8, reads: UInt8) -> String {
        "version \(v) is not supported (this host reads version \(reads))"
    }

    static func invalidField(_ field: String, offset: Int, problem: String) -> String { "\(field) (byte \(offset)) \(problem)" }

    static func truncated(_ field: String, offset: Int, needed: Int, available: Int) -> String {
        "truncated in \(field) at byte \(offset): \(needed) bytes needed, \(available) left"
    }

    static func invalidIndexEntry(frame: Int, field: String, offset: Int, problem: String) -> String {
        "frame \(frame): index entry \(field) (byte \(offset)) \(problem)"
    }

    static func trailingBytes(_ count: Int, offset: Int) -> String { "\(count) bytes after the last frame (from byte \(offset))" }

    /// `--frames A..B` outside the sequence (no payload prefix: the payload is fine).
    static func frameRange(first: Int, last: Int, frameCount count: Int) -> String {
        "frames \(first)..\(last) are not inside the sequence's \(count) frames (0..\(count - 1))"
    }
}
