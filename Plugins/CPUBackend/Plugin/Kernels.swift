import BackendDescriptor
#if WAI_EMULATED_KERNELS
import EmulatedCPUKernels   // Tests/EmulatedCPUBackend: these sources over emulated AVX-512 and AMX
#else
import CPUKernels
#endif

/// A conv or inverse GDN the C kernels prepared: packed weights and per-thread scratch.
/// The one place the plugin holds a kernel object; freed with the prepared graph.
final class ConvKernel {
    let handle: OpaquePointer
    init(handle: OpaquePointer) { self.handle = handle }
    deinit { cpuk_conv_destroy(handle) }
}

final class InverseGDNKernel {
    let handle: OpaquePointer
    init(handle: OpaquePointer) { self.handle = handle }
    deinit { cpuk_igdn_destroy(handle) }
}

/// A 64-byte aligned, zero-filled buffer of one tensor's storage (or several tensors' in
/// turn, when their lifetimes do not overlap).
final class StorageBuffer {
    let pointer: UnsafeMutableRawPointer
    let bytes: Int
    init?(bytes: Int) {
        guard let p = cpuk_alloc(bytes) else { return nil }
        pointer = p
        self.bytes = bytes
    }
    deinit { cpuk_free(pointer) }
}

/// The per-channel epilogue a conv or inverse GDN applies for a requantize or clamp node
/// it absorbed.
enum FusedPost {
    case none
    case requantize(RequantizeSpec)
    case clamp(lo: Int32, hi: Int32)

    /// Calls `body` with the C view; the arrays it points into live only during the call.
    func withC<R>(_ body: (cpuk_post) -> R) -> R {
        switch self {
        case .none:
            return body(cpuk_post(kind: Int32(CPUK_POST_NONE.rawValue), multiplier: nil, shift: nil, lo: 0, hi: 0))
        case let .clamp(lo, hi):
            return body(cpuk_post(kind: Int32(CPUK_POST_CLAMP.rawValue), multiplier: nil, shift: nil, lo: lo, hi: hi))
        case .requantize(let r):
            return r.multiplier.withUnsafeBufferPointer { m in
                r.shift.withUnsafeBufferPointer { s in
                    body(cpuk_post(kind: Int32(CPUK_POST_REQUANTIZE.rawValue), multiplier: m.baseAddress,
                                   shift: s.baseAddress, lo: r.lo, hi: r.hi))
                }
            }
        }
    }
}
