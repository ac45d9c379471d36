// Keys and the store private to their owner: a signing key file group or others can read is
// refused by `audit serve` and `relay` (saying which mode and how to fix it); the SQLite store
// is created 0600, its WAL and shared-memory files too.
import Foundation
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
        let dir = try TempFolder()
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
        let serve = try runProcess(AuditCLITests.waihost, ["audit", "serve", "--db", "sqlite:" + dir.path + "/c.db", "--key", key,
                                                         "--port", "0"], limit: 30)
        XCTAssertEqual(serve.status, 1, serve.stderr)
        XCTAssertTrue(serve.stderr.contains("key file \(key) has mode 0644"), serve.stderr)
        XCTAssertTrue(serve.stderr.contains("chmod 600 \(key)"), serve.stderr)

        let relay = try runProcess(AuditCLITests.waihost, ["relay", "http://127.0.0.1:1/index.m3u8", "--collector", "http://127.0.0.1:1",
                                                         "--owner", Fixture.owner.publicKey.hex, "--installation-key", key], limit: 30)
        XCTAssertEqual(relay.status, 1, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("key file \(key) has mode 0644"), relay.stderr)
    }

    func testDefaultInstallationKeyWithWideModeIsRefused() throws {
        let dir = try TempFolder()
        let path = dir.path + "/audit/installation.key"
        _ = try InstallationKey.loadOrCreate(path: path)
        XCTAssertEqual(mode(path), 0o600)
        chmod(path, 0o644)
        XCTAssertThrowsError(try InstallationKey.loadOrCreate(path: path)) {
            guard case .tooOpen? = $0 as? PrivateKeyFileError else { return XCTFail("\($0)") }
        }
    }

    func testSQLiteStoreIsCreatedPrivate() throws {
        let dir = try TempFolder()
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
