/// A bounds-checked little-endian reader over a payload that names the field it reads. A read
/// past the end throws the payload's own truncation error, so each format keeps its error type
/// (int_hyper.md and video_int_hyper.md name the truncated field, offset, need and what is left).
struct FieldReader {
    typealias Truncation = (_ field: String, _ offset: Int, _ needed: Int, _ available: Int) -> any Error

    let bytes: [UInt8]
    private(set) var offset = 0
    private let truncated: Truncation

    init(_ bytes: [UInt8], truncated: @escaping Truncation) {
        self.bytes = bytes
        self.truncated = truncated
    }

    mutating func take(_ n: Int, _ field: String) throws -> ArraySlice<UInt8> {
        guard bytes.count - offset >= n else { throw truncated(field, offset, n, bytes.count - offset) }
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }

    mutating func u8(_ field: String) throws -> UInt8 { try take(1, field).first ?? 0 }
    mutating func u16(_ field: String) throws -> Int { try uint(field, 2) }
    mutating func u32(_ field: String) throws -> Int { try uint(field, 4) }

    /// `n` ≤ 8 bytes; an 8-byte value above Int.max saturates (and then fails every range check).
    mutating func uint(_ field: String, _ n: Int) throws -> Int {
        let b = try take(n, field)
        let v = b.reversed().reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        return v > UInt64(Int.max) ? Int.max : Int(v)
    }
}
