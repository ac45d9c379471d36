// One HTTP POST through libcurl (the collector's v1/sessions and v1/cmcd): the whole answer
// in memory, bounded, with a time limit, over a kept connection to that destination when
// one is open (CurlHandlePool).

import CCurl
import Foundation

public struct HTTPPostResult: Sendable {
    public var status: Int
    public var body: [UInt8]
}

public enum HTTPPostError: Error, Equatable, Sendable, CustomStringConvertible {
    case transport(url: String, code: Int, message: String)
    case responseTooLarge(url: String, limit: Int)

    public var description: String {
        switch self {
        case .transport(let u, let c, let m): return "POST \(Redaction.url(u)): transfer failed (curl \(c)): \(Redaction.message(m))"
        case .responseTooLarge(let u, let l): return "POST \(Redaction.url(u)): response larger than \(l) bytes"
        }
    }
}

enum HTTPPost {
    static func post(_ url: String, body: [UInt8], contentType: String, timeoutSeconds: Int = 30,
                     responseLimit: Int = 1 << 20, pool: CurlHandlePool = .shared) throws -> HTTPPostResult {
        // libcurl is loaded on first use (Sources/CLazyLibrary); every handle comes after this.
        if let unloadable = waih_curl_load() {
            throw HTTPPostError.transport(url: Redaction.url(url), code: -1, message: String(cString: unloadable))
        }
        let destination = CurlHandlePool.destination(of: url)
        guard let h = pool.take(destination) else { throw HTTPPostError.transport(url: Redaction.url(url), code: -1, message: "curl_easy_init failed") }
        // Kept only after a whole answer: a handle whose transfer failed (or whose answer was
        // cut short) is closed with its connection, and the next post connects afresh.
        var keep = false
        defer { if keep { pool.give(h, to: destination) } else { curl_easy_cleanup(h) } }
        let sink = ResponseSink(limit: responseLimit)
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Content-Type: \(contentType)")
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = body.withUnsafeBytes { raw in
            errorBuffer.withUnsafeMutableBufferPointer { eb in
                _ = waih_curl_setopt_string(h, CURLOPT_URL, url)
                _ = waih_curl_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https")
                _ = waih_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1)
                _ = waih_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT, min(10, timeoutSeconds))
                _ = waih_curl_setopt_long(h, CURLOPT_TIMEOUT, timeoutSeconds)
                _ = waih_curl_setopt_long(h, CURLOPT_POST, 1)
                _ = waih_curl_setopt_long(h, CURLOPT_POSTFIELDSIZE, body.count)
                // An empty array's base address may be nil; libcurl then posts nothing.
                _ = waih_curl_setopt_pointer(h, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(eb.baseAddress!)))
                _ = waih_curl_setopt_pointer(h, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
                _ = waih_curl_setopt_pointer(h, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(eb.baseAddress))
                _ = waih_curl_setopt_write_function(h, responseWrite)
                _ = waih_curl_setopt_pointer(h, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
                return withExtendedLifetime(sink) { curl_easy_perform(h) }
            }
        }
        if sink.overflowed { throw HTTPPostError.responseTooLarge(url: Redaction.url(url), limit: responseLimit) }
        guard code == CURLE_OK else {
            var message = String(cString: errorBuffer)
            if message.isEmpty { message = String(cString: curl_easy_strerror(code)) }
            throw HTTPPostError.transport(url: Redaction.url(url), code: Int(code.rawValue), message: Redaction.message(message))
        }
        var status = 0
        _ = waih_curl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        keep = true
        return HTTPPostResult(status: status, body: sink.bytes)
    }
}

private final class ResponseSink {
    var bytes: [UInt8] = []
    let limit: Int
    var overflowed = false
    init(limit: Int) { self.limit = limit }
}

private let responseWrite: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    guard let ctx = ctx else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(ctx).takeUnretainedValue()
    let n = size * count
    if sink.bytes.count + n > sink.limit { sink.overflowed = true; return 0 }
    if n > 0, let data = data {
        sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n))
    }
    return n
}
