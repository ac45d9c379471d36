// The store for when one machine is not enough: PostgreSQL through libpq, with
// synchronous_commit on (a COMMIT returns after the WAL is flushed) and the same unique keys
// as SQLite, so several collectors can share one database and still accept a bundle once.
// A lost connection (the server restarted) is re-established with backoff; meanwhile requests
// get 503 and /health says degraded (docs/collector.md §Health).
import WaiSupport
import CPostgres
import Foundation
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

public final class PostgresStore: CollectorStore, @unchecked Sendable {
    private var conn: OpaquePointer?
    private let lock = Mutex()  // libpq and a NOMUTEX SQLite handle are not safe to share unguarded
    private let location: String
    private var committer: GroupCommit<StoreJob, StoreJobOutcome>!
    /// Reconnection backoff: the next attempt is not before `nextAttempt` (monotonic seconds).
    private var backoffSeconds = 0.0
    private var nextAttempt = 0.0
    private var lastError: String?
    static let minBackoff = 0.05, maxBackoff = 5.0

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS bundles(
            session_id TEXT NOT NULL PRIMARY KEY, last_seq BIGINT NOT NULL, digest BYTEA NOT NULL,
            bytes BYTEA NOT NULL, acknowledgement BYTEA NOT NULL, received_at BIGINT NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS records(
            session_id TEXT NOT NULL REFERENCES bundles(session_id), seq BIGINT NOT NULL,
            type TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY(session_id, seq))
        """,
        """
        CREATE TABLE IF NOT EXISTS cmcd(
            session_id TEXT NOT NULL, sequence BIGINT NOT NULL, body TEXT NOT NULL,
            received_at BIGINT NOT NULL, PRIMARY KEY(session_id, sequence))
        """,
    ]

    public init(uri: String) throws {
        location = Self.redacted(uri)
        // libpq is loaded on first use (Sources/CLazyLibrary).
        if let unloadable = waih_pq_load() { throw StoreError.open(location: location, reason: String(cString: unloadable)) }
        guard let c = PQconnectdb(uri) else { throw StoreError.open(location: location, reason: "out of memory") }
        guard PQstatus(c) == CONNECTION_OK else {
            let reason = String(cString: PQerrorMessage(c)).trimmingTrailingNewlines()
            PQfinish(c)
            throw StoreError.open(location: location, reason: reason)
        }
        conn = c
        do {
            try configureSession()
            // CREATE TABLE IF NOT EXISTS races with a second collector starting at once; a lock makes it safe.
            try exec("BEGIN")
            try exec("SELECT pg_advisory_xact_lock(7263541)")
            for s in Self.schema { try exec(s) }
            try exec("COMMIT")
        } catch {
            PQfinish(c)
            conn = nil
            throw error
        }
        committer = GroupCommit(maxBatch: 512) { [unowned self] jobs in self.runBatch(jobs) }
    }

    deinit { close() }

    /// What every connection (the first and each re-established one) is set to.
    private func configureSession() throws {
        try exec("SET synchronous_commit = on")
        try exec("SET client_min_messages = warning")
    }

    /// With the lock held: a working connection, or why there is none. A connection found
    /// broken is reset (libpq reconnects with the same parameters), at most once per backoff
    /// interval (doubling from 50 ms to 5 s), so an outage costs the server one attempt per
    /// interval, not one per request.
    private func ensureConnected() throws {
        guard let c = conn else { throw StoreError.unavailable(location: location, reason: "store closed") }
        if PQstatus(c) == CONNECTION_OK { return }
        let t = monotonicSeconds()
        guard t >= nextAttempt else {
            throw StoreError.unavailable(location: location, reason: (lastError ?? "connection lost") + "; reconnecting")
        }
        PQreset(c)
        if PQstatus(c) == CONNECTION_OK, (try? configureSession()) != nil {
            backoffSeconds = 0
            lastError = nil
            return
        }
        lastError = String(cString: PQerrorMessage(c)).oneLine
        backoffSeconds = min(Self.maxBackoff, max(Self.minBackoff, backoffSeconds * 2))
        nextAttempt = t + backoffSeconds
        throw StoreError.unavailable(location: location, reason: (lastError ?? "connection lost") + "; reconnecting")
    }

    /// Runs `body` on a working connection; when the connection breaks during it (the server
    /// restarted under an idle connection), reconnects and runs it once more. Safe for the
    /// batches: nothing was acknowledged, and every insert is ON CONFLICT DO NOTHING.
    private func withConnection<T>(_ body: () throws -> T) throws -> T {
        try ensureConnected()
        do { return try body() } catch {
            guard let c = conn, PQstatus(c) != CONNECTION_OK else { throw error }
            lastError = "\(error)"
            nextAttempt = 0
            try ensureConnected()
            return try body()
        }
    }

    public func health() -> StoreHealth {
        lock.withLock {
            do {
                try withConnection { try exec("SELECT 1") }
                return .ok
            } catch {
                return .degraded(reason: "\(error)".oneLine)
            }
        }
    }

    public func close() {
        lock.withLock {
            if let c = conn { PQfinish(c) }
            conn = nil
        }
    }

    public func insertBundle(_ bundle: BundleSubmission) throws -> BundleInsertOutcome {
        try committer.insertBundle(bundle)
    }

    public func announceBundle() { committer.announce() }
    public func withdrawBundle() { committer.withdraw() }

    public func insertAnnounced(_ bundle: BundleSubmission) throws -> BundleInsertOutcome {
        try committer.insertBundle(bundle, announced: true)
    }

    public func insertCMCD(_ reports: [CMCDReport]) throws -> [CMCDInsertOutcome] {
        try committer.insertCMCD(reports)
    }

    private func runBatch(_ jobs: [StoreJob]) -> [Result<StoreJobOutcome, Error>] {
        lock.withLock {
            do { try ensureConnected() } catch { return jobs.map { _ in .failure(error) } }
            if let r = runPipelined(jobs) { return r }
            var results = runBatchTransaction(jobs, begin: "BEGIN", exec: exec, run: run)
            // The connection broke under the batch: nothing was acknowledged, so reconnect
            // and run it once more (ON CONFLICT makes a commit that did land a duplicate).
            if let c = conn, PQstatus(c) != CONNECTION_OK {
                nextAttempt = 0
                do {
                    try ensureConnected()
                    results = runBatchTransaction(jobs, begin: "BEGIN", exec: exec, run: run)
                } catch {
                    results = jobs.map { _ in .failure(error) }
                }
            }
            return results
        }
    }

    /// A batch of bundles in one round trip (libpq pipeline mode): BEGIN, one insert per bundle,
    /// COMMIT, sent together and answered together. Statement by statement, each round trip
    /// waits for the server process to be scheduled, and on a busy machine that, not the
    /// WAL flush, bounded the store (docs/collector.md §Measured). No savepoints: nil (and the
    /// transaction rolled back) when any statement failed or the pipeline did not complete,
    /// and the caller runs the batch the statement-by-statement way, which isolates each job.
    private func runPipelined(_ jobs: [StoreJob]) -> [Result<StoreJobOutcome, Error>]? {
        var bundles: [BundleSubmission] = []
        for j in jobs {
            guard case .bundle(let b) = j else { return nil }
            bundles.append(b)
        }
        guard let c = conn, PQstatus(c) == CONNECTION_OK, PQenterPipelineMode(c) == 1 else { return nil }
        var sent = send(c, "BEGIN", [])
        for b in bundles where sent { sent = send(c, Self.insertBundleSQL, Self.insertParams(b)) }
        sent = sent && send(c, "COMMIT", [])
        // Synced even when a send failed, so whatever was sent is answered and drained below.
        let synced = PQpipelineSync(c) == 1
        // Every command's result (each followed by a NULL), then the sync's.
        var answers: [(ExecStatusType, [String])] = []
        var nulls = 0
        while synced {
            guard let r = PQgetResult(c) else {
                nulls += 1
                if nulls > 1 || PQstatus(c) != CONNECTION_OK { break }
                continue
            }
            nulls = 0
            let st = PQresultStatus(r)
            if st == PGRES_PIPELINE_SYNC {
                PQclear(r)
                break
            }
            var row: [String] = []
            if st == PGRES_TUPLES_OK, PQntuples(r) == 1 {
                row = (0..<PQnfields(r)).map { String(cString: PQgetvalue(r, 0, $0)) }
            } else if st == PGRES_COMMAND_OK {
                // The command tag: a COMMIT that rolled back says ROLLBACK, not COMMIT.
                row = [String(cString: PQcmdStatus(r))]
            }
            answers.append((st, row))
            PQclear(r)
        }
        if PQexitPipelineMode(c) != 1 {
            // Answers left unread (the connection failed mid-pipeline): start the connection
            // afresh rather than leave it in pipeline mode.
            PQreset(c)
            if PQstatus(c) == CONNECTION_OK { try? configureSession() }
            return nil
        }
        let committed = sent && answers.count == bundles.count + 2 && answers.first?.0 == PGRES_COMMAND_OK
            && answers.last?.0 == PGRES_COMMAND_OK && answers.last?.1 == ["COMMIT"]
            && answers.dropFirst().dropLast().allSatisfy { $0.0 == PGRES_TUPLES_OK }
        guard committed else {
            if PQstatus(c) == CONNECTION_OK { try? exec("ROLLBACK") }
            return nil
        }
        return zip(bundles, answers.dropFirst()).map { b, a -> Result<StoreJobOutcome, Error> in
            Result { .bundle(try outcome(of: b, inserted: a.1)) }
        }
    }

    private func send(_ c: OpaquePointer, _ sql: String, _ params: [Param]) -> Bool {
        withBuffers(params) { values, lengths, formats in
            PQsendQueryParams(c, sql, Int32(params.count), nil, values, lengths, formats, 0) == 1
        }
    }

    private func run(_ job: StoreJob) throws -> StoreJobOutcome {
        switch job {
        case .bundle(let b): return .bundle(try insert(b))
        case .cmcd(let reports):
            return .cmcd(try reports.map { r in
                let n = try command("""
                    INSERT INTO cmcd(session_id, sequence, body, received_at) VALUES($1,$2,$3,$4)
                    ON CONFLICT (session_id, sequence) DO NOTHING
                    """, [r.sessionID, String(r.sequence), r.body, String(wallClockMilliseconds())])
                return n == 1 ? .stored : .duplicate
            })
        }
    }

    /// The bundle row and its records in one statement, one round trip instead of one per row;
    /// it answers whether the bundle row was new (0: a bundle is already stored for the session,
    /// and no record was written).
    static let insertBundleSQL = """
        WITH b AS (
            INSERT INTO bundles(session_id, last_seq, digest, bytes, acknowledgement, received_at)
            VALUES($1,$2,$3,$4,$5,$6) ON CONFLICT (session_id) DO NOTHING RETURNING session_id),
        r AS (
            INSERT INTO records(session_id, seq, type, fields)
            SELECT b.session_id, x.seq, x.type, x.fields FROM b, unnest($7::bigint[], $8::text[], $9::text[]) AS x(seq, type, fields)
            RETURNING 1)
        SELECT (SELECT count(*) FROM b), (SELECT count(*) FROM r)
        """

    static func insertParams(_ b: BundleSubmission) -> [Param] {
        [.text(b.sessionID), .text(String(b.lastSequence)), .binary(b.digest), .binary(b.bytes), .binary(b.acknowledgement),
         .text(String(b.receivedAt)), .text(arrayLiteral(b.records.map { String($0.sequence) })),
         .text(arrayLiteral(b.records.map { $0.type })), .text(arrayLiteral(b.records.map { $0.fields }))]
    }

    private func insert(_ b: BundleSubmission) throws -> BundleInsertOutcome {
        let rows = try query(Self.insertBundleSQL, values: Self.insertParams(b))
        return try outcome(of: b, inserted: rows.count == 1 ? rows[0] : [])
    }

    /// What the insert's one row (bundle rows inserted, record rows inserted) means for `b`.
    private func outcome(of b: BundleSubmission, inserted row: [String]) throws -> BundleInsertOutcome {
        guard row.count == 2, let inserted = Int(row[0]), let written = Int(row[1]) else {
            throw StoreError.corrupt(what: "answer to the bundle insert")
        }
        if inserted == 1 {
            guard written == b.records.count else {
                throw StoreError.corrupt(what: "records insert (\(written) rows for \(b.records.count) records)")
            }
            return .stored(acknowledgement: b.acknowledgement)
        }
        guard let existing = try bundleLocked(sessionID: b.sessionID) else {
            throw StoreError.corrupt(what: "bundle row that ON CONFLICT DO NOTHING skipped")
        }
        return existing.digest == b.digest ? .duplicate(acknowledgement: existing.acknowledgement)
            : .conflict(existingDigest: existing.digest)
    }

    /// A PostgreSQL array literal of these texts: every element quoted, `"` and `\` escaped
    /// (the record payloads are JSON, full of quotes).
    static func arrayLiteral(_ elements: [String]) -> String {
        var out = "{"
        for (i, e) in elements.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for c in e.unicodeScalars {
                if c == "\"" || c == "\\" { out += "\\" }
                out.unicodeScalars.append(c)
            }
            out += "\""
        }
        return out + "}"
    }

    public func bundle(sessionID: String) throws -> StoredBundle? {
        try lock.withLock { try withConnection { try bundleLocked(sessionID: sessionID) } }
    }

    public func allBundles() throws -> [StoredBundle] {
        try lock.withLock {
            try withConnection { try query("""
                SELECT session_id, last_seq, digest, bytes, acknowledgement, received_at FROM bundles
                ORDER BY session_id
                """, []).map(Self.bundleRow) }
        }
    }

    public func records(sessionID: String) throws -> [StoredRecord] {
        try lock.withLock {
            try withConnection { try query("""
                SELECT type, seq, fields FROM records WHERE session_id=$1 ORDER BY seq
                """, [sessionID]).map { row in
                guard let seq = Int64(row[1]) else { throw StoreError.corrupt(what: "record seq") }
                return StoredRecord(type: row[0], sequence: seq, fields: row[2])
            } }
        }
    }

    public func cmcdReports(sessionID: String) throws -> [CMCDReport] {
        try lock.withLock {
            try withConnection { try query("SELECT session_id, sequence, body FROM cmcd WHERE session_id=$1 ORDER BY sequence",
                      [sessionID]).map { row in
                guard let seq = Int64(row[1]) else { throw StoreError.corrupt(what: "cmcd sequence") }
                return CMCDReport(sessionID: row[0], sequence: seq, body: row[2])
            } }
        }
    }

    private func bundleLocked(sessionID: String) throws -> StoredBundle? {
        try query("""
            SELECT session_id, last_seq, digest, bytes, acknowledgement, received_at FROM bundles
            WHERE session_id=$1
            """, [sessionID]).map(Self.bundleRow).first
    }

    private static func bundleRow(_ row: [String]) throws -> StoredBundle {
        guard row.count == 6, let seq = Int64(row[1]), let at = Int64(row[5]),
              let digest = unbytea(row[2]), let bytes = unbytea(row[3]), let ack = unbytea(row[4]) else {
            throw StoreError.corrupt(what: "bundles row")
        }
        return StoredBundle(sessionID: row[0], lastSequence: seq, digest: digest, bytes: bytes,
                            acknowledgement: ack, receivedAt: at)
    }

    // MARK: libpq

    /// bytea's hex input form; results come back in the same form (bytea_output = hex, the default).
    private static func bytea(_ b: [UInt8]) -> String { "\\x" + Hex.encode(b) }

    private static func unbytea(_ s: String) -> [UInt8]? {
        guard s.hasPrefix("\\x") else { return nil }
        return Hex.decode(String(s.dropFirst(2)))
    }

    private func exec(_ sql: String) throws {
        let r = PQexec(conn, sql)
        defer { PQclear(r) }
        let st = PQresultStatus(r)
        guard st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK else {
            throw StoreError.statement(sql: sql, reason: errorText(r))
        }
    }

    /// A statement parameter: text, or bytes sent as they are (bytea's binary form: no hex
    /// spelling of a bundle on the way in).
    enum Param {
        case text(String)
        case binary([UInt8])
    }

    private func withParams<T>(_ sql: String, _ params: [String], _ body: (OpaquePointer?) throws -> T) throws -> T {
        try withValues(sql, params.map { Param.text($0) }, body)
    }

    private func withValues<T>(_ sql: String, _ params: [Param], _ body: (OpaquePointer?) throws -> T) throws -> T {
        let r = withBuffers(params) { values, lengths, formats in
            PQexecParams(conn, sql, Int32(params.count), nil, values, lengths, formats, 0)
        }
        defer { PQclear(r) }
        return try body(r)
    }

    /// libpq's parameter arrays for `params`, valid inside `body` only: each value's bytes
    /// (NUL-terminated for text), their lengths, their formats (1: binary).
    private func withBuffers<R>(_ params: [Param],
                                _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        let buffers: [[UInt8]] = params.map {
            switch $0 {
            case .text(let t): return Array(t.utf8) + [0]
            case .binary(let b): return b
            }
        }
        let lengths = buffers.map { Int32($0.count) }
        let formats: [Int32] = params.map { if case .binary = $0 { return 1 } else { return 0 } }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(buffers.count)
        func nest(_ k: Int) -> R {
            guard k < buffers.count else {
                return pointers.withUnsafeBufferPointer { p in
                    lengths.withUnsafeBufferPointer { l in formats.withUnsafeBufferPointer { f in body(p.baseAddress, l.baseAddress, f.baseAddress) } }
                }
            }
            return buffers[k].withUnsafeBufferPointer { b in
                // An empty bytea still needs a non-null pointer, or libpq sends NULL.
                pointers.append(UnsafeRawPointer(b.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self))
                return nest(k + 1)
            }
        }
        return nest(0)
    }

    /// Runs an INSERT/UPDATE; returns the number of rows it changed.
    private func command(_ sql: String, _ params: [String]) throws -> Int {
        try withParams(sql, params) { r in
            guard PQresultStatus(r) == PGRES_COMMAND_OK else {
                throw StoreError.statement(sql: sql, reason: errorText(r))
            }
            return Int(String(cString: PQcmdTuples(r))) ?? 0
        }
    }

    private func query(_ sql: String, _ params: [String]) throws -> [[String]] {
        try query(sql, values: params.map { Param.text($0) })
    }

    private func query(_ sql: String, values params: [Param]) throws -> [[String]] {
        try withValues(sql, params) { r in
            guard PQresultStatus(r) == PGRES_TUPLES_OK else {
                throw StoreError.statement(sql: sql, reason: errorText(r))
            }
            let rows = PQntuples(r), cols = PQnfields(r)
            return (0..<rows).map { i in
                (0..<cols).map { j in String(cString: PQgetvalue(r, i, j)) }
            }
        }
    }

    private func errorText(_ r: OpaquePointer?) -> String {
        let fromResult = r.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        let text = fromResult.isEmpty ? String(cString: PQerrorMessage(conn)) : fromResult
        return text.oneLine
    }

    /// A URI may carry a password; error messages and logs get it without.
    static func redacted(_ uri: String) -> String {
        guard let at = uri.firstIndex(of: "@"), let scheme = uri.range(of: "://"),
              scheme.upperBound < at else { return uri }
        let userInfo = uri[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return uri }
        return String(uri[..<colon]) + ":***" + String(uri[at...])
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var s = self
        while s.last == "\n" || s.last == "\r" { s.removeLast() }
        return s
    }

    /// libpq's messages span lines ("server closed the connection unexpectedly\n\tThis
    /// probably means…"); answers and logs carry them on one.
    var oneLine: String {
        split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\t" }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
