// A loopback HTTP server on libmicrohttpd. One thread per connection, so a handler may block
// on the origin without stalling the player's other connections.

import WaiSupport
import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

public enum HTTPServerError: Error, CustomStringConvertible {
    case socket(step: String, errno: Int32)
    case daemonStart(port: UInt16)
    /// libmicrohttpd, loaded on first use (Sources/CLazyLibrary), could not be loaded.
    case library(String)

    public var description: String {
        switch self {
        case .library(let why): return "loopback server: \(why)"
        case .socket(let step, let e): return "loopback listener: \(step) failed: \(String(cString: strerror(e)))"
        case .daemonStart(let port): return "libmicrohttpd did not start on port \(port)"
        }
    }
}

/// Serves `handler` on 127.0.0.1 only, or on the addresses given (IPv4 or IPv6, all on one
/// port). `port` 0 picks a free port; `port` says which.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let port: UInt16
    /// The addresses listened on, in the order given.
    public let addresses: [String]
    private var daemons: [OpaquePointer] = []
    private let box: HandlerBox
    private let lock = Mutex()

    /// `maxRequestBody` 0 discards request bodies (the relay takes none); above 0, bodies up
    /// to that many bytes reach the handler and a larger one is answered 413 by the server.
    /// `bindAddress` is an IPv4 address; the default keeps the relay on loopback.
    /// `slowClients`: per-request header and body deadlines (ConnectionWatch); nil leaves only
    /// libmicrohttpd's idle timeout.
    public convenience init(port requested: UInt16 = 0, bindAddress: String = "127.0.0.1",
                            connectionTimeoutSeconds: UInt32 = 60, connectionLimit: UInt32 = 64,
                            maxRequestBody: Int = 0, slowClients: SlowClientDeadlines? = nil, bodyBudget: BodyBudget? = nil,
                            handler: @escaping Handler) throws {
        try self.init(port: requested, bindAddresses: [bindAddress], connectionTimeoutSeconds: connectionTimeoutSeconds,
                      connectionLimit: connectionLimit, maxRequestBody: maxRequestBody, slowClients: slowClients,
                      bodyBudget: bodyBudget, handler: handler)
    }

    /// One listener per address, all on the same port (the first address's, when `port` is
    /// 0), each its own libmicrohttpd daemon over the one handler; `connectionLimit` holds
    /// per address. An IPv6 listener takes IPv6 only (IPV6_V6ONLY).
    public init(port requested: UInt16 = 0, bindAddresses: [String],
                connectionTimeoutSeconds: UInt32 = 60, connectionLimit: UInt32 = 64,
                maxRequestBody: Int = 0, slowClients: SlowClientDeadlines? = nil, bodyBudget: BodyBudget? = nil,
                handler: @escaping Handler) throws {
        guard !bindAddresses.isEmpty else { throw HTTPServerError.socket(step: "listen (no address given)", errno: EINVAL) }
        if let unloadable = waih_mhd_load() { throw HTTPServerError.library(String(cString: unloadable)) }
        let sockets = try Self.listeners(addresses: bindAddresses, port: requested)
        let watch = slowClients.map { ConnectionWatch($0, limit: Int(connectionLimit)) }
        box = HandlerBox(handler, maxBody: maxRequestBody, watch: watch, budget: bodyBudget)
        port = sockets.port
        addresses = bindAddresses
        for (i, fd) in sockets.fds.enumerated() {
            guard let d = Self.startDaemon(fd: fd, box: box, connectionTimeoutSeconds: connectionTimeoutSeconds,
                                           connectionLimit: connectionLimit, watching: watch != nil) else {
                for rest in sockets.fds[i...] { close(rest) }
                daemons.forEach { MHD_stop_daemon($0) }
                daemons = []
                throw HTTPServerError.daemonStart(port: sockets.port)
            }
            daemons.append(d)
        }
        watch?.start()
    }

    private static func startDaemon(fd: Int32, box: HandlerBox, connectionTimeoutSeconds: UInt32,
                                    connectionLimit: UInt32, watching: Bool) -> OpaquePointer? {
        let flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_USE_POLL.rawValue
        let cls = Unmanaged.passUnretained(box).toOpaque()
        var opts: [CVarArg] = [
            MHD_OPTION.LISTEN_SOCKET.rawValue, fd,
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, connectionTimeoutSeconds,
            // Each connection is a thread and may hold an object in flight: a bound on both.
            MHD_OPTION.CONNECTION_LIMIT.rawValue, connectionLimit,
            // Frees a connection's body buffer however the request ended (even a dropped upload).
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(requestCompleted, to: OpaquePointer.self),
            Int(bitPattern: cls),
        ]
        // Always: connections are counted (connectionsOpened), and watched when asked.
        opts += [MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionNotified, to: OpaquePointer.self), Int(bitPattern: cls)]
        opts.append(MHD_OPTION.END.rawValue)
        return withVaList(opts) { va in
            MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, cls, va)
        }
    }

    /// TCP connections accepted so far, all listeners together (a keep-alive client's
    /// requests share one).
    public var connectionsOpened: Int { box.opened.withLock { box.openedCount } }

    /// Connections cut for missing a header or body deadline so far (0 without `slowClients`).
    public var slowClientsCut: Int { box.watch?.cut ?? 0 }

    /// Closes the listener and every connection; waits for handlers to return.
    public func stop() {
        let ds: [OpaquePointer] = lock.withLock {
            let ds = daemons
            daemons = []
            return ds
        }
        ds.forEach { MHD_stop_daemon($0) }
        box.watch?.stop()
    }

    deinit { stop() }

    /// Binds every address on one port: the first picks it when `port` is 0, the others take
    /// the same; when another program holds that port on a later address, a new port is
    /// tried (a few times).
    private static func listeners(addresses: [String], port: UInt16) throws -> (fds: [Int32], port: UInt16) {
        var attempt = 0
        while true {
            var fds: [Int32] = []
            do {
                var chosen = port
                for a in addresses {
                    let (fd, bound) = try listener(address: a, port: chosen)
                    fds.append(fd)
                    chosen = bound
                }
                return (fds, chosen)
            } catch HTTPServerError.socket(_, let e) where e == EADDRINUSE && port == 0 && !fds.isEmpty && attempt < 8 {
                fds.forEach { close($0) }
                attempt += 1
            } catch {
                fds.forEach { close($0) }
                throw error
            }
        }
    }

    /// Binding the socket here (not through libmicrohttpd's port option) pins the address
    /// (127.0.0.1, ::1, …) and lets getsockname report the port the kernel chose for port 0.
    private static func listener(address: String, port: UInt16) throws -> (Int32, UInt16) {
        var storage = sockaddr_storage()
        let length: Int
        var in4 = in_addr(), in6 = in6_addr()
        if inet_pton(AF_INET, address, &in4) == 1 {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            a.sin_addr = in4
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: a, as: sockaddr_in.self) }
            length = MemoryLayout<sockaddr_in>.size
        } else if inet_pton(AF_INET6, address, &in6) == 1 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            a.sin6_addr = in6
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: a, as: sockaddr_in6.self) }
            length = MemoryLayout<sockaddr_in6>.size
        } else {
            throw HTTPServerError.socket(step: "parse bind address \(address) (an IPv4 or IPv6 address)", errno: EINVAL)
        }
        let family = Int32(storage.ss_family)
        let shown = family == AF_INET6 ? "[\(address)]:\(port)" : "\(address):\(port)"
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError.socket(step: "socket for \(shown)", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        // ::1 means IPv6 loopback only; 127.0.0.1 has its own listener.
        if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw HTTPServerError.socket(step: "bind \(shown)", errno: e)
        }
        guard listen(fd, 128) == 0 else {
            let e = errno
            close(fd)
            throw HTTPServerError.socket(step: "listen", errno: e)
        }
        var actual = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard got == 0 else {
            let e = errno
            close(fd)
            throw HTTPServerError.socket(step: "getsockname", errno: e)
        }
        let chosen = withUnsafeBytes(of: &actual) { raw -> UInt16 in
            family == AF_INET6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port
        }
        return (fd, UInt16(bigEndian: chosen))
    }
}

final class BodyOwner {
    let body: ArraySlice<UInt8>
    init(_ body: ArraySlice<UInt8>) { self.body = body }
}

private let releaseBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls = cls else { return }
    Unmanaged<BodyOwner>.fromOpaque(cls).release()
}

private let releaseShared: MHD_ContentReaderFreeCallback = { cls in
    guard let cls = cls else { return }
    Unmanaged<SharedBytes>.fromOpaque(cls).release()
}

/// libmicrohttpd sends straight from the body's storage, which the retained owner keeps alive
/// and unchanged until libmicrohttpd calls the free callback: no copy of a large object.
private func mhdResponse(_ response: HTTPResponse) -> OpaquePointer? {
    if let shared = response.shared {
        let retained = Unmanaged.passRetained(shared.bytes)
        let r: OpaquePointer? = shared.bytes.withBytes(shared.range) { raw in
            MHD_create_response_from_buffer_with_free_callback_cls(
                raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), releaseShared, retained.toOpaque())
        }
        if r == nil { retained.release() }
        return r
    }
    let owner = BodyOwner(response.body)
    let r: OpaquePointer? = owner.body.withUnsafeBytes { raw in
        MHD_create_response_from_buffer_with_free_callback_cls(
            raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), releaseBody,
            Unmanaged.passRetained(owner).toOpaque())
    }
    if r == nil { Unmanaged.passUnretained(owner).release() }
    return r
}

final class HandlerBox: @unchecked Sendable {
    let handler: HTTPServer.Handler
    let maxBody: Int
    let watch: ConnectionWatch?
    let budget: BodyBudget?
    let opened = Mutex()
    var openedCount = 0
    init(_ handler: @escaping HTTPServer.Handler, maxBody: Int, watch: ConnectionWatch? = nil,
         budget: BodyBudget? = nil) {
        self.handler = handler
        self.maxBody = maxBody
        self.watch = watch
        self.budget = budget
    }
}

private func connectionKey(_ c: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(c))) }

private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, toe in
    guard let cls = cls, let connection = connection else { return }
    let box = Unmanaged<HandlerBox>.fromOpaque(cls).takeUnretainedValue()
    if toe.rawValue == 0 { box.opened.withLock { box.openedCount += 1 } }
    guard let watch = box.watch else { return }
    if toe.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        watch.opened(connectionKey(connection), fd: waih_mhd_connection_fd(connection))
    } else {
        watch.closed(connectionKey(connection))
    }
}

/// One request's upload as it arrives; owned by the connection (retained in its con_cls).
final class UploadState {
    var body: [UInt8] = []
    var tooLarge = false
    /// The body budget was spent: answered 503, the rest read and dropped.
    var overBudget = false
    /// Bytes reserved from `budget`, given back when the request is done.
    var reserved = 0
    weak var budget: BodyBudget?
    deinit { if reserved > 0 { budget?.release(reserved) } }
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
    if let cls = cls, let connection = connection {
        // The next request on this keep-alive connection has its own header deadline.
        Unmanaged<HandlerBox>.fromOpaque(cls).takeUnretainedValue().watch?.enter(connectionKey(connection), .headers)
    }
    guard let conCls = conCls, let p = conCls.pointee else { return }
    conCls.pointee = nil
    Unmanaged<UploadState>.fromOpaque(p).release()
}

/// Reserves what the next `next` bytes of `upload` will occupy: at the first chunk the declared
/// Content-Length (bounded by `max`; the array is sized to it once), later only what a chunked
/// upload outgrows. False when the budget cannot take it.
private func reserveBody(_ upload: UploadState, _ budget: BodyBudget, _ connection: OpaquePointer,
                         next: Int, max: Int) -> Bool {
    if upload.reserved == 0, upload.body.isEmpty,
       let v = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
       let declared = Int(String(cString: v)), declared >= next, declared <= max {
        guard budget.reserve(declared) else { return false }
        upload.reserved = declared
        upload.budget = budget
        upload.body.reserveCapacity(declared)
        return true
    }
    let needed = upload.body.count + next
    guard needed > upload.reserved else { return true }
    // Chunked: the array may double, so reserve twice what it holds.
    let more = min(2 * needed, 2 * max) - upload.reserved
    guard more > 0, budget.reserve(more) else { return false }
    upload.reserved += more
    upload.budget = budget
    return true
}

private let headerCollector: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls = cls, let key = key else { return .YES }
    let headers = cls.assumingMemoryBound(to: [String: String].self)
    headers.pointee[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
    return .YES
}

private let argumentCollector: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls = cls, let key = key else { return .YES }
    let arguments = cls.assumingMemoryBound(to: [String: String].self)
    arguments.pointee[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
    guard let cls = cls, let connection = connection, let conCls = conCls else { return .NO }
    // libmicrohttpd calls once when the headers are in, once per body chunk, then once more;
    // bodies are kept only up to maxBody (0 for the relay: none), and the last call answers.
    let box = Unmanaged<HandlerBox>.fromOpaque(cls).takeUnretainedValue()
    if conCls.pointee == nil {
        conCls.pointee = Unmanaged.passRetained(UploadState()).toOpaque()
        box.watch?.enter(connectionKey(connection), .body)
        return .YES
    }
    guard let statePointer = conCls.pointee else { return .NO }
    let upload = Unmanaged<UploadState>.fromOpaque(statePointer).takeUnretainedValue()
    if let uploadSize = uploadSize, uploadSize.pointee != 0 {
        // Past the limit the rest is read and dropped, so the client still gets its 413.
        if box.maxBody > 0, !upload.tooLarge, !upload.overBudget, let data = uploadData {
            if upload.body.count + uploadSize.pointee > box.maxBody {
                upload.tooLarge = true
                upload.body = []
            } else if let budget = box.budget, !reserveBody(upload, budget, connection, next: uploadSize.pointee, max: box.maxBody) {
                upload.overBudget = true
                upload.body = []
            } else {
                data.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                    upload.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                }
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    var headers: [String: String] = [:]
    withUnsafeMutablePointer(to: &headers) { p in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, headerCollector, UnsafeMutableRawPointer(p))
    }
    var query: [String: String] = [:]
    withUnsafeMutablePointer(to: &query) { p in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, argumentCollector, UnsafeMutableRawPointer(p))
    }
    box.watch?.enter(connectionKey(connection), .answering)
    let response: HTTPResponse
    if upload.tooLarge {
        response = HTTPResponse(status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                body: ArraySlice("request body larger than \(box.maxBody) bytes\n".utf8))
    } else if upload.overBudget, let budget = box.budget {
        response = HTTPResponse(status: 503, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "1")],
                                body: ArraySlice("busy: uploads in progress hold the body budget of \(budget.limit) bytes; retry\n".utf8))
    } else {
        let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET",
                                  path: url.map { String(cString: $0) } ?? "/",
                                  headers: headers, query: query, body: upload.body)
        upload.body = []
        response = box.handler(request)
    }
    guard let r = mhdResponse(response) else { return .NO }
    for (name, value) in response.headers { _ = MHD_add_response_header(r, name, value) }
    let queued = MHD_queue_response(connection, UInt32(response.status), r)
    MHD_destroy_response(r)
    return queued
}
