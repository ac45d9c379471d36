// `waihost audit serve`: the collector (docs/collector.md). The `audit` command dispatches here.
import Audit
import Relay
#if canImport(Glibc)
import Glibc
#endif

enum AuditServe {
    static let help = """
        usage: waihost audit serve --db sqlite:PATH|postgres://… --key OWNER_KEYFILE
                                   [--port N] [--bind ADDR] [--max-connections N] [--max-upload-mb N]
                                   [--trust HEX]...

        Runs the collector: POST /v1/sessions (audit bundles), GET|POST /v1/cmcd (CMCD reports).
        A bundle is acknowledged, signed with the owner key, only after it is durably committed.

          --db LOCATION        sqlite:PATH (WAL, synchronous=FULL) or a libpq postgres:// URI
          --key FILE           the owner's key file (waihost keygen); bundles must be addressed to it
          --port N             TCP port (default 8480; 0 picks a free one)
          --bind ADDR          address to listen on, IPv4 or IPv6 (repeatable; default
                               127.0.0.1 and ::1, the IPv4 and IPv6 loopback)
          --max-connections N  concurrent connections (default 256)
          --max-upload-mb N    request bodies held at once, all connections together
                               (default 256, at least 16); beyond it uploads get 503
          --trust HEX          accept only bindings by these installation keys (repeatable;
                               default: any installation key whose binding verifies)

        Prints {"port":N,"bind":"…","listen":["127.0.0.1:N","[::1]:N"],"db":"…","owner":"…"}
        on stdout once listening; SIGINT/SIGTERM stop it. GET /health: 200 when the store
        takes writes.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = ArgumentCursor(arguments)
        var db: String?
        var keyPath: String?
        var port: UInt16 = 8480
        var binds: [String] = []
        var connections = CollectorServer.defaultConnectionLimit
        var trusted: Set<Ed25519PublicKey>?
        var uploadBudget = CollectorServer.defaultUploadBudget
        while let a = args.next() {
            switch a {
            case "--db": db = try args.value(for: a)
            case "--key": keyPath = try args.value(for: a)
            case "--port":
                guard let p = UInt16(try args.value(for: a)) else { throw UsageError(message: "--port needs 0…65535") }
                port = p
            case "--bind": binds.append(try args.value(for: a))
            case "--max-connections":
                guard let n = UInt32(try args.value(for: a)), n > 0, n <= 4096 else {
                    throw UsageError(message: "--max-connections needs 1…4096")
                }
                connections = n
            case "--max-upload-mb":
                guard let n = Int(try args.value(for: a)), n >= 16, n <= 1 << 20 else {
                    throw UsageError(message: "--max-upload-mb needs 16…1048576")
                }
                uploadBudget = n << 20
            case "--trust":
                guard let k = try? Ed25519PublicKey(hex: try args.value(for: a)) else {
                    throw UsageError(message: "--trust needs 64 lowercase hex digits")
                }
                trusted = (trusted ?? []).union([k])
            default: throw UsageError(message: "unknown option \(a)")
            }
        }
        guard let dbText = db else { throw UsageError(message: "missing --db sqlite:PATH or postgres://…") }
        guard let keyPath = keyPath else { throw UsageError(message: "missing --key OWNER_KEYFILE") }
        let location: StoreLocation
        do { location = try StoreLocation(parsing: dbText) } catch { throw UsageError(message: "\(error)") }
        let key = try PrivateKeyFile.read(path: keyPath)

        // Blocked before any thread starts, so only the sigwait below receives them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        signal(SIGPIPE, SIG_IGN)

        let store = try location.open()
        let service = CollectorService(store: store, ownerKey: key, trustedInstallationKeys: trusted)
        func serve(_ addresses: [String]) throws -> CollectorServer {
            try CollectorServer(service: service, port: port, bindAddresses: addresses, connectionLimit: connections,
                                uploadBudget: uploadBudget)
        }
        let server: CollectorServer
        if !binds.isEmpty {
            server = try serve(binds)
        } else {
            // Both loopbacks by default; a kernel without IPv6 leaves IPv4 (and says so).
            do { server = try serve(CollectorServer.loopback) } catch HTTPServerError.socket(let step, let e)
                where e == EADDRNOTAVAIL || e == EAFNOSUPPORT {
                Output.err("waihost audit serve: no IPv6 loopback (\(step): \(String(cString: strerror(e)))); listening on 127.0.0.1 only")
                server = try serve(["127.0.0.1"])
            }
        }
        let bind = server.http.addresses[0]
        let listening = server.http.addresses.map { ($0.contains(":") ? "[\($0)]" : $0) + ":\(server.port)" }
        let shown: String
        switch location {
        case .sqlite(let p): shown = "sqlite:" + p
        case .postgres: shown = "postgres"
        }
        Output.out("{\"port\":\(server.port),\"bind\":\"\(jsonEscaped(bind))\",\"listen\":[\(listening.map { "\"\(jsonEscaped($0))\"" }.joined(separator: ","))],\"db\":\"\(jsonEscaped(shown))\",\"owner\":\"\(key.publicKey.hex)\"}")
        fflush(stdout)
        var sig: Int32 = 0
        sigwait(&stopSignals, &sig)
        server.stop()
        store.close()
        Output.err("waihost audit serve: stopped")
        return ExitCode.ok
    }

    private static func jsonEscaped(_ s: String) -> String {
        s.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"")
    }
}

private extension String {
    func replacingEvery(_ a: Character, with b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }
}
