// A bounds-checked little-endian reader over the bytes of a container. Every read names
// the field it reads, so a failure says what was expected where (docs/model-container.md §9).

package struct ByteReader {
    package let bytes: [UInt8]
    package let source: String
    /// Reads stop here (the start of the trailer).
    package let end: Int
    package private(set) var offset: Int

    package init(_ bytes: [UInt8], source: String, start: Int = 0, end: Int) {
        self.bytes = bytes; self.source = source; self.offset = start; self.end = end
    }

    package var remaining: Int { end - offset }

    package func invalid(_ field: String, at offset: Int, _ problem: String) -> ModelContainerError {
        .invalidField(source: source, offset: offset, field: field, problem: problem)
    }

    private func need(_ count: Int, _ field: String) throws {
        guard count <= remaining else {
            throw ModelContainerError.truncated(source: source, offset: offset, field: field,
                                                needed: count, available: remaining)
        }
    }

    /// An unsigned little-endian integer of `width` bytes.
    private mutating func unsigned(_ width: Int, _ field: String) throws -> UInt64 {
        try need(width, field)
        var v: UInt64 = 0
        for k in 0..<width { v |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
        offset += width
        return v
    }

    package mutating func u8(_ field: String) throws -> UInt8 { UInt8(try unsigned(1, field)) }
    package mutating func u16(_ field: String) throws -> UInt16 { UInt16(try unsigned(2, field)) }
    package mutating func u32(_ field: String) throws -> UInt32 { UInt32(try unsigned(4, field)) }
    package mutating func i32(_ field: String) throws -> Int32 { Int32(bitPattern: UInt32(try unsigned(4, field))) }
    package mutating func i64(_ field: String) throws -> Int64 { Int64(bitPattern: try unsigned(8, field)) }

    /// A u32 in `range`, as an Int.
    package mutating func count(_ field: String, _ range: ClosedRange<Int>) throws -> Int {
        let at = offset
        let v = Int(try u32(field))
        guard range.contains(v) else {
            throw invalid(field, at: at, "\(v) outside \(range.lowerBound)…\(range.upperBound) (docs/model-container.md §8)")
        }
        return v
    }

    package mutating func raw(_ count: Int, _ field: String) throws -> ArraySlice<UInt8> {
        try need(count, field)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// `count` elements of `width` bytes each; the byte total is checked before allocating.
    private mutating func elements<T>(_ count: Int, width: Int, _ field: String, _ make: (UInt64) -> T) throws -> [T] {
        try need(count * width, field)
        var out = [T]()
        out.reserveCapacity(count)
        for k in 0..<count {
            var v: UInt64 = 0
            let base = offset + k * width
            for b in 0..<width { v |= UInt64(bytes[base + b]) << (8 * UInt64(b)) }
            out.append(make(v))
        }
        offset += count * width
        return out
    }

    package mutating func i16Array(_ count: Int, _ field: String) throws -> [Int16] {
        try elements(count, width: 2, field) { Int16(bitPattern: UInt16(truncatingIfNeeded: $0)) }
    }

    package mutating func i32Array(_ count: Int, _ field: String) throws -> [Int32] {
        try elements(count, width: 4, field) { Int32(bitPattern: UInt32(truncatingIfNeeded: $0)) }
    }

    package mutating func u32Array(_ count: Int, _ field: String) throws -> [Int] {
        try elements(count, width: 4, field) { Int(UInt32(truncatingIfNeeded: $0)) }
    }

    /// `str` of docs/model-container.md §2.
    package mutating func string(_ field: String, maxLength: Int) throws -> String {
        let length = try count("\(field) length", 0...maxLength)
        let at = offset
        let raw = try raw(length, field)
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw invalid(field, at: at, "not valid UTF-8")
        }
        return s
    }
}

/// The writer's counterpart: little-endian, packed.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { append(UInt64(v), 2) }
    package mutating func u32(_ v: UInt32) { append(UInt64(v), 4) }
    package mutating func i16(_ v: Int16) { append(UInt64(UInt16(bitPattern: v)), 2) }
    package mutating func i32(_ v: Int32) { append(UInt64(UInt32(bitPattern: v)), 4) }
    package mutating func i64(_ v: Int64) { append(UInt64(bitPattern: v), 8) }
    package mutating func raw<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }

    /// A graph size, index or parameter; one that does not fit u32 becomes 0xFFFFFFFF,
    /// which every limit refuses (docs/model-container.md §2).
    package mutating func count(_ v: Int) { u32(UInt32(exactly: v) ?? UInt32.max) }

    package mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        count(utf8.count)
        raw(utf8)
    }

    private mutating func append(_ v: UInt64, _ width: Int) {
        for k in 0..<width { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
    }
}
