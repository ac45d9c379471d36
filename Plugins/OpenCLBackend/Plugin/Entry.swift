import BackendABI
import BackendDescriptor

/// The plugin's own version.
let pluginVersion = "1.0"

/// The one exported symbol (docs/backend-abi.md §2.2); the table is BackendDescriptor's.
@_cdecl("wai_backend_entry")
public func waiBackendEntry(_ hostMajor: UInt32, _ hostMinor: UInt32,
                            _ out: UnsafeMutablePointer<UnsafePointer<wai_backend_iface>?>?,
                            _ err: UnsafeMutablePointer<CChar>?, _ errCap: Int) -> wai_status {
    negotiateBackend(OpenCLBackendInstance.self, hostMajor: hostMajor, hostMinor: hostMinor, out: out, err: err, errCap: errCap)
}

extension OpenCLBackendInstance: ABIBackend {
    static var name: String { "opencl" }
    static var version: String { pluginVersion }

    func prepare(unit: UInt32, graph: UnsafePointer<wai_graph_desc>?) throws -> OpenCLPreparedGraph {
        let graph = try requireGraph(graph)
        guard unit < unitCount else {
            throw BackendFailure.invalid("graph_prepare: unit \(unit) does not exist (the opencl backend has \(unitCount) units)")
        }
        let spec = try DescriptorReader.read(graph)
        return try OpenCLPreparedGraph(spec: spec, backend: self, unit: unit)
    }
}

extension OpenCLPreparedGraph: ABIPreparedGraph {}
