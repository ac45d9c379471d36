// Idle libcurl easy handles by destination, so consecutive posts to one collector reuse its
// keep-alive connection (a new connection costs the collector a thread start per bundle,
// docs/collector.md §Measured). curl checks a kept connection before reusing it and, when
// a reused one turns out dead before any answer, retries once on a fresh one; a failure after
// that fails the post, and the handle is dropped so the next post starts clean.

import CCurl
import Foundation

final class CurlHandlePool: @unchecked Sendable {
    static let shared = CurlHandlePool()

    /// Handles kept per destination: one per concurrent poster is enough (delivery posts
    /// one bundle at a time, CMCD one batch at a time).
    let perDestination: Int
    /// Destinations kept; past this the least recently used one's handles are closed.
    let destinations: Int
    private let lock = NSLock()
    private var idle: [String: [UnsafeMutableRawPointer]] = [:]
    private var order: [String] = []

    init(perDestination: Int = 4, destinations: Int = 8) {
        self.perDestination = perDestination
        self.destinations = destinations
    }

    /// scheme://host:port of `url` (lowercased): connections are per origin, not per path.
    static func destination(of url: String) -> String {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), let host = c.host?.lowercased() else { return url }
        let port = c.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// An idle handle for `destination` (its connection kept), or a new one.
    func take(_ destination: String) -> UnsafeMutableRawPointer? {
        lock.lock()
        let kept = idle[destination]?.popLast()
        lock.unlock()
        return kept ?? curl_easy_init()
    }

    /// Keeps `handle` for the next post to `destination`, or closes it when the pool is full.
    /// Its options are reset first: they point at the finished post's body and buffers.
    /// NOSIGNAL stays on: closing a kept TLS connection later writes to a peer maybe gone.
    func give(_ handle: UnsafeMutableRawPointer, to destination: String) {
        curl_easy_reset(handle)
        _ = waih_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        var close: [UnsafeMutableRawPointer] = []
        lock.lock()
        var list = idle[destination] ?? []
        if list.count < perDestination { list.append(handle) } else { close.append(handle) }
        idle[destination] = list
        order.removeAll { $0 == destination }
        order.append(destination)
        while order.count > destinations {
            let old = order.removeFirst()
            close += idle.removeValue(forKey: old) ?? []
        }
        lock.unlock()
        close.forEach { curl_easy_cleanup($0) }
    }

    /// Closes every kept handle (and so its connection).
    func closeAll() {
        lock.lock()
        let all = idle.values.flatMap { $0 }
        idle = [:]
        order = []
        lock.unlock()
        all.forEach { curl_easy_cleanup($0) }
    }
}
