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
    /// Per object id, the object its playlist lists next: fetched ahead (docs/relay.md, "Throughput").
    private var successor: [Int: Int] = [:]
    /// Events of objects fetched ahead, reported when the player first asks for them.
    private var unreported: [Int: PendingEvent] = [:]
    /// Objects being fetched ahead, at most `aheadDepth`.
    private var fetchesAhead = 0
    /// How far ahead of the player the relay fetches: the next listed object and the one after.
    static let aheadDepth = 2
    private var endReason: EndReason?
    private var lastRequest = monotonicSeconds()
    /// Tests only (set before the first request): told when a request is about to wait on
    /// another's fetch (`woke` false) and when that fetch's outcome reached it (`woke` true),
    /// so a test can order a race instead of sleeping.
    var waitObserver: (@Sendable (_ objectId: Int, _ woke: Bool) -> Void)?
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
        case .object: return serveObject(target, range: request.header("range"), fetchNext: request.method == "GET")
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
        let body = fetched.body
        let event = record(target, effectiveURL: fetched.effectiveURL, bytes: body,
                           outcome: result.verified ? .verified : .relayed, response: fetched.timing)
        if let event = event { observer?.playlistReleased(event, body: body) }
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
        if options.prefetchNext {
            var previous: Int?
            for (l, id) in zip(listed, ids) where l.kind == .object {
                if let p = previous, p != id { successor[p] = id }
                previous = id
            }
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
        successor[id] = nil
        unreported[id] = nil
    }

    private func serveObject(_ target: OriginTarget, range: String?, fetchNext: Bool) -> HTTPResponse {
        switch obtain(target) {
        case .released(let object):
            // The next object is fetched and checked while this one is sent.
            if fetchNext { fetchAhead(after: target.id) }
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
        enum Step { case done(Obtained, ObjectEvent?), wait(FetchWaiter), fetch(FetchWaiter) }
        let step: Step = state.withLock {
            if endReason != nil { return .done(.ended, nil) }
            if let hit = cache.get(target.id) { return .done(.released(hit), unreported.removeValue(forKey: target.id)?.claim()) }
            if let w = withheldObjects[target.id] {
                return .done(.withheld(w.reason, w.detail), unreported.removeValue(forKey: target.id)?.claim())
            }
            if let w = inFlight[target.id] { return .wait(w) }
            let w = FetchWaiter()
            inFlight[target.id] = w
            // An origin failure met ahead is superseded: this fetch reports itself.
            unreported[target.id] = nil
            return .fetch(w)
        }
        switch step {
        case .done(let o, let event):
            if let e = event { observer?.received(e) }
            return o
        case .wait(let w):
            waitObserver?(target.id, false)
            let o = w.wait()
            waitObserver?(target.id, true)
            // A fetch ahead is reported now that the player asks for what it fetched: its
            // event travels with the waiter, so a fresh fetch started meanwhile (after an
            // origin failure) cannot leave this request's answer unreported.
            let e: ObjectEvent? = state.withLock {
                guard let p = w.pending else { return nil }
                if unreported[target.id] === p { unreported[target.id] = nil }
                return p.claim()
            }
            if let e = e { observer?.received(e) }
            return o
        case .fetch(let w):
            let (outcome, _) = fetchAndCheck(target, report: true)
            settle(target, outcome, waiter: w, unreported: nil)
            return outcome
        }
    }

    /// With the fetch done: the outcome kept for the next requests, the waiters woken.
    private func settle(_ target: OriginTarget, _ outcome: Obtained, waiter: FetchWaiter, unreported event: ObjectEvent?) {
        state.withLock {
            inFlight[target.id] = nil
            switch outcome {
            case .released(let object):
                for evicted in cache.put(target.id, object) {
                    unreported[evicted] = nil
                    if !table.isListed(evicted) { forget(evicted) }
                }
            // A verdict on the bytes stands for the session; an origin that failed
            // (a live segment not there yet, a timeout) is asked again next time.
            case .withheld(let r, let d) where !r.hasPrefix("origin_"): withheldObjects[target.id] = (r, d)
            case .withheld: break
            case .ended: break
            }
            // For the player's first request; one that finds an origin failure fetches again
            // and reports that fetch instead.
            if let e = event {
                let p = PendingEvent(e)
                waiter.pending = p
                if table.target(target.id) != nil { unreported[target.id] = p }
            }
        }
        waiter.finish(outcome)
    }

    /// Fetches and checks the objects listed after `id`, up to `aheadDepth` of them, skipping
    /// those cached, withheld or in flight, and at most `aheadDepth` at once. Their events wait
    /// for the player's requests.
    private func fetchAhead(after id: Int) {
        guard options.prefetchNext else { return }
        let claimed: [(OriginTarget, FetchWaiter)] = state.withLock {
            var out: [(OriginTarget, FetchWaiter)] = []
            var at = id
            for _ in 0..<Self.aheadDepth {
                guard endReason == nil, fetchesAhead < Self.aheadDepth, let n = successor[at], let t = table.target(n),
                      t.kind == .object else { break }
                at = n
                guard !cache.contains(n), withheldObjects[n] == nil, inFlight[n] == nil else { continue }
                fetchesAhead += 1
                let w = FetchWaiter()
                inFlight[n] = w
                out.append((t, w))
            }
            return out
        }
        for (target, waiter) in claimed {
            let thread = Thread { [self] in
                let (outcome, event) = fetchAndCheck(target, report: false)
                settle(target, outcome, waiter: waiter, unreported: event)
                state.withLock { fetchesAhead -= 1 }
            }
            thread.stackSize = 512 << 10
            thread.start()
        }
    }

    /// The outcome, and its event: reported at once when `report`, else returned.
    private func fetchAndCheck(_ target: OriginTarget, report: Bool) -> (Obtained, ObjectEvent?) {
        let fetched: OriginResponse
        do {
            // A fetch ahead claimed before the session ended may get its thread, or its slot,
            // only after: it must not start a transfer then (docs/relay.md, "Ending a session").
            fetched = try fetchSlotted {
                guard ended == nil else { throw OriginError.cancelled(url: target.url) }
                return try origin.fetch(target.url, cancelled: cancelCheck)
            }
        } catch let e as OriginError {
            if case .cancelled = e { return (.ended, nil) }
            let event = record(target, effectiveURL: nil, sha256: nil, size: 0,
                               outcome: .withheld(reason: e.code, detail: e.description), response: e.timing, report: report)
            return (.withheld(e.code, e.description), event)
        } catch {
            let event = record(target, effectiveURL: nil, sha256: nil, size: 0,
                               outcome: .withheld(reason: "origin_error", detail: "\(error)"), response: nil, report: report)
            return (.withheld("origin_error", "\(error)"), event)
        }
        let digest = Hex.encode(fetched.sha256)
        let verdict = ObjectCheck.judge(uri: target.url, name: target.name, sha256: digest, options: options)
        let type = ContentType.forName(target.name)
        switch verdict {
        case .withheld(let reason, let detail):
            let event = record(target, effectiveURL: fetched.effectiveURL, sha256: digest, size: fetched.bytes.count,
                               outcome: .withheld(reason: reason, detail: detail), response: fetched.timing, report: report)
            return (.withheld(reason, detail), event)
        case .verified, .relayed:
            let event = record(target, effectiveURL: fetched.effectiveURL, sha256: digest, size: fetched.bytes.count,
                               outcome: verdict == .verified ? .verified : .relayed, response: fetched.timing, report: report)
            return (.released(CachedObject(bytes: fetched.bytes, sha256: digest, contentType: type)), event)
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

    /// The event, given to the observer unless `report` is false (a fetch ahead, reported
    /// when the player asks).
    @discardableResult
    private func record(_ target: OriginTarget, effectiveURL: String?, sha256: String?, size: Int,
                        outcome: ObjectEvent.Outcome, response: OriginTiming?, report: Bool = true) -> ObjectEvent? {
        guard let observer = observer else { return nil }
        let event = ObjectEvent(localPath: target.localPath, originURL: redactingUserinfo(target.url),
                                effectiveURL: effectiveURL.map(redactingUserinfo), kind: target.kind, sha256: sha256,
                                size: size, outcome: outcome, time: wallClockSeconds(), response: response)
        if report { observer.received(event) }
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
            return HTTPResponse(status: 200, headers: headers, shared: .init(object.bytes))
        case .range(let first, let last):
            headers.append(("Content-Range", "bytes \(first)-\(last)/\(length)"))
            return HTTPResponse(status: 206, headers: headers, shared: .init(object.bytes, range: first..<(last + 1)))
        case .unsatisfiable:
            headers.append(("Content-Range", "bytes */\(length)"))
            return HTTPResponse(status: 416, headers: headers)
        }
    }
}

private final class WeakSession: @unchecked Sendable {
    weak var session: RelaySession?
}
