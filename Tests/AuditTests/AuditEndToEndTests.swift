// End to end, every piece real: `waihost audit serve` on SQLite and on a throwaway PostgreSQL
// cluster, `waihost relay --collector --owner` in front of a folder origin serving a tiny
// ffmpeg HLS stream, and ffmpeg as the player. The session ends by itself (--idle-after); its
// bundle must then be in the collector's store exactly once, verify under the owner key, and
// acknowledge every segment the player fetched with the SHA-256 of the file on disk.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class AuditEndToEndTests: XCTestCase {
    func testRelaySessionReachesSQLiteCollector() throws {
        let dir = try TempDir()
        let db = dir.path + "/collector.db"
        try playAuditedSession(db: "sqlite:" + db, in: dir) { try SQLiteStore(path: db) }
    }

    func testRelaySessionReachesPostgresCollector() throws {
        let pg = try TestPostgres()
        let dir = try TempDir()
        try playAuditedSession(db: pg.uri, in: dir) { try PostgresStore(uri: pg.uri) }
    }

    private func playAuditedSession(db: String, in dir: TempDir, openStore: () throws -> CollectorStore) throws {
        let waihost = CollectorDurabilityTests.waihost
        guard FileManager.default.isExecutableFile(atPath: waihost) else {
            return XCTFail("\(waihost) is missing: build the package first (swift build)")
        }
        let stream = dir.path + "/stream"
        try FileManager.default.createDirectory(atPath: stream, withIntermediateDirectories: true)
        let made = try FFmpeg.makeStream(in: stream, seconds: 3)
        XCTAssertEqual(made.status, 0, made.stderrText)
        let segments = try FileManager.default.contentsOfDirectory(atPath: stream).filter { $0.hasSuffix(".ts") }.sorted()
        XCTAssertGreaterThanOrEqual(segments.count, 2, "\(segments)")
        let origin = try FolderOrigin(root: stream)

        // The collector, as a user starts it.
        let ownerKey = dir.path + "/owner.key"
        try KeyFile.write(Fixture.owner, path: ownerKey)
        let serveLog = dir.path + "/serve.log"
        // Killed with its group when the test ends before it is stopped.
        let serve = try Subprocess(waihost, ["audit", "serve", "--db", db, "--key", ownerKey, "--port", "0"],
                                   output: .file(serveLog), deadline: 600).start()
        let port = try CollectorDurabilityTests.waitForPort(log: serveLog, process: serve)

        // The relay, audited; the session ends on its own once the player stops asking.
        let installationKey = dir.path + "/installation.key"
        try KeyFile.write(Fixture.installation, path: installationKey)
        let relayed = try relaySession(waihost: waihost, origin: origin.url("index.m3u8"), collector: "http://127.0.0.1:\(port)",
                                       keyFile: installationKey, cacheDir: dir.path + "/cache", framemd5: dir.path + "/relayed.framemd5")
        XCTAssertEqual(relayed.status, 0, relayed.stderr)
        XCTAssertTrue(relayed.stderr.contains("waihost relay: session ended (idle_timeout)"), relayed.stderr)
        XCTAssertTrue(relayed.stderr.contains("acknowledged (stored)"), relayed.stderr)
        let spool = dir.path + "/cache/audit/spool/" + Fixture.owner.publicKey.hex
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".bundle") }, [],
                       "acknowledged bundle left in the spool")

        // The player saw through the relay exactly what it sees straight from the origin.
        let direct = try FFmpeg.play(origin.url("index.m3u8"), framemd5: dir.path + "/direct.framemd5")
        XCTAssertEqual(direct.status, 0, direct.stderrText)
        let relayedFrames = try String(contentsOfFile: dir.path + "/relayed.framemd5", encoding: .utf8)
        XCTAssertEqual(relayedFrames, try String(contentsOfFile: dir.path + "/direct.framemd5", encoding: .utf8))
        XCTAssertTrue(relayedFrames.split(separator: "\n").contains { !$0.hasPrefix("#") }, "no frames played")

        // Which segments the player fetched, by name (relay URLs end in the origin's last path segment).
        let fetched = Set(relayed.playerLog.split(separator: "\n").compactMap { line -> String? in
            guard let open = line.range(of: "Opening '") else { return nil }
            let url = line[open.upperBound...].prefix { $0 != "'" }
            guard url.hasSuffix(".ts") else { return nil }
            return String(url.split(separator: "/").last ?? "")
        })
        XCTAssertEqual(fetched, Set(segments), "the player fetched other segments than the stream has:\n\(relayed.playerLog)")

        serve.signal(SIGTERM)
        XCTAssertEqual(try serve.wait().status, 0, (try? String(contentsOfFile: serveLog, encoding: .utf8)) ?? "")

        let store = try openStore()
        defer { store.close() }
        let rows = try store.allBundles()
        XCTAssertEqual(rows.count, 1, "bundles stored: \(rows.map { $0.sessionID })")
        guard let row = rows.first else { return }
        XCTAssertTrue(relayed.stderr.contains("audit bundle \(row.sessionID) acknowledged"), relayed.stderr)
        let v = try AuditBundle.verify(row.bytes, owner: Fixture.owner.publicKey,
                                       trustedInstallationKeys: [Fixture.installation.publicKey])
        XCTAssertEqual(v.sessionId, row.sessionID)
        XCTAssertEqual(v.session.endReason, .idleTimeout)
        XCTAssertEqual(row.digest, SHA256.digest(row.bytes))
        _ = try CollectorAcknowledgement.verify(row.acknowledgement, owner: Fixture.owner.publicKey,
                                                sessionId: row.sessionID, bundleSha256: SHA256.hex(row.bytes))
        XCTAssertEqual(try store.records(sessionID: row.sessionID).count, v.records.count)

        // `waihost audit verify` on the stored bytes agrees.
        let stored = dir.path + "/stored.bundle"
        try Data(row.bytes).write(to: URL(fileURLWithPath: stored))
        let verified = try Subprocess(waihost, ["audit", "verify", stored, "--owner", Fixture.owner.publicKey.hex], deadline: 120).run()
        XCTAssertEqual(verified.status, 0, verified.stderrText)

        // Every segment the player fetched is acknowledged with the file's size and SHA-256.
        XCTAssertTrue(v.acks.contains { $0.kind == .playlist && $0.uri == origin.url("index.m3u8") }, "\(v.acks)")
        for name in segments {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stream + "/" + name)))
            let acks = v.acks.filter { $0.uri == origin.url(name) }
            XCTAssertEqual(acks.count, 1, "acks for \(name): \(acks)")
            guard let ack = acks.first else { continue }
            XCTAssertEqual(ack.kind, .object, name)
            XCTAssertEqual(ack.sha256, SHA256.hex(bytes), name)
            XCTAssertEqual(ack.size, Int64(bytes.count), name)
            XCTAssertNotEqual(ack.outcome, .withheld, "\(name): \(ack)")
        }
        XCTAssertEqual(v.session.withheld, 0)
        XCTAssertEqual(v.session.objects, Int64(v.acks.count))

        // CMCD v2 event mode reached the collector, passed its checks, numbered from 0: the play
        // states, a response received for every fetch, msd once.
        let cmcd = try store.cmcdReports(sessionID: row.sessionID)
        XCTAssertEqual(cmcd.map { $0.sequence }, (0..<Int64(cmcd.count)).map { $0 })
        XCTAssertEqual(cmcd.filter { $0.body.hasPrefix("e=ps,") }.map { $0.body.contains("sta=s,") ? "s" : $0.body.contains("sta=p,") ? "p" : "e" },
                       ["s", "p", "e"], "\(cmcd.map { $0.body })")
        XCTAssertEqual(cmcd.filter { $0.body.hasPrefix("e=rr,") }.count, v.acks.count, "\(cmcd.map { $0.body })")
        // Each with the origin's status and curl's timers, as the collector stored them.
        for report in cmcd where report.body.hasPrefix("e=rr,") {
            var scanner = KeyListScanner(bytes: Array(report.body.utf8), report: 0)
            let keys = Dictionary(try scanner.pairs(), uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(keys["rc"], .integer(200), report.body)
            guard case .integer(let ttfb)? = keys["ttfb"], case .integer(let ttlb)? = keys["ttlb"] else {
                XCTFail("rr without integer ttfb/ttlb: \(report.body)"); continue
            }
            XCTAssertTrue(0 <= ttfb && ttfb <= ttlb, report.body)
            XCTAssertNotNil(keys["url"], report.body)
        }
        XCTAssertEqual(cmcd.filter { $0.body.contains("msd=") }.count, 1)
    }

    struct RelayRun { var status: Int32; var stderr: String; var playerLog: String }

    /// Starts the relay, plays its URL with ffmpeg into `framemd5`, and waits for the relay to
    /// end the session by itself and deliver the bundle.
    private func relaySession(waihost: String, origin: String, collector: String, keyFile: String,
                              cacheDir: String, framemd5: String) throws -> RelayRun {
        // --idle-after leaves the player a few seconds to start: the clock runs from the start.
        // A relay that hangs is killed at the deadline, so the test fails instead of hanging the suite.
        let p = try Subprocess(waihost, ["relay", origin, "--collector", collector, "--owner", Fixture.owner.publicKey.hex,
                                         "--installation-key", keyFile, "--idle-after", "3", "--deliver-wait", "60"],
                               environment: ["WAIHOST_CACHE_DIR": cacheDir], deadline: 180).start()
        let url = try p.readLine() ?? ""
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        let played = try FFmpeg.play(url, framemd5: framemd5)
        XCTAssertEqual(played.status, 0, played.stderrText)
        let ended = try p.wait()
        return RelayRun(status: ended.status, stderr: ended.stderrText, playerLog: played.stderrText)
    }
}
