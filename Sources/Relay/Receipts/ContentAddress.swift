// Content-addressed names (docs/receipts.md §5): `<64 lowercase hex>.<ext>` states that the
// named object's SHA-256, over all of its bytes, is those 64 hex digits. Shared by the sealer
// (which writes such names) and the relay (which checks objects against them).

public enum ContentAddress {
    /// The longest extension accepted; ffmpeg's are "ts", "m4s", "mp4", "aac", "vtt", …
    public static let maxExtensionLength = 16

    /// The 32-byte SHA-256 the name of `uri` states, or nil when its last path segment (query
    /// and fragment removed, nothing unescaped) is not `<64 lowercase hex>.<ext>` with `ext`
    /// 1 to 16 ASCII letters or digits. Works on relative references and absolute URLs alike,
    /// so `?CMCD=...` and other query parameters never change the answer.
    public static func expectedHash(forURI uri: String) -> [UInt8]? {
        var s = Substring(uri)
        if let i = s.firstIndex(of: "#") { s = s[..<i] }
        if let i = s.firstIndex(of: "?") { s = s[..<i] }
        if let i = s.lastIndex(of: "/") { s = s[s.index(after: i)...] }
        let u = Array(s.utf8)
        guard u.count >= 66, u[64] == UInt8(ascii: ".") else { return nil }
        let ext = u[65...]
        guard ext.count <= maxExtensionLength, ext.allSatisfy(isExtensionByte) else { return nil }
        return Hex.decode(String(decoding: u[0..<64], as: UTF8.self))
    }

    /// `<hex of hash>.<ext>`.
    public static func name(hash: [UInt8], fileExtension: String) -> String {
        "\(Hex.encode(hash)).\(fileExtension)"
    }

    /// Whether `ext` may follow the hash in a content-addressed name.
    public static func isValidExtension(_ ext: String) -> Bool {
        let u = Array(ext.utf8)
        return !u.isEmpty && u.count <= maxExtensionLength && u.allSatisfy(isExtensionByte)
    }

    private static func isExtensionByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }
}
