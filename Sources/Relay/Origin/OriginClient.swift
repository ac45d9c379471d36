// The origin side: libcurl fetches whole objects into memory, follows redirects and reports
// the URL it ended at, because relative URIs in a playlist resolve against that URL.

import WaiSupport
import CCurl
#if canImport(Glibc)
import Glibc
#endif

public enum OriginError: Error, Equatable, CustomStringConvertible {
    /// libcurl could not complete the transfer (connection refused, timeout, bad URL ...).
    case transport(url: String, code: Int, message: String)
    /// The origin answered with an HTTP error status (`timing.status`), whole.
    case status(url: String, status: Int, timing: OriginTiming)
    /// The object is larger than the relay's per-object bound.
    case tooLarge(url: String, limit: Int)
    /// The session ended while the transfer ran.
    case cancelled(url: String)
    /// The connection went to a loopback or private address that is not the origin's own
    /// (AddressPolicy): a playlist URI or redirect pointed into the local network.
    case forbiddenAddress(url: String, address: String)

    public var description: String {
        switch self {
        case .transport(let url, let code, let message): return "origin \(url): transfer failed (curl \(code)): \(message)"
        case .status(let url, let status, _): return "origin \(url): HTTP \(status)"
        case .tooLarge(let url, let limit): return "origin \(url): larger than the \(limit)-byte object bound"
        case .cancelled(let url): return "origin \(url): cancelled, session ended"
        case .forbiddenAddress(let url, let a): return "origin \(url): refused to connect to \(a), a loopback or private address that is not the origin's"
        }
    }

    /// The origin's answer when one was received whole (an HTTP error status); nil when the
    /// transfer failed or was stopped.
    public var timing: OriginTiming? {
        if case .status(_, _, let t) = self { return t }
        return nil
    }

    /// A short code for the relay's withhold header and the observer.
    public var code: String {
        switch self {
        case .transport: return "origin_unreachable"
        case .status: return "origin_status"
        case .tooLarge: return "too_large"
        case .cancelled: return "session_ended"
        case .forbiddenAddress: return "address_forbidden"
        }
    }
}

/// One whole object from the origin.
public struct OriginResponse: Sendable {
    public var body: [UInt8]
    /// SHA-256 of `body`, computed while it arrived (so hashing overlaps the transfer).
    public var sha256: [UInt8]
    /// The URL after redirects.
    public var effectiveURL: String
    public var status: Int
    public var contentType: String?
    public var timing: OriginTiming
}

public struct OriginLimits: Sendable {
    public var connectTimeoutSeconds: Int = 10
    /// The whole transfer, so a stalled origin gives the player a definite answer.
    public var transferTimeoutSeconds: Int = 30
    public var maxObjectBytes: Int = 64 << 20
    public var maxRedirects: Int = 10
    public init() {}
}

/// Fetches through a small pool of easy handles, which keeps the origin's connections alive
/// across requests (a player fetches segment after segment from one host).
public final class OriginClient: @unchecked Sendable {
    public let limits: OriginLimits
    /// nil: any address (a client that fetches only what its caller names).
    public let addressPolicy: AddressPolicy?
    private let lock = Mutex()
    private var idle: [UnsafeMutableRawPointer] = []

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    public init(limits: OriginLimits = OriginLimits(), addressPolicy: AddressPolicy? = nil) {
        _ = Self.globalInit
        self.limits = limits
        self.addressPolicy = addressPolicy
    }

    deinit { for h in idle { curl_easy_cleanup(h) } }

    /// GET `url` whole. `cancelled` is polled during the transfer. `limit` lowers the size
    /// bound for this fetch (a playlist's). Errors name the URL with its userinfo redacted.
    public func fetch(_ url: String, limit: Int? = nil, cancelled: @escaping @Sendable () -> Bool = { false }) throws -> OriginResponse {
        let shown = redactingUserinfo(url)
        guard let handle = take() else {
            throw OriginError.transport(url: shown, code: -1, message: "curl_easy_init failed")
        }
        let bound = min(limit ?? limits.maxObjectBytes, limits.maxObjectBytes)
        let sink = TransferSink(limit: bound, cancelled: cancelled, policy: addressPolicy)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { eb in
            curl_easy_reset(handle)
            _ = waih_curl_setopt_string(handle, CURLOPT_URL, url)
            _ = waih_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = waih_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            _ = waih_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            _ = waih_curl_setopt_long(handle, CURLOPT_MAXREDIRS, limits.maxRedirects)
            _ = waih_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = waih_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, limits.connectTimeoutSeconds)
            _ = waih_curl_setopt_long(handle, CURLOPT_TIMEOUT, limits.transferTimeoutSeconds)
            _ = waih_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
            _ = waih_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(eb.baseAddress))
            let ctx = Unmanaged.passUnretained(sink).toOpaque()
            _ = waih_curl_setopt_write_function(handle, writeCallback)
            _ = waih_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, ctx)
            _ = waih_curl_setopt_xferinfo_function(handle, progressCallback)
            _ = waih_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, ctx)
            if addressPolicy != nil {
                _ = waih_curl_setopt_prereq_function(handle, prereqCallback)
                _ = waih_curl_setopt_pointer(handle, CURLOPT_PREREQDATA, ctx)
            }
            return withExtendedLifetime(sink) { curl_easy_perform(handle) }
        }
        defer { give(handle) }
        if let refused = sink.refusedAddress { throw OriginError.forbiddenAddress(url: shown, address: refused) }
        if sink.overflowed { throw OriginError.tooLarge(url: shown, limit: bound) }
        if sink.wasCancelled { throw OriginError.cancelled(url: shown) }
        guard code == CURLE_OK else {
            var message = String(cString: errorBuffer)
            if message.isEmpty { message = String(cString: curl_easy_strerror(code)) }
            throw OriginError.transport(url: shown, code: Int(code.rawValue), message: redactingUserinfo(message))
        }
        var status = 0
        _ = waih_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>? = nil
        _ = waih_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        var type: UnsafeMutablePointer<CChar>? = nil
        _ = waih_curl_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &type)
        let effectiveURL = effective.map { String(cString: $0) } ?? url
        let timing = Self.timing(handle, status: status)
        guard (200..<300).contains(status) else {
            throw OriginError.status(url: redactingUserinfo(effectiveURL), status: status, timing: timing)
        }
        return OriginResponse(body: sink.take(), sha256: sink.digest(), effectiveURL: effectiveURL, status: status,
                              contentType: type.map { String(cString: $0) }, timing: timing)
    }

    /// curl's own timers for the transfer just completed on `handle` (microseconds from the
    /// start of the transfer, redirects included), floored to milliseconds.
    private static func timing(_ handle: UnsafeMutableRawPointer, status: Int) -> OriginTiming {
        var first: curl_off_t = 0, last: curl_off_t = 0
        _ = waih_curl_getinfo_off_t(handle, CURLINFO_STARTTRANSFER_TIME_T, &first)
        _ = waih_curl_getinfo_off_t(handle, CURLINFO_TOTAL_TIME_T, &last)
        let lastMs = max(0, Int64(last) / 1000)
        // Both come from one clock; the bound keeps first ≤ last if rounding inside curl differs.
        return OriginTiming(status: status, firstByteMs: min(max(0, Int64(first) / 1000), lastMs), lastByteMs: lastMs)
    }

    private func take() -> UnsafeMutableRawPointer? {
        if let h = lock.withLock({ idle.popLast() }) { return h }
        return curl_easy_init()
    }

    private func give(_ handle: UnsafeMutableRawPointer) {
        let keep = lock.withLock { () -> Bool in
            guard idle.count < 16 else { return false }
            idle.append(handle)
            return true
        }
        if !keep { curl_easy_cleanup(handle) }
    }
}

/// The body as it arrives, in one array grown by doubling (or sized once from the declared
/// length) and handed over without a copy, so an object in flight costs its size once: plain
/// memcpy per chunk, whatever the build's optimisation level.
private final class TransferSink {
    /// `buffer.count` is the capacity in use; the first `count` bytes are the body.
    private var buffer: [UInt8] = []
    private(set) var count = 0
    private let hasher = SHA256Hasher()
    let limit: Int
    let cancelled: @Sendable () -> Bool
    let policy: AddressPolicy?
    var overflowed = false
    var wasCancelled = false
    /// "ip port" of a connection the policy refused.
    var refusedAddress: String?
    init(limit: Int, cancelled: @escaping @Sendable () -> Bool, policy: AddressPolicy?) {
        self.limit = limit
        self.cancelled = cancelled
        self.policy = policy
    }

    func reserve(_ n: Int) -> Bool {
        guard n > buffer.count else { return true }
        guard n <= limit else { return false }
        // memcpy and memset, not element by element (debug builds do not optimise that).
        let old = buffer, used = count
        buffer = [UInt8](unsafeUninitializedCapacity: n) { b, initialized in
            guard let base = b.baseAddress else { initialized = 0; return }
            old.withUnsafeBytes { o in if used > 0, let ob = o.baseAddress { memcpy(base, ob, used) } }
            memset(base + used, 0, n - used)
            initialized = n
        }
        return true
    }

    func append(_ data: UnsafeRawPointer, _ n: Int) -> Bool {
        if count + n > buffer.count, !reserve(max(count + n, min(limit, max(buffer.count * 2, 64 << 10)))) { return false }
        buffer.withUnsafeMutableBytes { b in
            if let base = b.baseAddress { memcpy(base + count, data, n) }
        }
        hasher.update(UnsafeRawBufferPointer(start: data, count: n))
        count += n
        return true
    }

    func digest() -> [UInt8] { hasher.finalize() }

    /// The body; the sink is empty afterwards.
    func take() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &buffer)
        out.removeLast(out.count - count)
        count = 0
        return out
    }
}

private let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    guard let ctx = ctx else { return 0 }
    let sink = Unmanaged<TransferSink>.fromOpaque(ctx).takeUnretainedValue()
    let n = size * count
    // Returning fewer bytes than offered makes libcurl abort with CURLE_WRITE_ERROR.
    if sink.count + n > sink.limit { sink.overflowed = true; return 0 }
    if sink.cancelled() { sink.wasCancelled = true; return 0 }
    if n > 0, let data = data, !sink.append(data, n) { return 0 }
    return n
}

private let progressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { ctx, total, _, _, _ in
    guard let ctx = ctx else { return 0 }
    let sink = Unmanaged<TransferSink>.fromOpaque(ctx).takeUnretainedValue()
    // A declared length over the bound stops the transfer before any body arrives.
    if total > curl_off_t(sink.limit) { sink.overflowed = true; return 1 }
    if total > 0, !sink.reserve(Int(total)) { return 1 }
    if sink.cancelled() { sink.wasCancelled = true; return 1 }
    return 0
}

/// Called on every connection made or reused, redirects included, before its request is sent.
private let prereqCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32) -> Int32 = { ctx, primaryIP, _, primaryPort, _ in
    guard let ctx = ctx else { return Int32(CURL_PREREQFUNC_ABORT) }
    let sink = Unmanaged<TransferSink>.fromOpaque(ctx).takeUnretainedValue()
    guard let policy = sink.policy else { return Int32(CURL_PREREQFUNC_OK) }
    let ip = primaryIP.map { String(cString: $0) } ?? ""
    if policy.allows(ip: ip, port: Int(primaryPort)) { return Int32(CURL_PREREQFUNC_OK) }
    sink.refusedAddress = "\(ip) port \(primaryPort)"
    return Int32(CURL_PREREQFUNC_ABORT)
}
