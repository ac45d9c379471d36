// Raw int32 arrays as files and hashes hold them: 4 bytes a value, little-endian, no header
// (probe dumps, `run-graph`'s output hashes, `decode --latents`).

public enum Int32LE {
    public static func bytes(_ values: [Int32]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: values.count * 4)
        out.withUnsafeMutableBytes { raw in
            for (i, v) in values.enumerated() { raw.storeBytes(of: v.littleEndian, toByteOffset: i * 4, as: Int32.self) }
        }
        return out
    }

    /// The values of `bytes`, whose length the caller has checked is a multiple of 4 (a
    /// trailing partial value is left out).
    public static func values(_ bytes: [UInt8]) -> [Int32] {
        bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 4).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
        }
    }
}
