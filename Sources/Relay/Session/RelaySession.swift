// One playback session: the loopback server the player is given, the origin behind it, and
// the checks between them (docs/relay.md).

import WaiSupport
#if canImport(Glibc)
import Glibc
#endif
import Foundation

public enum RelaySessionError: Error, CustomStringConvertible {
    case missingPublisherKey
    case badOriginURL(String)

    public var description: String {
        switch self {
        case .missingPublisherKey: return "--require-signed needs the publisher's public key"
        case .badOriginURL(let u): return "origin URL must be absolute http(s): \(u)"
        }
    }
}

public final class RelaySession: @unchecked Sendable {
    public let options: RelayOptions
    public let originURL: String
    public let port: UInt16

    private let observer: RelayObserver?
    private let origin: OriginClient
    private var server: HTTPServer?
    private let state = Mutex()
    private var table = LocalURLTable()
    private var cache: ObjectCache
    private var withheldObjects: [Int: (reason: String, detail: String)] = [:]
    private var inFlight: [Int: FetchWaiter] = [:]
    private var finalPlaylists: [Int: [UInt8]] = [:]
    private var endReason: EndReason?
    private var lastRequest = monotonicSeconds()
    let gate: PlaylistGate
    private let endSignal = Signal()
    /// The session's path prefix (docs/relay.md, "Local URLs").
    private let prefix: String
    private let fetchSlots: DispatchSemaphore

    /// Starts serving at once; `playerURL` is what to give the player.
    public init(origin originURL: String, options: RelayOptions = RelayOptions(),
                observer: RelayObserver? = nil) throws {
        let lower = originURL.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw RelaySessionError.badOriginURL(redactingUserinfo(originURL))
        }
        if options.requireSigned, options.publisherKey == nil { throw RelaySessionError.missingPublisherKey }
        self.options = options
        self.originURL = removingCMCD(originURL)
        self.observer = observer
        origin = OriginClient(limits: options.origin, addressPolicy: AddressPolicy.forOrigin(self.originURL))
        cache = ObjectCache(budget: options.cacheBytes)
        gate = try PlaylistGate(options: options, root: self.originURL)
        prefix = Self.randomPrefix()
        fetchSlots = DispatchSemaphore(value: max(1, options.maxConcurrentFetches))
        let root = table.register(url: self.originURL, kind: .playlist)
        table.pin(root.id)
        let box = WeakSession()
        let c = options.connections
        server = try HTTPServer(port: options.port, connectionTimeoutSeconds: c.idleSeconds,
                                connectionLimit: c.maxConnections, slowClients: c.deadlines) { request in
            guard let s = box.session else { return HTTPResponse(status: 410) }
            return s.handle(request)
        }
        port = server?.port ?? 0
        box.session = self
        if let idle = options.idleAfterSeconds { startIdleWatch(after: idle) }
    }

    /// 128 random bits: a page in a browser that finds the port still cannot name a URL.
    private static func randomPrefix() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }

    deinit { server?.stop() }

    /// The entry playlist on loopback.
    public var playerURL: String { baseURL + "/r/0/" + LocalURLTable.name(of: originURL) }

    /// Where every local URL of this session starts: loopback, the port, the session's prefix.
    var baseURL: String { "http://127.0.0.1:\(port)/\(prefix)" }

    /// Connections cut for missing a header or body deadline.
    public var slowClientsCut: Int { server?.slowClientsCut ?? 0 }

    /// Origin URLs the session still maps local paths to (it shrinks as live windows slide).
    var tableCount: Int { state.withLock { table.count } }

    /// Ends the session: every later request is answered 410 and nothing more is fetched.
    /// The first reason given is kept.
    public func end(reason: EndReason) {
        let first = state.withLock { () -> Bool in
            guard endReason == nil else { return false }
            endReason = reason
            return true
        }
        guard first else { return }
        endSignal.fire()
        observer?.sessionEnded(reason)
    }

    /// Why the session ended, or nil while it runs.
    public var ended: EndReason? { state.withLock { endReason } }

    /// Blocks until the session ends.
    public func waitUntilEnded() { endSignal.wait() }

    /// Ends the session (if it has not ended) and closes the listener.
    public func close() {
        end(reason: .closed)
        server?.stop()
    }

    // MARK: requests

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        // DNS rebinding: a page whose name now resolves to 127.0.0.1 sends its own name.
        guard let host = request.header("host")?.lowercased(), host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return Self.plain(421, "Host \(request.header("host") ?? "(none)") is not this relay (127.0.0.1:\(port))")
        }
        let webOrigin = request.header("origin")
        if let o = webOrigin, !options.allowedWebOrigins.contains(o) {
            return Self.plain(403, "web origin \(o) is not allowed to use this relay")
        }
        var response = route(request)
        if let o = webOrigin {
            response.headers += Self.cors(o)
        }
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let running = state.withLock { () -> Bool in
            lastRequest = monotonicSeconds()
            return endReason == nil
        }
        guard running else { return Self.plain(410, "session ended") }
        let mine = "/" + prefix + "/"
        guard request.path.hasPrefix(mine) else { return Self.plain(404, "not a path this relay handed out") }
        let local = request.path.dropFirst(mine.count - 1)
        guard let target = state.withLock({ table.lookup(path: local) }) else {
            return Self.plain(404, "not a path this relay handed out")
        }
        if request.method == "OPTIONS" {
            return HTTPResponse(status: 204, headers: [("Access-Control-Max-Age", "600")])
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.plain(405, "method not allowed", [("Allow", "GET, HEAD, OPTIONS")])
        }
        switch target.kind {
        case .playlist: return servePlaylist(target)
        case .object: return serveObject(target, range: request.header("range"))
        }
    }

    private func servePlaylist(_ target: OriginTarget) -> HTTPResponse {
        // A playlist with EXT-X-ENDLIST cannot change: the checked copy is served again.
        if let body = state.withLock({ finalPlaylists[target.id] }) {
            return Self.playlistResponse(body)
        }
        // One fetch slot covers the fetch and the processing: a playlist costs memory while it
        // is parsed and rewritten too (docs/relay.md, "Memory").
        fetchSlots.wait()
        defer { fetchSlots.signal() }
        return fetchAndRelease(target)
    }

    private func fetchAndRelease(_ target: OriginTarget) -> HTTPResponse {
        let fetched: OriginResponse
        do {
            fetched = try origin.fetch(target.url, limit: options.playlistLimits.maxBytes, cancelled: cancelCheck)
        } catch let e as OriginError {
            if case .tooLarge = e {
                return withhold(target, effectiveURL: nil, bytes: nil, reason: "playlist_too_large", detail: e.description)
            }
            return withhold(target, effectiveURL: nil, bytes: nil, reason: e.code, detail: e.description, response: e.timing)
        } catch {
            return withhold(target, effectiveURL: nil, bytes: nil, reason: "origin_error", detail: "\(error)")
        }
        if ended != nil { return Self.plain(410, "session ended") }
        let result: PlaylistGate.Released
        do {
            // Parsing, verifying and rewriting run outside the session's lock; only the
            // registration of the URIs takes it.
            let base = baseURL
            result = try gate.release(target: target, fetched: fetched) { listed in
                state.withLock { register(listed, for: target, base: base) }
            }
        } catch let e as PlaylistGate.Refusal {
            return withhold(target, effectiveURL: fetched.effectiveURL, bytes: fetched.body, reason: e.code, detail: e.detail,
                            response: fetched.timing)
        } catch {
            return withhold(target, effectiveURL: fetched.effectiveURL, bytes: fetched.body, reason: "playlist_invalid",
                            detail: "\(error)", response: fetched.timing)
        }
        if result.final { state.withLock { finalPlaylists[target.id] = result.body } }
        let event = record(target, effectiveURL: fetched.effectiveURL, bytes: fetched.body,
                           outcome: result.verified ? .verified : .relayed, response: fetched.timing)
        if let event = event { observer?.playlistReleased(event, body: fetched.body) }
        return Self.playlistResponse(result.body)
    }

    /// With the lock held: the local paths for one playlist revision's URIs, and what slid
    /// out of the window is forgotten unless its checked copy is still cached.
    private func register(_ listed: [PlaylistGate.Listed], for playlist: OriginTarget, base: String) -> [String] {
        var ids: [Int] = []
        ids.reserveCapacity(listed.count)
        let paths = listed.map { l -> String in
            let t = table.register(url: l.url, kind: l.kind)
            ids.append(t.id)
            return base + t.localPath
        }
        for id in table.released(playlist: playlist.id, listing: ids) where !cache.contains(id) && inFlight[id] == nil {
            forget(id)
        }
        return paths
    }

    /// With the lock held.
    private func forget(_ id: Int) {
        guard table.remove(id) else { return }
        withheldObjects[id] = nil
        finalPlaylists[id] = nil
    }

    private func serveObject(_ target: OriginTarget, range: String?) -> HTTPResponse {
        switch obtain(target) {
        case .released(let object):
            return Self.objectResponse(object, range: range)
        case .withheld(let reason, let detail):
            return Self.withheldResponse(reason: reason, detail: detail)
        case .ended:
            return Self.plain(410, "session ended")
        }
    }

    enum Obtained {
        case released(CachedObject)
        case withheld(String, String)
        case ended
    }

    /// One origin fetch per object however many requests (ranges of one byte-range file) ask
    /// for it at once; the others wait for its outcome.
    private func obtain(_ target: OriginTarget) -> Obtained {
        enum Step { case done(Obtained), wait(FetchWaiter), fetch(FetchWaiter) }
        let step: Step = state.withLock {
            if endReason != nil { return .done(.ended) }
            if let hit = cache.get(target.id) { return .done(.released(hit)) }
            if let w = withheldObjects[target.id] { return .done(.withheld(w.reason, w.detail)) }
            if let w = inFlight[target.id] { return .wait(w) }
            let w = FetchWaiter()
            inFlight[target.id] = w
            return .fetch(w)
        }
        switch step {
        case .done(let o): return o
        case .wait(let w): return w.wait()
        case .fetch(let w):
            let outcome = fetchAndCheck(target)
            state.withLock {
                inFlight[target.id] = nil
                switch outcome {
                case .released(let object):
                    for evicted in cache.put(target.id, object) where !table.isListed(evicted) { forget(evicted) }
                // A verdict on the bytes stands for the session; an origin that failed
                // (a live segment not there yet, a timeout) is asked again next time.
                case .withheld(let r, let d) where !r.hasPrefix("origin_"): withheldObjects[target.id] = (r, d)
                case .withheld: break
                case .ended: break
                }
            }
            w.finish(outcome)
            return outcome
        }
    }

    private func fetchAndCheck(_ target: OriginTarget) -> Obtained {
        let fetched: OriginResponse
        do {
            fetched = try fetchSlotted { try origin.fetch(target.url, cancelled: cancelCheck) }
        } catch let e as OriginError {
            if case .cancelled = e { return .ended }
            record(target, effectiveURL: nil, bytes: nil, outcome: .withheld(reason: e.code, detail: e.description),
                   response: e.timing)
            return .withheld(e.code, e.description)
        } catch {
            record(target, effectiveURL: nil, bytes: nil, outcome: .withheld(reason: "origin_error", detail: "\(error)"))
            return .withheld("origin_error", "\(error)")
        }
        let digest = Hex.encode(fetched.sha256)
        let verdict = ObjectCheck.judge(uri: target.url, name: target.name, sha256: digest, options: options)
        let type = ContentType.forName(target.name)
        switch verdict {
        case .withheld(let reason, let detail):
            record(target, effectiveURL: fetched.effectiveURL, sha256: digest, size: fetched.body.count,
                   outcome: .withheld(reason: reason, detail: detail), response: fetched.timing)
            return .withheld(reason, detail)
        case .verified, .relayed:
            record(target, effectiveURL: fetched.effectiveURL, sha256: digest, size: fetched.body.count,
                   outcome: verdict == .verified ? .verified : .relayed, response: fetched.timing)
            return .released(CachedObject(bytes: fetched.body, sha256: digest, contentType: type))
        }
    }

    /// Runs one origin fetch in one of the `maxConcurrentFetches` slots (a slot frees within
    /// the transfer timeout, so waiting is bounded too).
    private func fetchSlotted(_ body: () throws -> OriginResponse) throws -> OriginResponse {
        fetchSlots.wait()
        defer { fetchSlots.signal() }
        return try body()
    }

    private var cancelCheck: @Sendable () -> Bool {
        { [weak self] in self?.ended != nil }
    }

    // MARK: records

    private func withhold(_ target: OriginTarget, effectiveURL: String?, bytes: [UInt8]?,
                          reason: String, detail: String, response: OriginTiming? = nil) -> HTTPResponse {
        if reason == "session_ended" { return Self.plain(410, "session ended") }
        record(target, effectiveURL: effectiveURL, bytes: bytes, outcome: .withheld(reason: reason, detail: detail),
               response: response)
        return Self.withheldResponse(reason: reason, detail: detail)
    }

    @discardableResult
    private func record(_ target: OriginTarget, effectiveURL: String?, bytes: [UInt8]?, outcome: ObjectEvent.Outcome,
                        response: OriginTiming? = nil) -> ObjectEvent? {
        record(target, effectiveURL: effectiveURL, sha256: bytes.map { Hex.encode(SHA256Hasher.digest($0)) },
               size: bytes?.count ?? 0, outcome: outcome, response: response)
    }

    @discardableResult
    private func record(_ target: OriginTarget, effectiveURL: String?, sha256: String?, size: Int,
                        outcome: ObjectEvent.Outcome, response: OriginTiming?) -> ObjectEvent? {
        guard let observer = observer else { return nil }
        let event = ObjectEvent(localPath: target.localPath, originURL: redactingUserinfo(target.url),
                                effectiveURL: effectiveURL.map(redactingUserinfo), kind: target.kind, sha256: sha256,
                                size: size, outcome: outcome, time: wallClockSeconds(), response: response)
        observer.received(event)
        return event
    }

    // MARK: idle

    private func startIdleWatch(after seconds: Double) {
        let thread = IdleWatch { [weak self] () -> Bool in
            guard let self = self else { return false }
            let (last, running) = self.state.withLock { (self.lastRequest, self.endReason == nil) }
            guard running else { return false }
            if monotonicSeconds() - last >= seconds {
                self.end(reason: .idleTimeout)
                return false
            }
            return true
        }
        thread.start()
    }

    // MARK: responses

    /// CORS headers for a web origin the embedder allowed (handle() refuses the others).
    static func cors(_ origin: String) -> [(String, String)] {
        [
            ("Access-Control-Allow-Origin", origin),
            ("Vary", "Origin"),
            ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
            ("Access-Control-Allow-Headers", "Range"),
            ("Access-Control-Expose-Headers", "Content-Length, Content-Range, Accept-Ranges, X-Relay-Withheld, X-Relay-Reason"),
        ]
    }

    static func plain(_ status: Int, _ text: String, _ extra: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: extra + [("Content-Type", "text/plain; charset=utf-8"),
                                                              ("Cache-Control", "no-store")],
                     body: ArraySlice(Array((text + "\n").utf8)))
    }

    static func withheldResponse(reason: String, detail: String) -> HTTPResponse {
        // Header values must stay on one line of printable ASCII.
        let safe = String(detail.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" }.prefix(400))
        return plain(502, "withheld: \(reason): \(safe)", [("X-Relay-Withheld", reason), ("X-Relay-Reason", safe)])
    }

    static func playlistResponse(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", ContentType.playlist),
                                                  ("Cache-Control", "no-cache")],
                     body: body[...])
    }

    static func objectResponse(_ object: CachedObject, range: String?) -> HTTPResponse {
        let length = object.bytes.count
        var headers = [("Content-Type", object.contentType), ("Accept-Ranges", "bytes"),
                              ("Cache-Control", "max-age=86400, immutable"),
                              ("ETag", "\"\(object.sha256)\"")]
        switch RangeRequest(header: range, length: length) {
        case .whole:
            return HTTPResponse(status: 200, headers: headers, body: object.bytes[...])
        case .range(let first, let last):
            headers.append(("Content-Range", "bytes \(first)-\(last)/\(length)"))
            return HTTPResponse(status: 206, headers: headers, body: object.bytes[first...last])
        case .unsatisfiable:
            headers.append(("Content-Range", "bytes */\(length)"))
            return HTTPResponse(status: 416, headers: headers)
        }
    }
}

private final class WeakSession: @unchecked Sendable {
    weak var session: RelaySession?
}
