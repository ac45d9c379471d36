import BackendABI
import BackendDescriptor

/// The plugin's own version.
let pluginVersion = "1.0"

/// The one exported symbol (docs/backend-abi.md §2.2); the table is BackendDescriptor's.
@_cdecl("wai_backend_entry")
public func waiBackendEntry(_ hostMajor: UInt32, _ hostMinor: UInt32,
                            _ out: UnsafeMutablePointer<UnsafePointer<wai_backend_iface>?>?,
                            _ err: UnsafeMutablePointer<CChar>?, _ errCap: Int) -> wai_status {
    negotiateBackend(VulkanBackendInstance.self, hostMajor: hostMajor, hostMinor: hostMinor, out: out, err: err, errCap: errCap)
}

extension VulkanBackendInstance: ABIBackend {
    static var name: String { "vulkan" }
    static var version: String { pluginVersion }

    func prepare(unit: UInt32, graph: UnsafePointer<wai_graph_desc>?) throws -> VulkanPreparedGraph {
        let graph = try requireGraph(graph)
        guard unit < unitCount else {
            throw BackendFailure.invalid("graph_prepare: unit \(unit) does not exist (the vulkan backend has \(unitCount) units)")
        }
        let spec = try DescriptorReader.read(graph)
        return try VulkanPreparedGraph(spec: spec, backend: self, unit: unit)
    }
}

extension VulkanPreparedGraph: ABIPreparedGraph {}
