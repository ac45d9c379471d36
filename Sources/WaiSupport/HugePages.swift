// Large buffers that are written right after they are allocated, such as a 4K picture's
// decoded latents, its scale indices and its pixels, each about 25 MB.
//
// The first write to a page faults it in. In the Firecracker guests the project is measured
// on (docs/entropy-coding.md §8.4, "Fresh output pages"), a 4 KiB fault costs about 2.4 µs.
// So 25 MB of fresh pages took 11–18 ms to fault in, or 10–14 ms with MADV_POPULATE_WRITE,
// and two threads that wrote the same mapping waited on each other's faults. As 2 MiB pages
// the same 25 MB took 3–5 ms. These guests offer transparent huge pages only to ranges
// advised for them ("madvise" in /sys/kernel/mm/transparent_hugepage/enabled).
//
// The cost: where free memory is fragmented, a kernel whose THP defrag setting includes
// "madvise" compacts memory during the fault to find a huge page, and the write waits for
// it. On these guests a huge page the host has never backed costs the host's own faults
// (§8.4 gives the figures).

#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for a large buffer that is about to be written for the first time.
@usableFromInline package enum HugePages {
    /// The huge page size on x86-64 and on arm64 with 4 KiB pages.
    package static let size = 2 << 20

    /// Advises the 2 MiB-aligned part of `buffer` for huge pages. It does nothing when the
    /// buffer holds no whole aligned 2 MiB. This is advice only: where the kernel refuses
    /// it, the pages stay small, and no byte ever changes.
    @usableFromInline package static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, let part = alignedPart(start: UInt(bitPattern: base), count: buffer.count),
              let start = UnsafeMutableRawPointer(bitPattern: part.lowerBound) else { return }
        #if canImport(Glibc)
        _ = madvise(start, Int(part.upperBound - part.lowerBound), MADV_HUGEPAGE)
        #endif
    }

    /// The whole aligned 2 MiB of the `count` bytes at `start`; nil when they hold none.
    package static func alignedPart(start: UInt, count: Int) -> Range<UInt>? {
        let (end, over) = start.addingReportingOverflow(UInt(max(count, 0)))
        guard !over, start <= UInt.max - UInt(size) else { return nil }
        let first = (start + UInt(size) - 1) & ~UInt(size - 1), last = end & ~UInt(size - 1)
        return last > first ? first..<last : nil
    }
}

// Inlinable: specialised for the element type where it is used, a plain fill or copy.
extension Array where Element: BitwiseCopyable {
    /// `count` copies of `value` in storage advised for huge pages before it is first
    /// written (HugePages).
    @inlinable package init(hugePagesRepeating value: Element, count: Int) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            UnsafeMutableBufferPointer(rebasing: buffer[..<count]).initialize(repeating: value)
            initialized = count
        }
    }

    /// A copy of `source` in storage advised for huge pages before it is written (HugePages).
    @inlinable package init(hugePagesCopying source: UnsafeBufferPointer<Element>) {
        self.init(unsafeUninitializedCapacity: source.count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            if let s = source.baseAddress, let d = buffer.baseAddress { d.initialize(from: s, count: source.count) }
            initialized = source.count
        }
    }
}
