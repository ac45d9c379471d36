import BackendABI
import BackendDescriptor

/// The plugin's own version: the first part of the unit's driver string.
let pluginVersion = "1.0"

/// The backend's name, and (as `waihost-<name>`) the first word of its units' driver strings.
/// The tests' build of these sources over emulated AVX-512 and AMX intrinsics
/// (Tests/EmulatedCPUBackend) has its own, so its probe-cache keys and reports are its own.
#if WAI_EMULATED_KERNELS
let backendName = "cpu-emulated"
/// Its units' device says so too: a report that names only the CPU's model would read as a
/// native run of paths this CPU may not have.
let deviceNote = ", AVX-512 and AMX emulated"
#else
let backendName = "cpu"
let deviceNote = ""
#endif

/// The one exported symbol (docs/backend-abi.md §2.2); the table is BackendDescriptor's.
@_cdecl("wai_backend_entry")
public func waiBackendEntry(_ hostMajor: UInt32, _ hostMinor: UInt32,
                            _ out: UnsafeMutablePointer<UnsafePointer<wai_backend_iface>?>?,
                            _ err: UnsafeMutablePointer<CChar>?, _ errCap: Int) -> wai_status {
    negotiateBackend(CPUBackendInstance.self, hostMajor: hostMajor, hostMinor: hostMinor, out: out, err: err, errCap: errCap)
}

extension CPUBackendInstance: ABIBackend {
    static var name: String { backendName }
    static var version: String { pluginVersion }
    var unitCount: UInt32 { UInt32(paths.count) }

    func prepare(unit: UInt32, graph: UnsafePointer<wai_graph_desc>?) throws -> CPUPreparedGraph {
        let path = try path(ofUnit: unit, in: "graph_prepare")
        let spec = try DescriptorReader.read(requireGraph(graph))
        return try CPUPreparedGraph(spec: spec, backend: self, path: path)
    }
}

extension CPUPreparedGraph: ABIPreparedGraph {}
