// Keys and the store private to their owner: a signing key file group or others can read is
// refused by `audit serve` and `relay` (saying which mode and how to fix it); the SQLite store
// is created 0600, its WAL and shared-memory files too.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class KeyFileModeTests: XCTestCase {
    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o777 : 0o7777
    }

    func testWideKeyFilesAreRefused() throws {
        let dir = try TempDir()
        let key = dir.path + "/owner.key"
        try KeyFile.write(Fixture.owner, path: key)
        XCTAssertEqual(try PrivateKeyFile.read(path: key).publicKey, Fixture.owner.publicKey)
        for m: mode_t in [0o644, 0o640, 0o604, 0o660] {
            chmod(key, m)
            XCTAssertThrowsError(try PrivateKeyFile.read(path: key)) {
                XCTAssertEqual($0 as? PrivateKeyFileError, .tooOpen(path: key, mode: "0" + String(m, radix: 8)))
            }
        }
        chmod(key, 0o400)
        XCTAssertEqual(try PrivateKeyFile.read(path: key).publicKey, Fixture.owner.publicKey)

        chmod(key, 0o644)
        let serve = try Subprocess(AuditCLITests.waihost, ["audit", "serve", "--db", "sqlite:" + dir.path + "/c.db", "--key", key,
                                                         "--port", "0"], deadline: 30).run()
        XCTAssertEqual(serve.status, 1, serve.stderrText)
        XCTAssertTrue(serve.stderrText.contains("key file \(key) has mode 0644"), serve.stderrText)
        XCTAssertTrue(serve.stderrText.contains("chmod 600 \(key)"), serve.stderrText)

        let relay = try Subprocess(AuditCLITests.waihost, ["relay", "http://127.0.0.1:1/index.m3u8", "--collector", "http://127.0.0.1:1",
                                                         "--owner", Fixture.owner.publicKey.hex, "--installation-key", key], deadline: 30).run()
        XCTAssertEqual(relay.status, 1, relay.stderrText)
        XCTAssertTrue(relay.stderrText.contains("key file \(key) has mode 0644"), relay.stderrText)
    }

    func testDefaultInstallationKeyWithWideModeIsRefused() throws {
        let dir = try TempDir()
        let path = dir.path + "/audit/installation.key"
        _ = try InstallationKey.loadOrCreate(path: path)
        XCTAssertEqual(mode(path), 0o600)
        chmod(path, 0o644)
        XCTAssertThrowsError(try InstallationKey.loadOrCreate(path: path)) {
            guard case .tooOpen? = $0 as? PrivateKeyFileError else { return XCTFail("\($0)") }
        }
    }

    func testSQLiteStoreIsCreatedPrivate() throws {
        let dir = try TempDir()
        let old = umask(0o022)
        defer { umask(old) }
        let db = dir.path + "/collector.db"
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        XCTAssertEqual(try store.insertCMCD([CMCDReport(sessionID: "s", sequence: 0, body: "x")]), [.stored])
        XCTAssertEqual(mode(db), 0o600)
        XCTAssertEqual(mode(db + "-wal"), 0o600)
        XCTAssertEqual(mode(db + "-shm"), 0o600)
    }
}
