/// The lane stream of docs/entropy-coding.md §8: L independent §5 streams ("lanes") behind
/// a lane count and a table of lane lengths; value i of the stream lives in lane i mod L.
public enum RansLanes {
    public static let maximumLaneCount = 32
    /// The host's encoder gives each lane at least this many values (§8.3), so the 8 bytes a
    /// lane costs (length and flushed state) stay a small share of short streams.
    public static let valuesPerLaneTarget = 1024

    /// The lane count the host's encoder writes for `count` values (§8.3).
    public static func defaultLaneCount(forValueCount count: Int) -> Int {
        min(maximumLaneCount, max(1, count / valuesPerLaneTarget))
    }

    /// …and at least this many bytes of the single §5 stream of the same values (§8.3): a lane
    /// costs about 8 bytes, which at a low rate (½ bit a value) is 12 % of a 1024-value lane.
    public static let bytesPerLaneTarget = 4096

    /// The lane count the host's int_hyper encoder writes (§8.3): `count` values whose single
    /// §5 stream is `singleStreamBytes` long.
    public static func laneCount(forValueCount count: Int, singleStreamBytes: Int) -> Int {
        min(defaultLaneCount(forValueCount: count), max(1, singleStreamBytes / bytesPerLaneTarget))
    }

    /// Bytes before the first lane: the count byte and one 32-bit length per lane.
    static func tableSize(laneCount: Int) -> Int { 1 + 4 * laneCount }

    /// How many of `count` values lane `k` of `laneCount` holds.
    static func valueCount(lane k: Int, laneCount: Int, count: Int) -> Int {
        count > k ? (count - k + laneCount - 1) / laneCount : 0
    }

    /// The byte range of every lane, after checking the lane table (§8.2) against the
    /// stream's length. Nothing is allocated before the count byte is bounded.
    package static func laneRanges(_ bytes: [UInt8]) throws -> [Range<Int>] {
        guard let first = bytes.first else { throw RansLaneError.truncatedLaneTable(needed: 1, length: 0) }
        let laneCount = Int(first)
        guard (1...maximumLaneCount).contains(laneCount) else { throw RansLaneError.laneCountOutOfRange(laneCount) }
        let table = tableSize(laneCount: laneCount)
        guard bytes.count >= table else {
            throw RansLaneError.truncatedLaneTable(needed: table, length: bytes.count)
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(laneCount)
        // At most 32 lengths below 2^32 each: the sum fits an Int with room to spare.
        var end = table
        for k in 0..<laneCount {
            let at = 1 + 4 * k
            let length = (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
            guard length >= RansCore.stateByteCount else {
                throw RansLaneError.laneTooShort(lane: k, length: length, offset: at)
            }
            ranges.append(end..<(end + length))
            end += length
        }
        guard end <= bytes.count else { throw RansLaneError.lanesBeyondEnd(needed: end, length: bytes.count) }
        guard end == bytes.count else { throw RansLaneError.trailingBytes(count: bytes.count - end, offset: end) }
        return ranges
    }
}

/// Encoder of a lane stream (§8): value i goes to lane i mod L, each lane a §5 stream.
public struct RansLaneEncoder: Sendable {
    public let laneCount: Int
    private var lanes: [RansEncoder]
    private var next = 0
    public private(set) var valueCount = 0

    /// `laneCount` in 1…32 (§8.2); nil otherwise.
    public init?(laneCount: Int) {
        guard (1...RansLanes.maximumLaneCount).contains(laneCount) else { return nil }
        self.init(checkedLaneCount: laneCount)
    }

    /// The lane count the host's encoder uses for `valueCount` values (§8.3).
    public init(forValueCount valueCount: Int) {
        self.init(checkedLaneCount: RansLanes.defaultLaneCount(forValueCount: valueCount))
    }

    private init(checkedLaneCount: Int) {
        laneCount = checkedLaneCount
        lanes = Array(repeating: RansEncoder(), count: checkedLaneCount)
    }

    public mutating func encode(_ value: Int32, table: FrequencyTable) {
        lanes[next].encode(value, table: table)
        next = next + 1 == laneCount ? 0 : next + 1
        valueCount += 1
    }

    /// The lane count byte, the lane lengths (u32 little-endian), then the lanes in order.
    public func finish() -> [UInt8] {
        let streams = lanes.map { $0.finish() }
        var out: [UInt8] = [UInt8(laneCount)]
        out.reserveCapacity(RansLanes.tableSize(laneCount: laneCount) + streams.reduce(0) { $0 + $1.count })
        for s in streams {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: s.count >> (8 * i))) }
        }
        for s in streams { out += s }
        return out
    }
}
