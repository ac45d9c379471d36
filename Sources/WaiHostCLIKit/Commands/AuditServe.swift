// `waihost audit serve`: the collector (docs/collector.md). The `audit` command dispatches here.
import Audit
import Relay
#if canImport(Glibc)
import Glibc
#endif

enum AuditServe {
    static let spec = CommandSpec(
        name: "serve",
        summary: "run the collector: verify, store and acknowledge audit bundles",
        synopsis: ["--db sqlite:PATH|postgres://… --key OWNER_KEYFILE [--port N] [--bind ADDR]... [--max-connections N]",
                   "    [--max-upload-mb N] [--trust HEX]..."],
        description: """
            Runs the collector: POST /v1/sessions (audit bundles), GET|POST /v1/cmcd (CMCD reports). A bundle \
            is acknowledged, signed with the owner key, only after it is durably committed. Prints \
            {"port":N,"listen":[…],…,"schema":"waihost.audit-serve/1"} on stdout once listening \
            (listen: every ADDRESS:PORT it listens on, e.g. "[::1]:8480"); SIGINT/SIGTERM stop it. GET /health: 200 when the store takes writes.
            """,
        options: [
            .value("db", "LOCATION", help: "sqlite:PATH (WAL, synchronous=FULL) or a libpq postgres:// URI", required: true),
            .value("key", "FILE", help: "the owner's key file (waihost keygen); bundles must be addressed to it", completion: .file([]), required: true),
            .value("port", "N", help: "TCP port (default 8480; 0 picks a free one)"),
            .repeated("bind", "ADDR", help: "address to listen on, IPv4 or IPv6 (repeatable; default 127.0.0.1 and ::1, the IPv4 and IPv6 loopback)"),
            .value("max-connections", "N", help: "concurrent connections (default 256)"),
            .value("max-upload-mb", "N", help: "request bodies held at once, all connections together (default 256, at least 16); beyond it uploads get 503"),
            .repeated("trust", "HEX", help: "accept only bindings by these installation keys (default: any installation key whose binding verifies)"),
        ])

    struct Options {
        var location: StoreLocation
        var keyPath: String
        var port: UInt16
        /// Empty: both loopbacks (IPv4 alone where the kernel has no IPv6).
        var binds: [String]
        var connections: UInt32
        var uploadBudget: Int
        var trusted: Set<Ed25519PublicKey>?
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        let location: StoreLocation
        do { location = try StoreLocation(parsing: p.value("db") ?? "") } catch { throw p.error("--db: \(error)") }
        var trusted: Set<Ed25519PublicKey>?
        for v in p.values("trust") {
            guard let k = try? Ed25519PublicKey(hex: v) else { throw p.error("--trust needs 64 lowercase hex digits") }
            trusted = (trusted ?? []).union([k])
        }
        return Options(location: location, keyPath: p.value("key") ?? "",
                       port: try p.value("port", expected: "a port in 0…65535") { UInt16($0) } ?? 8480,
                       binds: p.values("bind"),
                       connections: UInt32(try p.int("max-connections", in: 1...4096) ?? Int(CollectorServer.defaultConnectionLimit)),
                       uploadBudget: (try p.int("max-upload-mb", in: 16...(1 << 20))).map { $0 << 20 } ?? CollectorServer.defaultUploadBudget,
                       trusted: trusted)
    }

    static func run(_ o: Options) throws -> Int32 {
        let (location, keyPath, port, binds, connections, uploadBudget, trusted) = (o.location, o.keyPath, o.port, o.binds, o.connections, o.uploadBudget, o.trusted)
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
        Output.out("{\"port\":\(server.port),\"bind\":\"\(jsonEscaped(bind))\",\"listen\":[\(listening.map { "\"\(jsonEscaped($0))\"" }.joined(separator: ","))],\"db\":\"\(jsonEscaped(shown))\",\"owner\":\"\(key.publicKey.hex)\",\"schema\":\"\(Schema.auditServe.id)\"}")
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
