// The collector's HTTP endpoints (docs/collector.md): verify, store, and only then acknowledge.
// Every refusal is a 4xx with a one-line reason; nothing refused reaches the store.
import WaiSupport
import Foundation
import Relay
import WaiCrypto

public final class CollectorService: @unchecked Sendable {
    public let store: CollectorStore
    private let ownerKey: Ed25519PrivateKey
    private let trustedInstallationKeys: Set<Ed25519PublicKey>?

    public init(store: CollectorStore, ownerKey: Ed25519PrivateKey,
                trustedInstallationKeys: Set<Ed25519PublicKey>? = nil) {
        self.store = store
        self.ownerKey = ownerKey
        self.trustedInstallationKeys = trustedInstallationKeys
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/v1/sessions":
            guard request.method == "POST" else { return Self.refuse(405, "POST a bundle to /v1/sessions", allow: "POST") }
            return postBundle(request)
        case "/v1/cmcd":
            switch request.method {
            case "GET": return getCMCD(request)
            case "POST": return postCMCD(request)
            default: return Self.refuse(405, "CMCD is GET ?CMCD= or POST", allow: "GET, POST")
            }
        case "/health":
            guard request.method == "GET" || request.method == "HEAD" else { return Self.refuse(405, "GET /health", allow: "GET, HEAD") }
            return health()
        default:
            return Self.refuse(404, "no endpoint \(request.path); the collector serves /v1/sessions, /v1/cmcd and /health")
        }
    }

    // MARK: bundles

    private func postBundle(_ request: HTTPRequest) -> HTTPResponse {
        if let type = Self.mediaType(request), type != "application/json" {
            return Self.refuse(415, "a bundle is application/json, not \(type)")
        }
        let bytes = request.body
        guard !bytes.isEmpty else { return Self.refuse(400, "empty body: POST the bundle's bytes") }
        // Announced before verifying, so a commit starting meanwhile waits to take it along;
        // every way out below either inserts it announced or withdraws it.
        store.announceBundle()
        var inserting = false
        defer { if !inserting { store.withdrawBundle() } }
        let parsed: AuditBundle
        let verified: VerifiedBundle
        // Verified as received: the hash is of these bytes, nothing is re-encoded.
        let digest = SHA256.digest(bytes)
        let digestHex = Hex.encode(digest)
        do {
            parsed = try AuditBundle.parse(bytes)
            verified = try parsed.verify(owner: ownerKey.publicKey, trustedInstallationKeys: trustedInstallationKeys,
                                         bundleSha256: digestHex)
        } catch {
            return Self.refuse(Self.status(for: error), "bundle refused: \(error.description)")
        }
        let now = wallClockMilliseconds()
        let ack: [UInt8]
        do {
            let a = CollectorAcknowledgement(sessionId: verified.sessionId, bundleSha256: digestHex, status: .stored, storedMs: now)
            ack = try a.signed(by: ownerKey)
        } catch {
            return Self.refuse(500, "cannot sign the acknowledgement: \(error)")
        }
        var records: [StoredRecord] = []
        records.reserveCapacity(verified.records.count)
        for (r, e) in zip(verified.records, parsed.records) {
            records.append(StoredRecord(type: r.type.rawValue, sequence: r.seq, fields: String(decoding: e.payload, as: UTF8.self)))
        }
        let submission = BundleSubmission(sessionID: verified.sessionId, lastSequence: records.last?.sequence ?? -1,
                                          digest: digest, bytes: bytes, records: records,
                                          acknowledgement: ack, receivedAt: now)
        let outcome: BundleInsertOutcome
        do {
            inserting = true
            outcome = try store.insertAnnounced(submission)
        } catch {
            // Not stored, so not acknowledged: the relay keeps it spooled and retries.
            return Self.refuse(503, "bundle not stored: \(error)")
        }
        switch outcome {
        case .stored(let a), .duplicate(let a):
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: ArraySlice(a))
        case .conflict(let existing):
            return Self.refuse(409, "session \(verified.sessionId) already has a different bundle (sha256 \(Hex.encode(existing)))")
        }
    }

    static func status(for error: AuditBundleError) -> Int {
        switch error {
        case .tooLarge: return 413
        case .wrongOwner, .untrustedInstallationKey: return 403
        default: return 400
        }
    }

    // MARK: CMCD

    private func getCMCD(_ request: HTTPRequest) -> HTTPResponse {
        guard let payload = request.query["CMCD"] else { return Self.refuse(400, "GET /v1/cmcd needs ?CMCD=<key list>") }
        do {
            return storeCMCD([try CMCDParser.parseKeyList(payload)])
        } catch {
            return Self.refuse(400, error.description)
        }
    }

    private func postCMCD(_ request: HTTPRequest) -> HTTPResponse {
        guard request.body.count <= CMCDLimits.bodyBytes else {
            return Self.refuse(413, "CMCD body of \(request.body.count) bytes (limit \(CMCDLimits.bodyBytes))")
        }
        let reports: [CMCDReport]
        do {
            switch Self.mediaType(request) {
            case "application/cmcd"?: reports = try CMCDParser.parseEventBody(request.body)
            case "application/json"?: reports = try CMCDParser.parseJSONBody(request.body)
            case let other:
                return Self.refuse(415, "CMCD is POSTed as application/cmcd or application/json, not \(other ?? "no Content-Type")")
            }
        } catch {
            return Self.refuse(400, error.description)
        }
        return storeCMCD(reports)
    }

    private func storeCMCD(_ reports: [CMCDReport]) -> HTTPResponse {
        let outcomes: [CMCDInsertOutcome]
        do {
            outcomes = try store.insertCMCD(reports)
        } catch {
            return Self.refuse(503, "CMCD not stored: \(error)")
        }
        let stored = outcomes.filter { $0 == .stored }.count
        let body = "{\"duplicate\":\(outcomes.count - stored),\"stored\":\(stored)}"
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: ArraySlice(body.utf8))
    }

    // MARK: health

    /// 200 `{"status":"ok"}` when the store takes writes, else 503 `{"reason":…,"status":"degraded"}`.
    private func health() -> HTTPResponse {
        let body: String, status: Int
        switch store.health() {
        case .ok:
            status = 200
            body = "{\"status\":\"ok\"}"
        case .degraded(let reason):
            status = 503
            body = IJSON.object(Self.object([("reason", .string(Self.oneLine(reason))), ("status", .string("degraded"))])).encoded
        }
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                            body: ArraySlice((body + "\n").utf8))
    }

    private static func object(_ members: [(String, IJSON)]) -> IJSONObject {
        var o = IJSONObject()
        for (k, v) in members { _ = o.add(k, v) }
        return o
    }

    // MARK: helpers

    /// Store and libpq messages span lines; every answer is one line.
    static func oneLine(_ s: String) -> String {
        s.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\t" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The Content-Type without parameters, lowercased; nil when absent.
    static func mediaType(_ request: HTTPRequest) -> String? {
        guard let v = request.headers["content-type"] else { return nil }
        if v == "application/json" { return v }  // what relays send: nothing to split or fold
        let base = v.split(separator: ";", maxSplits: 1).first.map(String.init) ?? v
        return base.trimmingCharacters(in: .whitespaces).lowercased()
    }

    static func refuse(_ status: Int, _ reason: String, allow: String? = nil) -> HTTPResponse {
        var headers = [("Content-Type", "text/plain; charset=utf-8")]
        if let a = allow { headers.append(("Allow", a)) }
        return HTTPResponse(status: status, headers: headers, body: ArraySlice((oneLine(reason) + "\n").utf8))
    }
}

/// The running collector: the service on libmicrohttpd.
public final class CollectorServer: @unchecked Sendable {
    public let service: CollectorService
    public let http: HTTPServer
    public var port: UInt16 { http.port }

    public static let defaultConnectionLimit: UInt32 = 256
    /// Request bodies held at once, all connections together (docs/collector.md §Limits).
    public static let defaultUploadBudget = 256 << 20
    public let uploads: BodyBudget

    /// The loopback addresses `waihost audit serve` listens on by default.
    public static let loopback = ["127.0.0.1", "::1"]

    public convenience init(service: CollectorService, port: UInt16 = 0, bindAddress: String = "127.0.0.1",
                            connectionLimit: UInt32 = CollectorServer.defaultConnectionLimit,
                            uploadBudget: Int = CollectorServer.defaultUploadBudget) throws {
        try self.init(service: service, port: port, bindAddresses: [bindAddress], connectionLimit: connectionLimit,
                      uploadBudget: uploadBudget)
    }

    /// One port on every address (IPv4 or IPv6); the upload budget is shared by all.
    public init(service: CollectorService, port: UInt16 = 0, bindAddresses: [String],
                connectionLimit: UInt32 = CollectorServer.defaultConnectionLimit,
                uploadBudget: Int = CollectorServer.defaultUploadBudget) throws {
        self.service = service
        uploads = BodyBudget(limit: max(uploadBudget, AuditLimits.bundleBytes))
        http = try HTTPServer(port: port, bindAddresses: bindAddresses, connectionTimeoutSeconds: 30,
                              connectionLimit: connectionLimit, maxRequestBody: AuditLimits.bundleBytes,
                              bodyBudget: uploads) { [service] request in
            service.handle(request)
        }
    }

    public func stop() { http.stop() }
}
