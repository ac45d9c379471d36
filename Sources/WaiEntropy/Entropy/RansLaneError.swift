/// What the lane-stream reader refuses (docs/entropy-coding.md §8.5); each case says where:
/// a byte offset in the lane stream, a lane, or the index of a value in the stream's order.
public enum RansLaneError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The lane count byte or the lane length table runs past the end.
    case truncatedLaneTable(needed: Int, length: Int)
    case laneCountOutOfRange(Int)
    /// A lane shorter than the 4 bytes of its flushed state (the length field is at `offset`).
    case laneTooShort(lane: Int, length: Int, offset: Int)
    /// The lanes end past the stream's last byte.
    case lanesBeyondEnd(needed: Int, length: Int)
    /// Bytes after the last lane.
    case trailingBytes(count: Int, offset: Int)
    /// The caller asked a value to use a table the set does not have.
    case tableIndexOutOfRange(valueIndex: Int, table: Int, tableCount: Int)
    /// A lane's rANS stream is refused: `start` is the lane's first byte in the lane stream;
    /// value indices are in the stream's order (lane = index mod lane count), byte offsets
    /// are in the lane stream.
    case lane(lane: Int, start: Int, error: RansDecodingError)

    public var description: String {
        switch self {
        case let .truncatedLaneTable(needed, length):
            return "rANS lane stream: \(length) bytes, the lane count and lane lengths need \(needed)"
        case let .laneCountOutOfRange(n):
            return "rANS lane stream: lane count \(n) (byte 0) is outside 1…\(RansLanes.maximumLaneCount)"
        case let .laneTooShort(lane, length, offset):
            return "rANS lane stream: lane \(lane) has length \(length) (bytes \(offset)…\(offset + 3)); "
                + "a lane holds at least the 4 bytes of its state"
        case let .lanesBeyondEnd(needed, length):
            return "rANS lane stream truncated: the lane lengths need \(needed) bytes, the stream has \(length)"
        case let .trailingBytes(count, offset):
            return "rANS lane stream: \(count) bytes after the last lane (from byte \(offset))"
        case let .tableIndexOutOfRange(i, table, count):
            return "rANS lane stream: value \(i) selects table \(table), but there are \(count)"
        case let .lane(lane, start, error):
            return "rANS lane \(lane) (from byte \(start)): \(error)"
        }
    }
}
