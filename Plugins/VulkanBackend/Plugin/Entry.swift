import BackendABI
import BackendDescriptor
#if canImport(Glibc)
import Glibc
#endif

/// The plugin's own version.
let pluginVersion = "1.0"

/// The one exported symbol (docs/backend-abi.md §2.2): refuses a host of another major
/// before anything else, then hands out the static table.
@_cdecl("wai_backend_entry")
public func waiBackendEntry(_ hostMajor: UInt32, _ hostMinor: UInt32,
                            _ out: UnsafeMutablePointer<UnsafePointer<wai_backend_iface>?>?,
                            _ err: UnsafeMutablePointer<CChar>?, _ errCap: Int) -> wai_status {
    guard hostMajor == WAI_ABI_MAJOR else {
        writeMessage("plugin vulkan implements backend ABI \(WAI_ABI_MAJOR).\(WAI_ABI_MINOR); host offers \(hostMajor).\(hostMinor)",
                     to: err, capacity: errCap)
        return WAI_ERR_ABI_MISMATCH
    }
    guard let out else {
        writeMessage("wai_backend_entry: the table pointer is NULL", to: err, capacity: errCap)
        return WAI_ERR_INVALID_ARGUMENT
    }
    out.pointee = UnsafePointer(backendTable)
    return WAI_OK
}

/// Allocated once and never freed: the table and its strings live until the process exits
/// (docs/backend-abi.md §9).
private let backendTable: UnsafeMutablePointer<wai_backend_iface> = {
    let table = UnsafeMutablePointer<wai_backend_iface>.allocate(capacity: 1)
    table.initialize(to: wai_backend_iface(
        struct_size: MemoryLayout<wai_backend_iface>.size,
        abi_major: WAI_ABI_MAJOR,
        abi_minor: WAI_ABI_MINOR,
        name: UnsafePointer(strdup("vulkan")),
        version: UnsafePointer(strdup(pluginVersion)),
        open: { out, err, cap in
            reporting(err, cap, backend: "vulkan") {
                guard let out else { throw BackendFailure.invalid("open: the backend pointer is NULL") }
                let backend = try VulkanBackendInstance.open()
                out.pointee = OpaquePointer(Unmanaged.passRetained(backend).toOpaque())
            }
        },
        close: { backend in
            guard let backend else { return }
            Unmanaged<VulkanBackendInstance>.fromOpaque(UnsafeRawPointer(backend)).release()
        },
        unit_count: { backend, count, err, cap in
            reporting(err, cap, backend: "vulkan") {
                guard let backend else { throw BackendFailure.invalid("unit_count: the backend is NULL") }
                guard let count else { throw BackendFailure.invalid("unit_count: the count pointer is NULL") }
                count.pointee = instance(backend).unitCount
            }
        },
        unit_info: { backend, unit, out, err, cap in
            reporting(err, cap, backend: "vulkan") {
                guard let backend else { throw BackendFailure.invalid("unit_info: the backend is NULL") }
                guard let out else { throw BackendFailure.invalid("unit_info: the info pointer is NULL") }
                try instance(backend).fillUnitInfo(unit: unit, out)
            }
        },
        graph_prepare: { backend, unit, graph, out, err, cap in
            reporting(err, cap, backend: "vulkan") {
                guard let backend else { throw BackendFailure.invalid("graph_prepare: the backend is NULL") }
                guard let out else { throw BackendFailure.invalid("graph_prepare: the result pointer is NULL") }
                guard let graph else { throw BackendFailure.invalid("graph_prepare: the graph is NULL") }
                let owner = instance(backend)
                guard unit < owner.unitCount else {
                    throw BackendFailure.invalid("graph_prepare: unit \(unit) does not exist (the vulkan backend has \(owner.unitCount) units)")
                }
                let spec = try DescriptorReader.read(graph)
                let prepared = try VulkanPreparedGraph(spec: spec, backend: owner, unit: unit)
                out.pointee = OpaquePointer(Unmanaged.passRetained(prepared).toOpaque())
            }
        },
        graph_run: { graph, inputs, nInputs, outputs, nOutputs, err, cap in
            reporting(err, cap, backend: "vulkan") {
                guard let graph else { throw BackendFailure.invalid("graph_run: the prepared graph is NULL") }
                let prepared = Unmanaged<VulkanPreparedGraph>.fromOpaque(UnsafeRawPointer(graph)).takeUnretainedValue()
                try prepared.run(inputs: inputs, count: nInputs, outputs: outputs, count: nOutputs)
            }
        },
        graph_release: { graph in
            guard let graph else { return }
            Unmanaged<VulkanPreparedGraph>.fromOpaque(UnsafeRawPointer(graph)).release()
        }
    ))
    return table
}()

private func instance(_ backend: OpaquePointer) -> VulkanBackendInstance {
    Unmanaged<VulkanBackendInstance>.fromOpaque(UnsafeRawPointer(backend)).takeUnretainedValue()
}
