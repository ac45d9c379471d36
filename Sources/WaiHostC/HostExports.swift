import WaiHost
import WaiHostCAPI
#if canImport(Glibc)
import Glibc
#endif

// docs/c-api.md §3, §5.1, §6: version, opening and closing a host, the one free function.

@_cdecl("waihost_version")
public func waihost_version() -> UInt32 {
    (WAIHOST_API_MAJOR << 16) | WAIHOST_API_MINOR
}

@_cdecl("waihost_free")
public func waihost_free(_ p: UnsafeMutableRawPointer?) {
    free(p)
}

@_cdecl("waihost_open")
public func waihost_open(_ options: UnsafePointer<waihost_open_options>?,
                         _ host: UnsafeMutablePointer<OpaquePointer?>?,
                         _ msg: UnsafeMutablePointer<CChar>?, _ cap: Int) -> waihost_status {
    guarded(msg, cap) {
        guard let host else { throw CAPIFailure.null("host") }
        host.pointee = nil
        host.pointee = HostHandle(try HostConfiguration.from(options)).opaque
    }
}

@_cdecl("waihost_close")
public func waihost_close(_ host: OpaquePointer?) {
    if let host { HostHandle.release(host) }
}
