import BackendABI

/// docs/backend-abi.md §2.3 in Swift: the frozen 1.0 sizes a reader requires, and how a
/// struct from a peer of another minor is read — never past the peer's struct_size, and
/// members the peer's struct does not cover take their default (zero).
package enum ABISize {
    package static let backendIface = Int(WAI_BACKEND_IFACE_SIZE_1_0)
    package static let unitInfo = Int(WAI_UNIT_INFO_SIZE_1_0)
    package static let tensorDesc = Int(WAI_TENSOR_DESC_SIZE_1_0)
    package static let nodeDesc = Int(WAI_NODE_DESC_SIZE_1_0)
    package static let graphDesc = Int(WAI_GRAPH_DESC_SIZE_1_0)
    package static let tensor = Int(WAI_TENSOR_SIZE_1_0)

    /// The peer's struct of `size` bytes at `raw`, as this build's T: the first
    /// min(size, sizeof T) bytes copied, the rest zero.
    package static func load<T: BitwiseCopyable>(_ raw: UnsafeRawPointer, size: Int, as: T.Type) -> T {
        let own = MemoryLayout<T>.size
        if size >= own { return raw.loadUnaligned(as: T.self) }
        return withUnsafeTemporaryAllocation(byteCount: own, alignment: MemoryLayout<T>.alignment) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.baseAddress!.copyMemory(from: raw, byteCount: max(size, 0))
            return buffer.load(as: T.self)
        }
    }

    /// True when a struct of `size` bytes holds the member at `offset` of `width` bytes.
    package static func covers(_ size: Int, offset: Int, width: Int) -> Bool {
        size >= offset + width
    }
}
