/// Bounds-checked forward reader for the envelope: every read names its field, so a
/// short input turns into an error that says where, never an out-of-bounds access.
struct EnvelopeReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int, _ field: EnvelopeField) throws -> ArraySlice<UInt8> {
        guard count <= remaining else {
            throw EnvelopeError(field: field, offset: offset, problem: .truncated(needed: count, available: remaining))
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func byte(_ field: EnvelopeField) throws -> UInt8 {
        try take(1, field).first ?? 0
    }

    mutating func uint64LE(_ field: EnvelopeField) throws -> UInt64 {
        try take(8, field).reversed().reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
