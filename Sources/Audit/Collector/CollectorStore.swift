// The collector's durable store: one protocol, SQLite and PostgreSQL behind it. A call returns
// only after its transaction committed durably, so an acknowledgement sent after it is safe.

/// One record of a verified bundle, as the records table keeps it.
public struct StoredRecord: Sendable, Equatable {
    public var type: String
    public var sequence: Int64
    /// The record's fields as JSON text, exactly as they appear in the bundle.
    public var fields: String

    public init(type: String, sequence: Int64, fields: String) {
        self.type = type
        self.sequence = sequence
        self.fields = fields
    }
}

/// A verified bundle ready to store, with the acknowledgement the collector will answer.
public struct BundleSubmission: Sendable, Equatable {
    public var sessionID: String
    /// The session record's `seq` (the chain's last); the format posts one bundle per session.
    public var lastSequence: Int64
    /// SHA-256 of `bytes`: the identity that tells a resend from a conflicting bundle.
    public var digest: [UInt8]
    public var bytes: [UInt8]
    public var records: [StoredRecord]
    /// Stored with the bundle so a resend is answered with the very same bytes.
    public var acknowledgement: [UInt8]
    /// Unix milliseconds.
    public var receivedAt: Int64

    public init(sessionID: String, lastSequence: Int64, digest: [UInt8], bytes: [UInt8],
                records: [StoredRecord], acknowledgement: [UInt8], receivedAt: Int64) {
        self.sessionID = sessionID
        self.lastSequence = lastSequence
        self.digest = digest
        self.bytes = bytes
        self.records = records
        self.acknowledgement = acknowledgement
        self.receivedAt = receivedAt
    }
}

public enum BundleInsertOutcome: Sendable, Equatable {
    /// Newly committed; answer this acknowledgement.
    case stored(acknowledgement: [UInt8])
    /// The same bytes were stored before; answer the acknowledgement stored then.
    case duplicate(acknowledgement: [UInt8])
    /// Another bundle is stored for this session; its digest.
    case conflict(existingDigest: [UInt8])
}

/// A CMCD report, keyed by the session (`sid`) and sequence number (`sn`) it carries.
public struct CMCDReport: Sendable, Equatable {
    public var sessionID: String
    public var sequence: Int64
    /// The report as received (one CMCD payload line, or one JSON object).
    public var body: String

    public init(sessionID: String, sequence: Int64, body: String) {
        self.sessionID = sessionID
        self.sequence = sequence
        self.body = body
    }
}

public enum CMCDInsertOutcome: Sendable, Equatable {
    case stored
    /// A report with this session and sequence number is already stored; this one was dropped.
    case duplicate
}

/// A bundle as read back from the store.
public struct StoredBundle: Sendable, Equatable {
    public var sessionID: String
    public var lastSequence: Int64
    public var digest: [UInt8]
    public var bytes: [UInt8]
    public var acknowledgement: [UInt8]
    public var receivedAt: Int64
}

public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case badLocation(String, reason: String)
    case open(location: String, reason: String)
    case statement(sql: String, reason: String)
    case corrupt(what: String)
    /// No working connection to the database now (it restarted, or is down); being re-established.
    case unavailable(location: String, reason: String)

    public var description: String {
        switch self {
        case .badLocation(let l, let r): return "database location \(l): \(r)"
        case .open(let l, let r): return "cannot open database \(l): \(r)"
        case .statement(let sql, let r): return "database statement failed (\(sql.prefix(60))…): \(r)"
        case .corrupt(let w): return "database holds an unreadable \(w)"
        case .unavailable(let l, let r): return "database \(l) unavailable: \(r)"
        }
    }
}

public protocol CollectorStore: AnyObject, Sendable {
    /// Inserts the bundle and its records in one transaction, or finds why not.
    func insertBundle(_ bundle: BundleSubmission) throws -> BundleInsertOutcome
    /// A bundle is being verified and will be inserted (or withdrawn): a group commit starting
    /// now waits a little for it (GroupCommit). Ended by one `insertAnnounced` or `withdrawBundle`.
    func announceBundle()
    func withdrawBundle()
    func insertAnnounced(_ bundle: BundleSubmission) throws -> BundleInsertOutcome
    /// Inserts the reports in one transaction; one outcome per report, in order.
    func insertCMCD(_ reports: [CMCDReport]) throws -> [CMCDInsertOutcome]
    func bundle(sessionID: String) throws -> StoredBundle?
    func allBundles() throws -> [StoredBundle]
    func records(sessionID: String) throws -> [StoredRecord]
    func cmcdReports(sessionID: String) throws -> [CMCDReport]
    /// Whether the store can take a write now (GET /health).
    func health() -> StoreHealth
    func close()
}

/// Stores without a group commit have nothing to wait for.
extension CollectorStore {
    public func announceBundle() {}
    public func withdrawBundle() {}
    public func insertAnnounced(_ bundle: BundleSubmission) throws -> BundleInsertOutcome { try insertBundle(bundle) }
}

public enum StoreHealth: Equatable, Sendable {
    case ok
    case degraded(reason: String)
}

/// `sqlite:PATH` or `postgres://…` / `postgresql://…` (a libpq connection URI).
public enum StoreLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(uri: String)

    public init(parsing text: String) throws {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreError.badLocation(text, reason: "sqlite: needs a file path") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(uri: text)
        } else {
            throw StoreError.badLocation(text, reason: "expected sqlite:PATH or postgres://…")
        }
    }

    public func open() throws -> CollectorStore {
        switch self {
        case .sqlite(let path): return try SQLiteStore(path: path)
        case .postgres(let uri): return try PostgresStore(uri: uri)
        }
    }
}
