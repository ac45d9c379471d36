import WaiHost
import WaiHostCAPI

/// What a `waihost_host*` points at: a retained BackendHost. The host is thread-safe, so
/// the handle adds no lock of its own (docs/c-api.md §7).
final class HostHandle {
    let host: BackendHost

    init(_ configuration: HostConfiguration) {
        host = BackendHost(configuration: configuration)
    }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

    static func from(_ p: OpaquePointer?) throws -> HostHandle {
        guard let p else { throw CAPIFailure.null("host") }
        return Unmanaged<HostHandle>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    static func release(_ p: OpaquePointer) {
        Unmanaged<HostHandle>.fromOpaque(UnsafeRawPointer(p)).release()
    }
}

extension HostConfiguration {
    /// The environment's configuration (what the CLI would use) with the members the
    /// caller gave replacing it (docs/c-api.md §5.1). Only the public initialiser's
    /// members are touched, so the host's own additions keep their defaults.
    static func from(_ options: UnsafePointer<waihost_open_options>?) throws -> HostConfiguration {
        var c = HostConfiguration.fromEnvironment()
        // A bad configuration file line or variable fails the open, naming it.
        if let e = c.configurationError { throw CAPIFailure(WAIHOST_ERR_FAILED, "configuration: \(e)") }
        guard let options else { return c }
        // Only the caller's struct_size bytes are read: a 1.0 caller's struct ends where
        // spot_check (1.1) begins, and the members it lacks read as zero (docs/c-api.md §3).
        let given = UnsafeRawPointer(options).load(as: Int.self)
        try CAPIFailure.checkSize(given, "waihost_open_options",
                                  minimum: MemoryLayout<waihost_open_options>.offset(of: \waihost_open_options.spot_check)
                                      ?? MemoryLayout<waihost_open_options>.size)
        var o = waihost_open_options()
        withUnsafeMutableBytes(of: &o) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: options, count: min(given, dst.count)))
        }
        if let dirs = o.plugin_dirs {
            c.pluginDirectories = try (0..<o.plugin_dir_count).map { i in
                guard let d = dirs[i] else { throw CAPIFailure.null("plugin_dirs[\(i)]") }
                return String(cString: d)
            }
        } else if o.plugin_dir_count != 0 {
            throw CAPIFailure(WAIHOST_ERR_INVALID_ARGUMENT, "plugin_dirs is NULL but plugin_dir_count is \(o.plugin_dir_count)")
        }
        if let cache = optionalString(o.cache_dir) { c.cacheDirectory = cache.isEmpty ? nil : cache }
        if let worker = optionalString(o.worker_executable) { c.unitWorkerExecutable = worker }
        if o.probe_timeout_s != 0 {
            guard o.probe_timeout_s > 0, o.probe_timeout_s.isFinite else {
                throw CAPIFailure(WAIHOST_ERR_INVALID_ARGUMENT, "probe_timeout_s is \(o.probe_timeout_s); a positive number of seconds, or 0 for the default")
            }
            c.probeTimeout = o.probe_timeout_s
        }
        if let text = optionalString(o.spot_check) {
            do { c.spotCheck = try SpotCheckPolicy(parsing: text) } catch {
                throw CAPIFailure(WAIHOST_ERR_INVALID_ARGUMENT, "spot_check: \(error)")
            }
        }
        return c
    }
}
