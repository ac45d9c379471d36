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
    /// The body, in the buffer it was received into: the relay caches and serves this very
    /// buffer (docs/relay.md, "Throughput").
    public var bytes: SharedBytes
    /// SHA-256 of the body, computed while it arrived (so hashing overlaps the transfer).
    public var sha256: [UInt8]
    /// The URL after redirects.
    public var effectiveURL: String
    public var status: Int
    public var contentType: String?
    public var timing: OriginTiming

    /// A copy of the body as an array (playlists, which are parsed as arrays).
    public var body: [UInt8] { bytes.array }
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

    static let receiveChunk = 64 << 10

    public init(limits: OriginLimits = OriginLimits(), addressPolicy: AddressPolicy? = nil) {
        self.limits = limits
        self.addressPolicy = addressPolicy
    }

    deinit { for h in idle { curl_easy_cleanup(h) } }

    /// GET `url` whole. `cancelled` is polled during the transfer. `limit` lowers the size
    /// bound for this fetch (a playlist's). Errors name the URL with its userinfo redacted.
    public func fetch(_ url: String, limit: Int? = nil, cancelled: @escaping @Sendable () -> Bool = { false }) throws -> OriginResponse {
        let shown = redactingUserinfo(url)
        // libcurl is loaded on first use (Sources/CLazyLibrary); every handle comes after this.
        if let unloadable = waih_curl_load() {
            throw OriginError.transport(url: shown, code: -1, message: String(cString: unloadable))
        }
        guard let handle = take() else {
            throw OriginError.transport(url: shown, code: -1, message: "curl_easy_init failed")
        }
        let bound = min(limit ?? limits.maxObjectBytes, limits.maxObjectBytes)
        let sink = TransferSink(limit: bound, cancelled: cancelled, policy: addressPolicy, handle: handle)
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
            // Chunks of 64 KiB instead of 16 KiB: a quarter of the calls and wakeups. Not more:
            // curl_easy_reset drops the buffer size, and a buffer over glibc's mmap threshold
            // (128 KiB) would be mapped afresh, page faults included, on every transfer.
            _ = waih_curl_setopt_long(handle, CURLOPT_BUFFERSIZE, OriginClient.receiveChunk)
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
        let digest = sink.digest()
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
        return OriginResponse(bytes: sink.bytes, sha256: digest, effectiveURL: effectiveURL, status: status,
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

/// The body as it arrives, in one buffer sized once from the declared length (or grown by
/// doubling, with realloc) and handed over without a copy, so an object in flight costs its
/// size once; hashed as it lands (BodyHasher).
private final class TransferSink {
    let bytes = SharedBytes()
    private let hasher: BodyHasher
    let limit: Int
    let cancelled: @Sendable () -> Bool
    let policy: AddressPolicy?
    let handle: UnsafeMutableRawPointer
    var overflowed = false
    var wasCancelled = false
    /// "ip port" of a connection the policy refused.
    var refusedAddress: String?
    /// Content-Length of the response whose body arrives, once known (0: none declared).
    var declared = 0
    private var sized = false
    init(limit: Int, cancelled: @escaping @Sendable () -> Bool, policy: AddressPolicy?, handle: UnsafeMutableRawPointer) {
        self.limit = limit
        self.cancelled = cancelled
        self.policy = policy
        self.handle = handle
        hasher = BodyHasher(bytes)
    }

    var count: Int { bytes.count }

    /// At the first chunk: the whole declared length at once (a length over the bound was
    /// refused by the progress callback before any body came).
    private func sizeOnce() -> Bool {
        guard !sized else { return true }
        sized = true
        var length: curl_off_t = -1
        _ = waih_curl_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        guard length > 0 else { return true }
        guard length <= curl_off_t(limit) else { overflowed = true; return false }
        declared = Int(length)
        return grow(to: declared)
    }

    private func grow(to n: Int) -> Bool {
        var ok = true
        hasher.quiesced { ok = bytes.reserve(n) }
        return ok
    }

    func append(_ data: UnsafeRawPointer, _ n: Int) -> Bool {
        guard sizeOnce() else { return false }
        if n > bytes.capacity - bytes.count {
            let want = max(bytes.count + n, min(limit, max(bytes.capacity * 2, 64 << 10)))
            guard grow(to: want) else { return false }
        }
        guard bytes.append(UnsafeRawBufferPointer(start: data, count: n)) else { return false }
        hasher.landed(bytes.count, expected: declared)
        return true
    }

    func digest() -> [UInt8] { hasher.finish() }
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
