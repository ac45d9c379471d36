import BackendABI
#if canImport(Glibc)
import Glibc
#endif

/// Size of the caller-owned message buffer handed to every fallible plugin call.
let pluginMessageCapacity = 1024

/// A dlopen'ed backend whose ABI version was negotiated and whose backend object is open.
/// Never dlclosed (invariant 5): code of the plugin may still be referenced by prepared
/// graphs, thread-local destructors or atexit handlers the plugin registered.
public final class BackendPlugin: @unchecked Sendable {
    public let path: String
    /// The plugin's own short name (its table's `name`), used in reports and selections.
    public let name: String
    public let version: String
    /// The ABI minor the plugin implements.
    public let abiMinor: UInt32

    let table: UnsafePointer<wai_backend_iface>
    private let backend: OpaquePointer
    /// open/close, unit_count/unit_info and graph_prepare are called one at a time.
    private let lock = Mutex()
    private var cachedUnits: [UnitInfo]?

    private init(path: String, name: String, version: String, abiMinor: UInt32,
                 table: UnsafePointer<wai_backend_iface>, backend: OpaquePointer) {
        self.path = path; self.name = name; self.version = version; self.abiMinor = abiMinor
        self.table = table; self.backend = backend
    }

    deinit {
        // Prepared graphs hold a strong reference, so none is alive here.
        table.pointee.close?(backend)
    }

    /// dlopen, look up the one entry symbol, negotiate the version, check the table, open.
    public static func load(path: String) throws -> BackendPlugin {
        try ELFCheck.check(path: path)
        // A path without a slash would make dlopen search the library path instead.
        let dlPath = path.contains("/") ? path : "./" + path
        _ = dlerror()
        guard let handle = dlopen(dlPath, RTLD_NOW | RTLD_LOCAL) else {
            throw PluginError.dlopenFailed(path: path, dlerror: lastDLError() ?? "unknown error")
        }
        _ = dlerror()
        guard let symbol = dlsym(handle, WAI_BACKEND_ENTRY_SYMBOL) else {
            throw PluginError.missingEntry(path: path, symbol: WAI_BACKEND_ENTRY_SYMBOL)
        }
        let entry = unsafeBitCast(symbol, to: wai_backend_entry_fn.self)

        var tableOut: UnsafePointer<wai_backend_iface>?
        let (status, message) = callWithMessage { err, cap in
            entry(WAI_ABI_MAJOR, WAI_ABI_MINOR, &tableOut, err, cap)
        }
        guard status == WAI_OK else {
            throw PluginError.entryRefused(path: path, status: statusName(status), message: message)
        }
        guard let table = tableOut else {
            throw PluginError.badTable(path: path, reason: "entry point returned ok but no table")
        }
        // struct_size first: nothing else in the table is read before it is known to exist.
        let needed = Int(WAI_BACKEND_IFACE_SIZE_1_0)
        guard table.pointee.struct_size >= needed else {
            throw PluginError.badTable(path: path,
                reason: "struct_size \(table.pointee.struct_size) is smaller than the \(needed) bytes of ABI \(WAI_ABI_MAJOR).0")
        }
        let t = table.pointee
        guard t.abi_major == WAI_ABI_MAJOR else {
            throw PluginError.badTable(path: path,
                reason: "ABI major \(t.abi_major), host speaks \(WAI_ABI_MAJOR)")
        }
        let missing = [("open", t.open == nil), ("close", t.close == nil),
                       ("unit_count", t.unit_count == nil), ("unit_info", t.unit_info == nil),
                       ("graph_prepare", t.graph_prepare == nil), ("graph_run", t.graph_run == nil),
                       ("graph_release", t.graph_release == nil)].filter { $0.1 }.map { $0.0 }
        guard missing.isEmpty else {
            throw PluginError.badTable(path: path, reason: "NULL function pointers: \(missing.joined(separator: ", "))")
        }
        guard let namePtr = t.name else { throw PluginError.badTable(path: path, reason: "name is NULL") }
        let name = String(cString: namePtr)
        guard !name.isEmpty, !name.contains(where: { $0 == ":" || $0.isWhitespace }) else {
            throw PluginError.badTable(path: path,
                reason: "name \"\(name)\" must be non-empty without ':' or white space (it is used in unit selections)")
        }
        let version = t.version.map { String(cString: $0) } ?? ""

        var backend: OpaquePointer?
        let (openStatus, openMessage) = callWithMessage { err, cap in t.open!(&backend, err, cap) }
        guard openStatus == WAI_OK else {
            throw PluginError.callFailed(path: path, call: "open", status: statusName(openStatus), message: openMessage)
        }
        guard let opened = backend else {
            throw PluginError.callFailed(path: path, call: "open", status: "ok", message: "returned no backend object")
        }
        return BackendPlugin(path: path, name: name, version: version, abiMinor: t.abi_minor,
                             table: table, backend: opened)
    }

    /// The units the backend offers, asked once and then remembered.
    public func units() throws -> [UnitInfo] {
        try lock.withLock {
            if let cachedUnits { return cachedUnits }
            let t = table.pointee
            var count: UInt32 = 0
            let (status, message) = Self.callWithMessage { err, cap in t.unit_count!(backend, &count, err, cap) }
            guard status == WAI_OK else {
                throw PluginError.callFailed(path: path, call: "unit_count", status: Self.statusName(status), message: message)
            }
            // A plugin claiming billions of units is broken, not big.
            guard count <= 4096 else {
                throw PluginError.callFailed(path: path, call: "unit_count", status: "ok", message: "absurd unit count \(count)")
            }
            var result: [UnitInfo] = []
            for u in 0..<count {
                var info = wai_unit_info()
                info.struct_size = MemoryLayout<wai_unit_info>.size
                let (s, m) = Self.callWithMessage { err, cap in t.unit_info!(backend, u, &info, err, cap) }
                guard s == WAI_OK else {
                    throw PluginError.callFailed(path: path, call: "unit_info(\(u))", status: Self.statusName(s), message: m)
                }
                guard let kind = UnitKind(abi: info.kind) else {
                    throw PluginError.badUnit(path: path, unit: Int(u), reason: "unknown unit kind \(info.kind)")
                }
                result.append(UnitInfo(index: Int(u), kind: kind,
                                       device: Self.boundedString(info.device),
                                       driver: Self.boundedString(info.driver),
                                       narrowStorage: info.narrow_storage != 0))
            }
            cachedUnits = result
            return result
        }
    }

    /// Hands the whole graph to the backend once; the result runs it many times.
    public func prepare(unit: Int, graph: IntegerGraph) throws -> PreparedGraph {
        let available = try units()
        guard available.indices.contains(unit) else {
            throw PluginError.badUnit(path: path, unit: unit, reason: "no such unit (the backend offers \(available.count))")
        }
        let marshalled = try MarshalledGraph(graph)
        let t = table.pointee
        let prepared: OpaquePointer = try lock.withLock {
            var out: OpaquePointer?
            let (status, message) = marshalled.withDescription { desc in
                Self.callWithMessage { err, cap in t.graph_prepare!(backend, UInt32(unit), desc, &out, err, cap) }
            }
            guard status == WAI_OK else {
                throw PluginError.callFailed(path: path, call: "graph_prepare", status: Self.statusName(status), message: message)
            }
            guard let out else {
                throw PluginError.callFailed(path: path, call: "graph_prepare", status: "ok", message: "returned no prepared graph")
            }
            return out
        }
        withExtendedLifetime(marshalled) {}
        return PreparedGraph(plugin: self, handle: prepared, graph: graph)
    }

    // MARK: - helpers shared with PreparedGraph

    /// Runs a plugin call with a zeroed message buffer and reads the message back, bounded
    /// by the buffer even if the plugin forgot the terminating NUL.
    static func callWithMessage(_ call: (UnsafeMutablePointer<CChar>, Int) -> wai_status) -> (wai_status, String) {
        var buffer = [CChar](repeating: 0, count: pluginMessageCapacity)
        let status = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
        buffer[buffer.count - 1] = 0
        let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (status, message)
    }

    static func statusName(_ status: wai_status) -> String {
        let name = String(cString: wai_status_name(status))
        return name == "unknown" ? "unknown status \(status.rawValue)" : name
    }

    private static func boundedString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func lastDLError() -> String? {
        guard let e = dlerror() else { return nil }
        return String(cString: e)
    }
}
