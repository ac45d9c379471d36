import Synchronization

/// The SPIR-V of every kernel variant, compiled from Plugins/VulkanBackend/Shaders by
/// Tools/ShaderPlugin at build time (`generatedShaders`, hex of the module's bytes).
enum Shaders {
    /// Modules decoded so far: every graph_prepare names its kernels again.
    private static let decoded = Mutex<[String: [UInt32]]>([:])

    /// The words of one variant, e.g. "requantize_x16_y32"; nil when no such variant exists.
    static func words(_ name: String) -> [UInt32]? {
        if let known = decoded.withLock({ $0[name] }) { return known }
        guard let words = decode(name) else { return nil }
        decoded.withLock { $0[name] = words }
        return words
    }

    private static func decode(_ name: String) -> [UInt32]? {
        guard let hex = generatedShaders[name] else { return nil }
        let digits = Array(hex.utf8)
        guard digits.count % 8 == 0 else { return nil }
        var words: [UInt32] = []
        words.reserveCapacity(digits.count / 8)
        var k = 0
        while k < digits.count {
            var word: UInt32 = 0
            // Bytes in file order are the little-endian bytes of each word.
            for b in 0..<4 {
                guard let hi = nibble(digits[k + 2 * b]), let lo = nibble(digits[k + 2 * b + 1]) else { return nil }
                word |= UInt32(hi << 4 | lo) << (8 * UInt32(b))
            }
            words.append(word)
            k += 8
        }
        return words
    }

    static var names: [String] { generatedShaders.keys.sorted() }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
