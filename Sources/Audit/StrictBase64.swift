// Standard base64 with padding (RFC 4648 §4), one spelling only (docs/audit-bundle.md §2): the
// length a multiple of 4, only the standard alphabet, `=` only as the final padding, and the
// padding's unused bits zero — exactly the texts that re-encode to themselves. Decoded in one
// pass over the text, without Foundation's decode-then-re-encode round trip.

enum StrictBase64 {
    /// The bytes, or nil when `text` is not the canonical base64 of anything.
    static func decode(_ text: String) -> [UInt8]? {
        var t = text
        return t.withUTF8 { decode($0) }
    }

    static func decode(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let n = s.count
        guard n % 4 == 0 else { return nil }
        if n == 0 { return [] }
        let pad = s[n - 1] == 0x3D ? (s[n - 2] == 0x3D ? 2 : 1) : 0
        let count = n / 4 * 3 - pad
        var out = [UInt8](repeating: 0, count: count)
        let ok = table.withUnsafeBufferPointer { t in out.withUnsafeMutableBufferPointer { o -> Bool in
            var j = 0
            var i = 0
            while i < n {
                let last = i == n - 4
                let a = t[Int(s[i])], b = t[Int(s[i + 1])]
                let c = last && pad == 2 ? 0 : t[Int(s[i + 2])]
                let d = last && pad >= 1 ? 0 : t[Int(s[i + 3])]
                // 0xFF marks a byte outside the alphabet (a stray `=` included).
                guard a | b | c | d < 64 else { return false }
                let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                o[j] = UInt8(v >> 16)
                if last && pad == 2 {
                    guard v & 0xFFFF == 0 else { return false }
                    return true
                }
                o[j + 1] = UInt8(truncatingIfNeeded: v >> 8)
                if last && pad == 1 {
                    guard v & 0xFF == 0 else { return false }
                    return true
                }
                o[j + 2] = UInt8(truncatingIfNeeded: v)
                i += 4
                j += 3
            }
            return true
        } }
        return ok ? out : nil
    }

    /// The 6-bit value of each byte; 0xFF outside the standard alphabet.
    private static let table: [UInt8] = (0..<256).map { c -> UInt8 in
        switch c {
        case 0x41...0x5A: return UInt8(c - 0x41)
        case 0x61...0x7A: return UInt8(c - 0x61 + 26)
        case 0x30...0x39: return UInt8(c - 0x30 + 52)
        case 0x2B: return 62
        case 0x2F: return 63
        default: return 0xFF
        }
    }
}
