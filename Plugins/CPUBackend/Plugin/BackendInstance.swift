import BackendABI
import BackendDescriptor
import CPUKernels
#if canImport(Glibc)
import Glibc
#endif

/// One open backend object: the thread pool every prepared graph of it shares, and the
/// instruction-set path chosen at open.
///
/// Environment, read at `open` (so a test sets it before loading or re-opening):
///   WAI_CPU_ISA      scalar | avx2 | avx512 — force a path; refused when the CPU lacks it.
///                    Unset or "auto": the fastest path CPUID + XGETBV report.
///   WAI_CPU_THREADS  1…1024 — pool size; unset: the number of online CPUs.
final class CPUBackendInstance {
    let pool: OpaquePointer
    let isa: cpuk_isa
    let threads: Int
    let device: String
    let driver: String

    private init(pool: OpaquePointer, isa: cpuk_isa, threads: Int, device: String, driver: String) {
        self.pool = pool; self.isa = isa; self.threads = threads; self.device = device; self.driver = driver
    }

    deinit { cpuk_pool_destroy(pool) }

    static func open() throws -> CPUBackendInstance {
        let isa = try chosenISA()
        let threads = try threadCount()
        guard let pool = cpuk_pool_create(Int32(threads)) else {
            throw BackendFailure(status: WAI_ERR_INTERNAL, message: "open: could not start \(threads - 1) worker threads")
        }
        var model = [CChar](repeating: 0, count: 96)
        model.withUnsafeMutableBufferPointer { cpuk_cpu_model($0.baseAddress, $0.count) }
        let name = String(decoding: model.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let isaName = String(cString: cpuk_isa_name(isa))
        return CPUBackendInstance(pool: pool, isa: isa, threads: threads,
                                  device: "\(name) (\(threads) thread\(threads == 1 ? "" : "s"))",
                                  driver: "waihost-cpu \(pluginVersion) \(isaName)")
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    private static func chosenISA() throws -> cpuk_isa {
        guard let requested = environment("WAI_CPU_ISA"), !requested.isEmpty, requested != "auto" else {
            return cpuk_isa_best()
        }
        var isa = CPUK_ISA_SCALAR
        guard cpuk_isa_parse(requested, &isa) != 0 else {
            throw BackendFailure.invalid("open: WAI_CPU_ISA=\(requested) is not one of scalar, avx2, avx512, auto")
        }
        guard cpuk_isa_supported(isa) != 0 else {
            throw BackendFailure.unsupported("open: WAI_CPU_ISA=\(requested) asks for \(String(cString: cpuk_isa_name(isa))), which this CPU (or its OS) does not support")
        }
        return isa
    }

    private static func threadCount() throws -> Int {
        guard let text = environment("WAI_CPU_THREADS"), !text.isEmpty else { return Int(cpuk_online_cpus()) }
        guard let n = Int(text), (1...1024).contains(n) else {
            throw BackendFailure.invalid("open: WAI_CPU_THREADS=\(text) is not a thread count in 1…1024")
        }
        return n
    }

    /// docs/backend-abi.md §2.3: the caller sized the struct; write only members inside it.
    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        guard unit == 0 else { throw BackendFailure.invalid("unit_info: unit \(unit) does not exist (the cpu backend has 1 unit)") }
        let size = out.pointee.struct_size
        // The frozen 1.0 size, not this build's sizeof: a 1.0 host's struct is enough, and a
        // member a later minor appends is written only when `size` covers it.
        let needed = ABISize.unitInfo
        guard size >= needed else {
            throw BackendFailure.invalid("unit_info: struct_size \(size) is smaller than the \(needed) bytes of ABI 1.0")
        }
        out.pointee.kind = WAI_UNIT_CPU.rawValue
        Self.copy(device, into: &out.pointee.device)
        Self.copy(driver, into: &out.pointee.driver)
        out.pointee.narrow_storage = 1
    }

    /// Copies a string into a fixed C char array, truncated and NUL-terminated.
    private static func copy<T>(_ text: String, into field: inout T) {
        withUnsafeMutableBytes(of: &field) { raw in
            let bytes = Array(text.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }
}
