// The default store: one SQLite file in WAL mode with synchronous=FULL, so a committed
// transaction survives a crash of the process or the machine. One connection, one writer.
import WaiSupport
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

public final class SQLiteStore: CollectorStore, @unchecked Sendable {
    public let path: String
    private var db: OpaquePointer?
    private let lock = Mutex()  // libpq and a NOMUTEX SQLite handle are not safe to share unguarded
    private var committer: GroupCommit<StoreJob, StoreJobOutcome>!
    /// Prepared once, reset after each use: compiling the same few statements for every bundle
    /// cost more than running them. Touched only under `lock`.
    private var statements: [String: OpaquePointer] = [:]

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS bundles(
            session_id TEXT NOT NULL PRIMARY KEY, last_seq INTEGER NOT NULL, digest BLOB NOT NULL,
            bytes BLOB NOT NULL, acknowledgement BLOB NOT NULL, received_at INTEGER NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS records(
            session_id TEXT NOT NULL REFERENCES bundles(session_id), seq INTEGER NOT NULL,
            type TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY(session_id, seq))
        """,
        """
        CREATE TABLE IF NOT EXISTS cmcd(
            session_id TEXT NOT NULL, sequence INTEGER NOT NULL, body TEXT NOT NULL,
            received_at INTEGER NOT NULL, PRIMARY KEY(session_id, sequence))
        """,
    ]

    public init(path: String) throws {
        self.path = path
        // libsqlite3 is loaded on first use (Sources/CLazyLibrary).
        if let unloadable = waih_sqlite_load() {
            throw StoreError.open(location: "sqlite:\(path)", reason: String(cString: unloadable))
        }
        // Created 0600 before SQLite opens it: the -wal and -shm files SQLite makes take the
        // database file's mode, so the whole store is private to the collector's user.
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 { Glibc.close(created) }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let h = handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw StoreError.open(location: "sqlite:\(path)", reason: reason)
        }
        db = h
        do {
            sqlite3_busy_timeout(h, 10_000)
            let mode = try queryText("PRAGMA journal_mode=WAL")
            guard mode == "wal" else {
                throw StoreError.open(location: "sqlite:\(path)", reason: "journal_mode WAL refused (got \(mode ?? "nothing"))")
            }
            try exec("PRAGMA synchronous=FULL")
            // SQLite's default page cache (2000 KiB), not the 16 MiB it was: once per
            // transaction SQLite's page cache scans its whole hash table (pcache1's bucket walk,
            // 1.3% of the collector's CPU at 16 MiB, ~7 µs a bundle), more than the page reads
            // the bigger cache saved (docs/collector.md §Throughput against the signature bound).
            try exec("PRAGMA cache_size=-2000")
            try exec("PRAGMA foreign_keys=ON")
            for s in Self.schema { try exec(s) }
        } catch {
            statements.values.forEach { sqlite3_finalize($0) }
            statements = [:]
            sqlite3_close(h)
            db = nil
            throw error
        }
        committer = GroupCommit(maxBatch: 512) { [unowned self] jobs in self.runBatch(jobs) }
    }

    deinit { close() }

    public func close() {
        lock.withLock {
            statements.values.forEach { sqlite3_finalize($0) }
            statements = [:]
            if let d = db { sqlite3_close(d) }
            db = nil
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
            if let all = runWhole(jobs) { return all }
            return runBatchTransaction(jobs, begin: "BEGIN IMMEDIATE", exec: { try step($0, []) }, run: run)
        }
    }

    /// The batch as one plain transaction, without the savepoint per job: what nearly every
    /// batch is, and two statements fewer per bundle. nil when a job failed: everything is
    /// rolled back and the caller runs the batch again with a savepoint per job, which keeps
    /// the others (docs/collector.md §Storage).
    private func runWhole(_ jobs: [StoreJob]) -> [Result<StoreJobOutcome, Error>]? {
        do { try step("BEGIN IMMEDIATE", []) } catch { return nil }
        var results: [Result<StoreJobOutcome, Error>] = []
        results.reserveCapacity(jobs.count)
        do {
            for job in jobs { results.append(.success(try run(job))) }
        } catch {
            try? step("ROLLBACK", [])
            return nil
        }
        do {
            try step("COMMIT", [])
        } catch {
            try? step("ROLLBACK", [])
            return jobs.map { _ in .failure(error) }
        }
        return results
    }

    private func run(_ job: StoreJob) throws -> StoreJobOutcome {
        switch job {
        case .bundle(let b): return .bundle(try insert(b))
        case .cmcd(let reports):
            return .cmcd(try reports.map { r in
                try step("INSERT OR IGNORE INTO cmcd(session_id, sequence, body, received_at) VALUES(?,?,?,?)",
                         [.text(r.sessionID), .int(r.sequence), .text(r.body), .int(wallClockMilliseconds())])
                return sqlite3_changes(db) == 1 ? .stored : .duplicate
            })
        }
    }

    private func insert(_ b: BundleSubmission) throws -> BundleInsertOutcome {
        try step("""
            INSERT OR IGNORE INTO bundles(session_id, last_seq, digest, bytes, acknowledgement, received_at)
            VALUES(?,?,?,?,?,?)
            """, [.text(b.sessionID), .int(b.lastSequence), .blob(b.digest), .blob(b.bytes),
                  .blob(b.acknowledgement), .int(b.receivedAt)])
        if sqlite3_changes(db) == 1 {
            for r in b.records {
                try step("INSERT INTO records(session_id, seq, type, fields) VALUES(?,?,?,?)",
                         [.text(b.sessionID), .int(r.sequence), .text(r.type), .text(r.fields)])
            }
            return .stored(acknowledgement: b.acknowledgement)
        }
        guard let existing = try bundleLocked(sessionID: b.sessionID) else {
            throw StoreError.corrupt(what: "bundle row that INSERT OR IGNORE skipped")
        }
        return existing.digest == b.digest ? .duplicate(acknowledgement: existing.acknowledgement)
            : .conflict(existingDigest: existing.digest)
    }

    public func health() -> StoreHealth {
        lock.withLock {
            do {
                _ = try queryText("SELECT 1")
                return .ok
            } catch {
                return .degraded(reason: "\(error)")
            }
        }
    }

    public func bundle(sessionID: String) throws -> StoredBundle? {
        try lock.withLock { try bundleLocked(sessionID: sessionID) }
    }

    public func allBundles() throws -> [StoredBundle] {
        try lock.withLock {
            try query("""
                SELECT session_id, last_seq, digest, bytes, acknowledgement, received_at FROM bundles
                ORDER BY session_id
                """, []) { try Self.bundleRow($0) }
        }
    }

    public func records(sessionID: String) throws -> [StoredRecord] {
        try lock.withLock {
            try query("""
                SELECT type, seq, fields FROM records WHERE session_id=? ORDER BY seq
                """, [.text(sessionID)]) { s in
                StoredRecord(type: Self.text(s, 0), sequence: sqlite3_column_int64(s, 1), fields: Self.text(s, 2))
            }
        }
    }

    public func cmcdReports(sessionID: String) throws -> [CMCDReport] {
        try lock.withLock {
            try query("SELECT session_id, sequence, body FROM cmcd WHERE session_id=? ORDER BY sequence",
                      [.text(sessionID)]) { s in
                CMCDReport(sessionID: Self.text(s, 0), sequence: sqlite3_column_int64(s, 1), body: Self.text(s, 2))
            }
        }
    }

    private func bundleLocked(sessionID: String) throws -> StoredBundle? {
        try query("""
            SELECT session_id, last_seq, digest, bytes, acknowledgement, received_at FROM bundles
            WHERE session_id=?
            """, [.text(sessionID)]) { try Self.bundleRow($0) }.first
    }

    private static func bundleRow(_ s: OpaquePointer) throws -> StoredBundle {
        StoredBundle(sessionID: text(s, 0), lastSequence: sqlite3_column_int64(s, 1), digest: blob(s, 2),
                     bytes: blob(s, 3), acknowledgement: blob(s, 4), receivedAt: sqlite3_column_int64(s, 5))
    }

    // MARK: statements

    enum Value { case int(Int64), text(String), blob([UInt8]) }

    private func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &err) == SQLITE_OK else {
            let reason = err.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(err)
            throw StoreError.statement(sql: sql, reason: reason)
        }
    }

    private func queryText(_ sql: String) throws -> String? {
        try query(sql, []) { Self.text($0, 0) }.first
    }

    /// The cached statement for `sql`, compiled on first use.
    private func statement(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil) == SQLITE_OK, let p = stmt else {
            throw StoreError.statement(sql: sql, reason: String(cString: sqlite3_errmsg(db)))
        }
        statements[sql] = p
        return p
    }

    /// Runs `body` with `values` bound to `s` in place (SQLITE_STATIC: SQLite reads the
    /// caller's bytes, no copy of a bundle's body per bind), then resets `s` and clears the
    /// bindings before the bytes go out of scope.
    private func withBound<R>(_ s: OpaquePointer, _ values: [Value], from i: Int = 0, _ body: () throws -> R) throws -> R {
        guard i < values.count else {
            defer { finish(s) }
            return try body()
        }
        let idx = Int32(i + 1)
        switch values[i] {
        case .int(let x):
            sqlite3_bind_int64(s, idx, x)
            return try withBound(s, values, from: i + 1, body)
        case .text(var t):
            return try t.withUTF8 { u in
                // An empty string still needs a non-null pointer to be text, not NULL.
                _ = sqlite3_bind_text(s, idx, u.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) } ?? Self.empty,
                                      Int32(u.count), nil)
                return try withBound(s, values, from: i + 1, body)
            }
        case .blob(let b):
            return try b.withUnsafeBytes { raw in
                // A zero-length blob still needs a non-null pointer to be a blob, not NULL.
                _ = sqlite3_bind_blob(s, idx, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count), nil)
                return try withBound(s, values, from: i + 1, body)
            }
        }
    }

    private static let empty: UnsafePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// Ready for the next use, holding no pointer to the values bound (bundle bytes).
    private func finish(_ s: OpaquePointer) {
        sqlite3_reset(s)
        sqlite3_clear_bindings(s)
    }

    private func step(_ sql: String, _ values: [Value]) throws {
        let s = try statement(sql)
        try withBound(s, values) {
            let rc = sqlite3_step(s)
            guard rc == SQLITE_DONE || rc == SQLITE_ROW else {
                throw StoreError.statement(sql: sql, reason: String(cString: sqlite3_errmsg(db)))
            }
        }
    }

    private func query<T>(_ sql: String, _ values: [Value], _ row: (OpaquePointer) throws -> T) throws -> [T] {
        let s = try statement(sql)
        return try withBound(s, values) {
            var out: [T] = []
            while true {
                let rc = sqlite3_step(s)
                if rc == SQLITE_DONE { return out }
                guard rc == SQLITE_ROW else {
                    throw StoreError.statement(sql: sql, reason: String(cString: sqlite3_errmsg(db)))
                }
                out.append(try row(s))
            }
        }
    }

    private static func text(_ s: OpaquePointer, _ i: Int32) -> String {
        sqlite3_column_text(s, i).map { String(cString: $0) } ?? ""
    }

    private static func blob(_ s: OpaquePointer, _ i: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(s, i))
        guard n > 0, let p = sqlite3_column_blob(s, i) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}

