import WaiSupport
import BackendABI
#if canImport(Glibc)
import Glibc
#endif

/// A Swift backend as the ABI table sees it (docs/backend-abi.md §2–§7). Each plugin links
/// its own copy of this module, so the one registered type below is per plugin.
package protocol ABIBackend: AnyObject {
    associatedtype Prepared: ABIPreparedGraph
    /// The table's `name`; also names the backend in messages.
    static var name: String { get }
    static var version: String { get }
    static func open() throws -> Self
    var unitCount: UInt32 { get }
    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws
    /// Checks `unit` and the descriptor, in the backend's own order, then prepares.
    func prepare(unit: UInt32, graph: UnsafePointer<wai_graph_desc>?) throws -> Prepared
}

package protocol ABIPreparedGraph: AnyObject {
    func run(inputs: UnsafePointer<wai_tensor>?, count: UInt32,
             outputs: UnsafeMutablePointer<wai_tensor>?, count: UInt32) throws
}

/// The descriptor graph_prepare was handed, refused when NULL.
package func requireGraph(_ graph: UnsafePointer<wai_graph_desc>?) throws -> UnsafePointer<wai_graph_desc> {
    guard let graph else { throw BackendFailure.invalid("graph_prepare: the graph is NULL") }
    return graph
}

/// The body of a plugin's `wai_backend_entry` (docs/backend-abi.md §2.2): refuses a host of
/// another major before anything else, then hands out the table for `backend`.
package func negotiateBackend<B: ABIBackend>(_ backend: B.Type, hostMajor: UInt32, hostMinor: UInt32,
                                             out: UnsafeMutablePointer<UnsafePointer<wai_backend_iface>?>?,
                                             err: UnsafeMutablePointer<CChar>?, errCap: Int) -> wai_status {
    guard hostMajor == WAI_ABI_MAJOR else {
        writeMessage("plugin \(B.name) implements backend ABI \(WAI_ABI_MAJOR).\(WAI_ABI_MINOR); host offers \(hostMajor).\(hostMinor)",
                     to: err, capacity: errCap)
        return WAI_ERR_ABI_MISMATCH
    }
    guard let out else {
        writeMessage("wai_backend_entry: the table pointer is NULL", to: err, capacity: errCap)
        return WAI_ERR_INVALID_ARGUMENT
    }
    out.pointee = UnsafePointer(registeredTable(B.self))
    return WAI_OK
}

/// C function pointers cannot capture the backend type, so the table's functions find it
/// here. Written once, under `registryLock`, before the table is first handed out.
private var registeredBackend: (any ABIBackend.Type)?
private var table: UnsafeMutablePointer<wai_backend_iface>?

private let registryLock = Mutex()

private func locked<T>(_ body: () -> T) -> T { registryLock.withLock(body) }

private func backendType() -> (any ABIBackend.Type)? { locked { registeredBackend } }

/// Allocated once and never freed: the ABI wants the table and its strings to live until
/// the process exits (docs/backend-abi.md §9).
private func registeredTable<B: ABIBackend>(_ backend: B.Type) -> UnsafeMutablePointer<wai_backend_iface> {
    locked {
        if let table { return table }
        registeredBackend = backend
        let made = makeTable(name: B.name, version: B.version)
        table = made
        return made
    }
}

private func makeTable(name: String, version: String) -> UnsafeMutablePointer<wai_backend_iface> {
    let made = UnsafeMutablePointer<wai_backend_iface>.allocate(capacity: 1)
    made.initialize(to: wai_backend_iface(
        struct_size: MemoryLayout<wai_backend_iface>.size,
        abi_major: WAI_ABI_MAJOR,
        abi_minor: WAI_ABI_MINOR,
        name: UnsafePointer(strdup(name)),
        version: UnsafePointer(strdup(version)),
        open: { out, err, cap in
            withBackend(err, cap) { type in
                guard let out else { throw BackendFailure.invalid("open: the backend pointer is NULL") }
                out.pointee = try type.abiOpen()
            }
        },
        close: { backend in
            guard let backend, let type = backendType() else { return }
            type.abiClose(backend)
        },
        unit_count: { backend, count, err, cap in
            withBackend(err, cap) { type in
                guard let backend else { throw BackendFailure.invalid("unit_count: the backend is NULL") }
                guard let count else { throw BackendFailure.invalid("unit_count: the count pointer is NULL") }
                count.pointee = type.abiUnitCount(backend)
            }
        },
        unit_info: { backend, unit, out, err, cap in
            withBackend(err, cap) { type in
                guard let backend else { throw BackendFailure.invalid("unit_info: the backend is NULL") }
                guard let out else { throw BackendFailure.invalid("unit_info: the info pointer is NULL") }
                try type.abiUnitInfo(backend, unit: unit, out)
            }
        },
        graph_prepare: { backend, unit, graph, out, err, cap in
            withBackend(err, cap) { type in
                guard let backend else { throw BackendFailure.invalid("graph_prepare: the backend is NULL") }
                guard let out else { throw BackendFailure.invalid("graph_prepare: the result pointer is NULL") }
                out.pointee = try type.abiPrepare(backend, unit: unit, graph: graph)
            }
        },
        graph_run: { graph, inputs, nInputs, outputs, nOutputs, err, cap in
            withBackend(err, cap) { type in
                guard let graph else { throw BackendFailure.invalid("graph_run: the prepared graph is NULL") }
                try type.abiRun(graph, inputs: inputs, count: nInputs, outputs: outputs, count: nOutputs)
            }
        },
        graph_release: { graph in
            guard let graph, let type = backendType() else { return }
            type.abiRelease(graph)
        }
    ))
    return made
}

/// `reporting` with the registered type; the table is only reachable after registration.
private func withBackend(_ err: UnsafeMutablePointer<CChar>?, _ cap: Int,
                         _ body: (any ABIBackend.Type) throws -> Void) -> wai_status {
    guard let type = backendType() else {
        writeMessage("backend: called before wai_backend_entry registered it", to: err, capacity: cap)
        return WAI_ERR_INTERNAL
    }
    return reporting(err, cap, backend: type.name) { try body(type) }
}

/// The table's calls on the concrete types: instances and prepared graphs cross the ABI as
/// retained Unmanaged references.
private extension ABIBackend {
    static func instance(_ backend: OpaquePointer) -> Self {
        Unmanaged<Self>.fromOpaque(UnsafeRawPointer(backend)).takeUnretainedValue()
    }
    static func abiOpen() throws -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(try open()).toOpaque())
    }
    static func abiClose(_ backend: OpaquePointer) {
        Unmanaged<Self>.fromOpaque(UnsafeRawPointer(backend)).release()
    }
    static func abiUnitCount(_ backend: OpaquePointer) -> UInt32 { instance(backend).unitCount }
    static func abiUnitInfo(_ backend: OpaquePointer, unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        try instance(backend).fillUnitInfo(unit: unit, out)
    }
    static func abiPrepare(_ backend: OpaquePointer, unit: UInt32, graph: UnsafePointer<wai_graph_desc>?) throws -> OpaquePointer {
        let prepared = try instance(backend).prepare(unit: unit, graph: graph)
        return OpaquePointer(Unmanaged.passRetained(prepared).toOpaque())
    }
    static func abiRun(_ graph: OpaquePointer, inputs: UnsafePointer<wai_tensor>?, count nIn: UInt32,
                       outputs: UnsafeMutablePointer<wai_tensor>?, count nOut: UInt32) throws {
        let prepared = Unmanaged<Prepared>.fromOpaque(UnsafeRawPointer(graph)).takeUnretainedValue()
        try prepared.run(inputs: inputs, count: nIn, outputs: outputs, count: nOut)
    }
    static func abiRelease(_ graph: OpaquePointer) {
        Unmanaged<Prepared>.fromOpaque(UnsafeRawPointer(graph)).release()
    }
}
