import Relay
import Audit
#if canImport(Glibc)
import Glibc
#endif
import Foundation

enum RelayCommand: Command {
    static let name = "relay"
    static let summary = "serve an HLS stream to a player on loopback, verifying what it relays"
    static let help = """
        usage: waihost relay URL [--require-signed] [--content-addressed]
                                 [--publisher-key HEX] [--port N] [--idle-after SECONDS]
                                 [--cache-mb N] [--max-object-mb N] [--json]
                                 [--allow-origin ORIGIN]... [--max-connections N]
                                 [--header-timeout S]
                                 [--max-revision-age SECONDS]
                                 [--collector URL --owner HEX [--installation-key FILE]]

        Serves one playback session of the playlist at URL on 127.0.0.1 and prints the URL
        to give the player (one line; with --json, one JSON object). Runs until the session
        ends (--idle-after, SIGINT, SIGTERM). Each object withheld is reported on stderr.

          --require-signed      every playlist must verify against its receipt under
                                --publisher-key (and, live, its revision chain); every
                                object must be named by its SHA-256 and match it
          --content-addressed   every object must be named by its SHA-256 and match it
          --publisher-key HEX   the publisher's Ed25519 public key, 64 hex digits
          --port N              listen on 127.0.0.1:N (default: a free port)
          --idle-after SECONDS  end the session after SECONDS without a player request
          --cache-mb N          memory for released objects (default 256)
          --max-object-mb N     largest object fetched (default 64)
          --json                print the URL and each withheld object as JSON lines
          --allow-origin ORIGIN let web pages of ORIGIN (scheme://host[:port]) read from
                                the relay (CORS); repeatable. Without it no page may.
          --max-connections N   player connections at most (default 128)
          --header-timeout S    a request's headers must arrive within S seconds (default
                                10); 0 turns the slow-client defences off (for comparison)
          --max-revision-age S  with --require-signed: a live playlist's first revision
                                may be at most max(S, 3 x target duration) seconds old
                                (default 60)
          --collector URL       audit the session (docs/audit-bundle.md): post its signed
                                bundle to URL/v1/sessions (spooled until acknowledged) and
                                CMCD event reports to URL/v1/cmcd
          --owner HEX           the collector's owner key; its acknowledgement must verify
          --installation-key F  the key that binds each session key (default: created under
                                the cache dir, audit/installation.key)
          --deliver-wait S      wait up to S seconds (default 15) at the end for the
                                collector's acknowledgement; unacknowledged bundles stay
                                spooled and are posted on the next audited run

        Behaviour, status codes and headers: docs/relay.md.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = ArgumentCursor(arguments)
        var options = RelayOptions()
        var url: String?
        var json = false
        var audit = AuditCLIOptions()
        while let a = args.next() {
            if try audit.parse(a, &args) { continue }
            switch a {
            case "--require-signed": options.requireSigned = true
            case "--content-addressed": options.contentAddressed = true
            case "--json": json = true
            case "--publisher-key":
                let v = try args.value(for: a)
                guard let key = Hex.decode(v), key.count == 32 else {
                    throw UsageError(message: "--publisher-key needs 64 lowercase hex digits")
                }
                options.publisherKey = key
            case "--port":
                guard let p = UInt16(try args.value(for: a)) else { throw UsageError(message: "--port needs 0...65535") }
                options.port = p
            case "--idle-after":
                guard let s = Double(try args.value(for: a)), s > 0 else {
                    throw UsageError(message: "--idle-after needs a positive number of seconds")
                }
                options.idleAfterSeconds = s
            case "--cache-mb":
                guard let n = Int(try args.value(for: a)), n >= 0, n <= 1 << 20 else { throw UsageError(message: "--cache-mb needs a whole number") }
                options.cacheBytes = n << 20
            case "--max-object-mb":
                guard let n = Int(try args.value(for: a)), n > 0, n <= 1 << 14 else { throw UsageError(message: "--max-object-mb needs a positive whole number") }
                options.origin.maxObjectBytes = n << 20
            case "--allow-origin":
                let v = try args.value(for: a)
                guard v.hasPrefix("http://") || v.hasPrefix("https://"), !v.dropFirst(8).contains("/") else {
                    throw UsageError(message: "--allow-origin needs an origin like https://app.example:8443 (no path), not \(v)")
                }
                options.allowedWebOrigins.append(v)
            case "--max-connections":
                guard let n = UInt32(try args.value(for: a)), n >= 4, n <= 4096 else {
                    throw UsageError(message: "--max-connections needs 4...4096")
                }
                options.connections.maxConnections = n
            case "--header-timeout":
                guard let v = Double(try args.value(for: a)), v >= 0, v <= 3600 else {
                    throw UsageError(message: "--header-timeout needs seconds in [0, 3600]")
                }
                if v == 0 { options.connections.deadlines = nil } else { options.connections.deadlines?.headerSeconds = v }
            case "--max-revision-age":
                guard let n = UInt64(try args.value(for: a)), n > 0 else {
                    throw UsageError(message: "--max-revision-age needs a positive whole number of seconds")
                }
                options.maxFirstRevisionAgeSeconds = n
            default:
                if a.hasPrefix("-") { throw UsageError(message: "unknown option \(a)") }
                guard url == nil else { throw UsageError(message: "one URL only") }
                url = a
            }
        }
        guard let origin = url else { throw UsageError(message: "missing URL") }
        if options.requireSigned, options.publisherKey == nil {
            throw UsageError(message: "--require-signed needs --publisher-key")
        }

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
            Output.out("{\"url\":\"\(session.playerURL)\",\"port\":\(session.port)}")
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
        Output.err(json ? "{\"ended\":\"\(reason)\"}" : "waihost relay: session ended (\(reason))")
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
            if let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) {
                Output.err(String(decoding: data, as: UTF8.self))
            }
        } else {
            // originURL comes redacted (no user:password) from the session.
            Output.err("withheld \(event.localPath) (\(event.originURL)): \(reason): \(detail)")
        }
    }
}
