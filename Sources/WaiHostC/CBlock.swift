import WaiHostCAPI
#if canImport(Glibc)
import Glibc
#endif

/// One malloc'd block holding `count` C structs followed by the strings they point at,
/// so that the caller frees everything with one waihost_free (docs/c-api.md §6).
struct CBlock<Element> {
    let base: UnsafeMutableRawPointer
    let elements: UnsafeMutablePointer<Element>
    private var cursor: UnsafeMutablePointer<CChar>
    private var left: Int

    /// `strings` are all the strings that will be copied in, to size the block exactly.
    init(count: Int, strings: [String]) throws {
        // No padding before the first string: a block of strings only starts with its
        // first string, which is what the caller frees.
        let head = MemoryLayout<Element>.stride * count
        let text = strings.reduce(0) { $0 + $1.utf8.count + 1 }
        let total = max(head + text, 1)
        guard let p = malloc(total) else {
            throw CAPIFailure(WAIHOST_ERR_NO_MEMORY, "cannot allocate \(total) bytes for the result")
        }
        memset(p, 0, total)
        base = p
        elements = p.bindMemory(to: Element.self, capacity: max(count, 1))
        cursor = (p + head).bindMemory(to: CChar.self, capacity: text)
        left = text
    }

    /// Copies `s` into the block; the pointer lives as long as the block.
    mutating func string(_ s: String) -> UnsafePointer<CChar> {
        let bytes = Array(s.utf8)
        precondition(bytes.count < left, "CBlock sized too small")
        let start = cursor
        bytes.withUnsafeBufferPointer { b in
            if let a = b.baseAddress { memcpy(start, a, b.count) }
        }
        start[bytes.count] = 0
        cursor += bytes.count + 1
        left -= bytes.count + 1
        return UnsafePointer(start)
    }
}
