import BackendABI
import BackendDescriptor
#if WAI_EMULATED_KERNELS
import EmulatedCPUKernels   // Tests/EmulatedCPUBackend: these sources over emulated AVX-512 and AMX
#else
import CPUKernels
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One open backend object: the thread pool every prepared graph of it shares, and its
/// units, one per instruction-set path offered.
///
/// Environment, read at `open` (so a test sets it before loading or re-opening):
///   WAI_CPU_ISA      the paths offered as units (ISAPath.offered): unset or "auto" — every
///                    path the CPU runs, fastest first; "avx2" or "amx,avx512" — those only,
///                    in that order; a path the CPU lacks is refused.
///   WAI_CPU_THREADS  1…1024 — pool size; unset: the number of online CPUs.
final class CPUBackendInstance {
    let pool: OpaquePointer
    let paths: [ISAPath]
    let threads: Int
    let device: String

    private init(pool: OpaquePointer, paths: [ISAPath], threads: Int, device: String) {
        self.pool = pool; self.paths = paths; self.threads = threads; self.device = device
    }

    deinit { cpuk_pool_destroy(pool) }

    static func open() throws -> CPUBackendInstance {
        let paths = try ISAPath.offered(by: environment("WAI_CPU_ISA"))
        let threads = try threadCount()
        guard let pool = cpuk_pool_create(Int32(threads)) else {
            throw BackendFailure(status: WAI_ERR_INTERNAL, message: "open: could not start \(threads - 1) worker threads")
        }
        var model = [CChar](repeating: 0, count: 96)
        model.withUnsafeMutableBufferPointer { cpuk_cpu_model($0.baseAddress, $0.count) }
        let name = String(decoding: model.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return CPUBackendInstance(pool: pool, paths: paths, threads: threads,
                                  device: "\(name) (\(threads) thread\(threads == 1 ? "" : "s")\(deviceNote))")
    }

    /// The path of a unit index from the ABI; a bad index names the units there are.
    func path(ofUnit unit: UInt32, in call: String) throws -> ISAPath {
        guard Int(unit) < paths.count else {
            throw BackendFailure.invalid("\(call): unit \(unit) does not exist (the \(backendName) backend has \(paths.count) unit\(paths.count == 1 ? "" : "s"): \(paths.map(\.driverName).joined(separator: ", ")))")
        }
        return paths[Int(unit)]
    }

    /// `waihost-<backend name> <version> <path>`: the path is part of the probe-cache key.
    func driver(of path: ISAPath) -> String { "waihost-\(backendName) \(pluginVersion) \(path.driverName)" }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    private static func threadCount() throws -> Int {
        guard let text = environment("WAI_CPU_THREADS"), !text.isEmpty else { return Int(cpuk_online_cpus()) }
        guard let n = Int(text), (1...1024).contains(n) else {
            throw BackendFailure.invalid("open: WAI_CPU_THREADS=\(text) is not a thread count in 1…1024")
        }
        return n
    }

    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        let path = try path(ofUnit: unit, in: "unit_info")
        try writeUnitInfo(out, kind: WAI_UNIT_CPU, device: device.utf8, driver: driver(of: path).utf8, narrowStorage: true)
    }
}
