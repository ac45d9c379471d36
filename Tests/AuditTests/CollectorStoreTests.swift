// Both stores against one contract: idempotent bundles, 409-worthy conflicts, exact bytes,
// CMCD deduplication, and concurrent writers through group commit.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import CSQLite

final class CollectorStoreTests: XCTestCase {
    func testSQLiteStoreContract() throws {
        let dir = try TempDir()
        let store = try SQLiteStore(path: dir.path + "/c.db")
        try StoreContract.check(store)
        store.close()
        // Reopened, the data is there (nothing lived only in memory).
        let reopened = try SQLiteStore(path: dir.path + "/c.db")
        XCTAssertEqual(try reopened.allBundles().count, 4)
    }

    func testSQLiteStoreConcurrentWriters() throws {
        let dir = try TempDir()
        try StoreContract.concurrent(try SQLiteStore(path: dir.path + "/c.db"))
    }

    /// A bundle whose records cannot be stored (two with one seq) fails alone: nothing of it
    /// is left, and the bundles batched with it are stored with their records.
    func testSQLiteFailingBundleLeavesItsBatchStored() throws {
        let dir = try TempDir()
        let store = try SQLiteStore(path: dir.path + "/c.db")
        var bad = CollectorFixture.submission()
        bad.records[1].sequence = 0
        let good = (0..<6).map { _ in CollectorFixture.submission() }
        let all = [bad] + good
        let outcomes = Locked<[Int: Result<BundleInsertOutcome, Error>]>([:])
        // Announced first, so the first to commit waits for the others and they share a batch.
        for _ in all { store.announceBundle() }
        DispatchQueue.concurrentPerform(iterations: all.count) { i in
            let r = Result { try store.insertAnnounced(all[i]) }
            outcomes.update { $0[i] = r }
        }
        XCTAssertThrowsError(try outcomes.value[0]?.get())
        XCTAssertNil(try store.bundle(sessionID: bad.sessionID))
        XCTAssertEqual(try store.records(sessionID: bad.sessionID), [])
        for (i, g) in good.enumerated() {
            XCTAssertEqual(try outcomes.value[i + 1]?.get(), .stored(acknowledgement: g.acknowledgement))
            XCTAssertEqual(try store.records(sessionID: g.sessionID), g.records)
        }
        XCTAssertEqual(try store.insertBundle(good[0]), .duplicate(acknowledgement: good[0].acknowledgement))
    }

    func testSQLiteRunsWALWithFullSync() throws {
        let dir = try TempDir()
        // WAL mode is recorded in the database file, so a fresh connection reports it.
        try SQLiteStore(path: dir.path + "/c.db").close()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(dir.path + "/c.db", &db), SQLITE_OK)
        defer { sqlite3_close(db) }
        var stmt: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nil), SQLITE_OK)
        XCTAssertEqual(sqlite3_step(stmt), SQLITE_ROW)
        XCTAssertEqual(sqlite3_column_text(stmt, 0).map { String(cString: $0) }, "wal")
        sqlite3_finalize(stmt)
    }

    func testPostgresStoreContract() throws {
        let pg = try TestPostgres()
        let store = try PostgresStore(uri: pg.uri)
        try StoreContract.check(store)
        store.close()
        // A second collector on the same database sees the same rows.
        let second = try PostgresStore(uri: pg.uri)
        XCTAssertEqual(try second.allBundles().count, 4)
        try StoreContract.concurrent(second)
        second.close()
    }

    func testLocations() throws {
        XCTAssertEqual(try StoreLocation(parsing: "sqlite:/x/y.db"), .sqlite(path: "/x/y.db"))
        XCTAssertEqual(try StoreLocation(parsing: "postgres://u@h/db"), .postgres(uri: "postgres://u@h/db"))
        XCTAssertThrowsError(try StoreLocation(parsing: "sqlite:"))
        XCTAssertThrowsError(try StoreLocation(parsing: "mysql://h"))
        XCTAssertEqual(PostgresStore.redacted("postgres://u:secret@h/db"), "postgres://u:***@h/db")
    }

    func testUnreachablePostgresSaysWhy() throws {
        let port = try TestPostgres.freePort()
        XCTAssertThrowsError(try PostgresStore(uri: "postgres://nobody@127.0.0.1:\(port)/x?connect_timeout=5")) { e in
            guard case StoreError.open(_, let reason) = e else { return XCTFail("\(e)") }
            XCTAssertFalse(reason.isEmpty)
        }
    }
}
