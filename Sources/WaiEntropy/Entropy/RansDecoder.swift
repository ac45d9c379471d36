/// rANS decoder (docs/entropy-coding.md §4–§6). Reads its stream strictly forwards and
/// never outside it; each value is decoded with the table the caller selects for it.
public struct RansDecoder: Sendable {
    private let bytes: [UInt8]
    private var position: Int
    private var state: UInt32
    /// Values decoded so far; errors name the value by this index.
    public private(set) var valueCount = 0

    public init(_ bytes: [UInt8]) throws {
        guard bytes.count >= RansCore.stateByteCount else {
            throw RansDecodingError.streamTooShort(length: bytes.count)
        }
        var x: UInt32 = 0
        for i in 0..<RansCore.stateByteCount { x |= UInt32(bytes[i]) << UInt32(8 * i) }
        guard x >= RansCore.lowerBound, x < RansCore.lowerBound << 8 else {
            throw RansDecodingError.invalidInitialState(x)
        }
        self.bytes = bytes
        self.position = RansCore.stateByteCount
        self.state = x
    }

    public init(_ bytes: ArraySlice<UInt8>) throws {
        try self.init(Array(bytes))
    }

    /// Byte offset of the next unread byte.
    public var bytesConsumed: Int { position }

    public mutating func decode(table: FrequencyTable) throws -> Int32 {
        let index = valueCount
        let p = UInt32(table.precision)
        let slot = state & ((1 << p) - 1)
        let s = table.symbol(forSlot: slot)
        let start = table.cdf[s]
        try advance(start: start, frequency: table.cdf[s + 1] - start, precision: p, slot: slot, index: index)
        valueCount += 1
        if s != table.escapeSymbol { return table.value(ofDirectSymbol: s) }

        let n = Int(try nibble(index: index))
        guard n <= BypassCoding.maximumNibbleCount else {
            throw RansDecodingError.invalidBypassLength(valueIndex: index, nibbles: n)
        }
        var rank: UInt64 = 0
        for i in 0..<n {
            let g = try nibble(index: index)
            if i == 0 && g == 0 { throw RansDecodingError.nonMinimalBypass(valueIndex: index) }
            rank = (rank << 4) | UInt64(g)
        }
        guard let v = BypassCoding.value(ofRank: rank, lowestDirect: table.lowestDirectValue,
                                         highestDirect: table.highestDirectValue) else {
            throw RansDecodingError.bypassValueOutOfRange(valueIndex: index, rank: rank)
        }
        return v
    }

    public mutating func decode(count: Int, table: FrequencyTable) throws -> [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(min(max(count, 0), bytes.count * 8))
        for _ in 0..<max(count, 0) { out.append(try decode(table: table)) }
        return out
    }

    /// The final-state check (§6): every byte consumed and the state back at L. Values
    /// decoded before this succeeds must not be trusted.
    public func finish() throws {
        guard position == bytes.count else {
            throw RansDecodingError.trailingBytes(consumed: position, length: bytes.count)
        }
        guard state == RansCore.lowerBound else {
            throw RansDecodingError.finalStateMismatch(state: state)
        }
    }

    private mutating func nibble(index: Int) throws -> UInt32 {
        let slot = state & 0xF
        try advance(start: slot, frequency: 1, precision: RansCore.nibblePrecision, slot: slot, index: index)
        return slot
    }

    /// x = freq · (x >> p) + slot − start, then renormalise from the stream.
    @inline(__always)
    private mutating func advance(start: UInt32, frequency: UInt32, precision: UInt32,
                                  slot: UInt32, index: Int) throws {
        var x = frequency * (state >> precision) + slot - start
        while x < RansCore.lowerBound {
            guard position < bytes.count else {
                throw RansDecodingError.truncated(valueIndex: index, offset: position)
            }
            x = (x << 8) | UInt32(bytes[position])
            position += 1
        }
        state = x
    }
}
