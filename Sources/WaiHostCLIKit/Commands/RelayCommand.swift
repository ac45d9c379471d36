import Relay
import Audit
#if canImport(Glibc)
import Glibc
#endif
import Foundation

enum RelayCommand: Command {
    static let spec = CommandSpec(
        name: "relay",
        summary: "serve an HLS stream to a player on loopback, verifying what it relays",
        synopsis: ["URL [--require-signed --publisher-key HEX] [--content-addressed] [--port N] [--idle-after SECONDS]",
                   "    [--cache-mb N] [--max-object-mb N] [--json] [--allow-origin ORIGIN]... [--max-connections N]",
                   "    [--header-timeout S] [--no-prefetch] [--max-revision-age SECONDS] [--collector URL --owner HEX [--installation-key FILE]]"],
        description: """
            Serves one playback session of the playlist at URL on 127.0.0.1 and prints the URL to give the \
            player (one line; with --json, one JSON object). Runs until the session ends (--idle-after, \
            SIGINT, SIGTERM). Each object withheld is reported on stderr. Behaviour, status codes and \
            headers: docs/relay.md.
            """,
        positionals: [PositionalSpec("URL", help: "the origin's playlist (http or https)")],
        options: [
            .flag("require-signed", help: "every playlist must verify against its receipt under --publisher-key (and, live, its revision chain); every object must be named by its SHA-256 and match it"),
            .flag("content-addressed", help: "every object must be named by its SHA-256 and match it"),
            .value("publisher-key", "HEX", help: "the publisher's Ed25519 public key, 64 hex digits"),
            .value("port", "N", help: "listen on 127.0.0.1:N (default: a free port)"),
            .value("idle-after", "SECONDS", help: "end the session after SECONDS without a player request"),
            .value("cache-mb", "N", help: "memory for released objects (default 256)"),
            .value("max-object-mb", "N", help: "largest object fetched (default 64)"),
            .flag("json", help: "print the URL and each withheld object as JSON lines (each with a schema field)"),
            .repeated("allow-origin", "ORIGIN", help: "let web pages of ORIGIN (scheme://host[:port]) read from the relay (CORS). Without it no page may."),
            .value("max-connections", "N", help: "player connections at most (default 128)"),
            .value("header-timeout", "S", help: "a request's headers must arrive within S seconds (default 10); 0 turns the slow-client defences off (for comparison)"),
            .flag("no-prefetch", help: "do not fetch the next listed objects while the player receives one (for comparison)"),
            .value("max-revision-age", "S", help: "with --require-signed: a live playlist's first revision may be at most max(S, 3 x target duration) seconds old (default 60)"),
        ] + AuditCLIOptions.options,
        exitStatus: [(3, "an audit bundle could be neither spooled nor delivered before the relay exited (its evidence is lost)")])

    struct Options {
        var url: String
        var relay: RelayOptions
        var json: Bool
        var audit: AuditCLIOptions
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        var options = RelayOptions()
        options.requireSigned = p.flag("require-signed")
        options.contentAddressed = p.flag("content-addressed")
        options.prefetchNext = !p.flag("no-prefetch")
        if let v = p.value("publisher-key") {
            guard let key = Hex.decode(v), key.count == 32 else { throw p.error("--publisher-key needs 64 lowercase hex digits") }
            options.publisherKey = key
        }
        if let port = try p.value("port", expected: "a port in 0…65535", { UInt16($0) }) { options.port = port }
        if let s = try p.value("idle-after", expected: "a positive number of seconds", { Double($0).flatMap { $0 > 0 ? $0 : nil } }) {
            options.idleAfterSeconds = s
        }
        if let n = try p.int("cache-mb", in: 0...(1 << 20)) { options.cacheBytes = n << 20 }
        if let n = try p.int("max-object-mb", in: 1...(1 << 14)) { options.origin.maxObjectBytes = n << 20 }
        for v in p.values("allow-origin") {
            guard v.hasPrefix("http://") || v.hasPrefix("https://"), !v.dropFirst(8).contains("/") else {
                throw p.error("--allow-origin needs an origin like https://app.example:8443 (no path), not \(v)")
            }
            options.allowedWebOrigins.append(v)
        }
        if let n = try p.int("max-connections", in: 4...4096) { options.connections.maxConnections = UInt32(n) }
        if let v = try p.double("header-timeout", in: 0...3600) {
            if v == 0 { options.connections.deadlines = nil } else { options.connections.deadlines?.headerSeconds = v }
        }
        if let n = try p.value("max-revision-age", expected: "a positive whole number of seconds", { UInt64($0).flatMap { $0 > 0 ? $0 : nil } }) {
            options.maxFirstRevisionAgeSeconds = n
        }
        if options.requireSigned, options.publisherKey == nil { throw p.error("--require-signed needs --publisher-key") }
        let audit = try AuditCLIOptions(p)
        return Options(url: p.positionals[0], relay: options, json: p.flag("json"), audit: audit)
    }

    /// The JSON lines the relay prints.
    struct Started: Encodable { var url: String; var port: UInt16 }
    struct Ended: Encodable { var ended: String }

    static func run(_ o: Options) throws -> Int32 {
        let (origin, options, json, audit) = (o.url, o.relay, o.json, o.audit)
        // Block the stop signals before any thread exists, so every thread inherits the mask
        // and only the waiter below receives them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let auditing = try audit.start()
        let observer: RelayObserver = auditing.map { FanOutObserver([StderrObserver(json: json), $0.recorder]) }
            ?? StderrObserver(json: json)
        let session = try RelaySession(origin: origin, options: options, observer: observer)
        if json {
            Output.out(try JSON.line(Started(url: session.playerURL, port: session.port), schema: .relay))
        } else {
            Output.out(session.playerURL)
        }
        fflush(stdout)

        let waiter = Thread { [stopSignals] in
            var set = stopSignals
            var sig: Int32 = 0
            sigwait(&set, &sig)
            session.end(reason: .closed)
        }
        waiter.start()
        session.waitUntilEnded()
        let reason = session.ended?.rawValue ?? "closed"
        session.close()
        Output.err(json ? (try JSON.line(Ended(ended: reason), schema: .relayEnded)) : "waihost relay: session ended (\(reason))")
        return auditing?.finish(endReason: session.ended ?? .closed, json: json) ?? ExitCode.ok
    }
}

private final class StderrObserver: RelayObserver, @unchecked Sendable {
    let json: Bool
    init(json: Bool) { self.json = json }

    func received(_ event: ObjectEvent) {
        guard case .withheld(let reason, let detail) = event.outcome else { return }
        if json {
            let line: [String: String] = ["withheld": reason, "detail": detail, "origin": event.originURL,
                                          "path": event.localPath, "sha256": event.sha256 ?? ""]
            if let text = try? JSON.line(line, schema: .relayWithheld) { Output.err(text) }
        } else {
            // originURL comes redacted (no user:password) from the session.
            Output.err("withheld \(event.localPath) (\(event.originURL)): \(reason): \(detail)")
        }
    }
}
