// `waihost audit verify` and `waihost relay --collector` as a user runs them: the bundle
// verified or refused with the failing link named; a session's bundle delivered through
// collector failures and across a restart of the relay.

import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class AuditCLITests: XCTestCase {
    static var waihost: String { TestPaths.waihost }

    struct Run { var status: Int32; var stdout: String; var stderr: String }

    func waihost(_ args: [String], env extra: [String: String] = [:]) throws -> Run {
        let r = try Subprocess(Self.waihost, args, environment: extra).run()
        return Run(status: r.status, stdout: r.stdoutText, stderr: r.stderrText)
    }

    func testVerifySaysWhatFails() throws {
        let dir = try TempDir()
        var b = try Fixture.chain().bundle
        let good = dir.path + "/good.json"
        try Data(b.encoded()).write(to: URL(fileURLWithPath: good))
        let ok = try waihost(["audit", "verify", good, "--owner", Fixture.owner.publicKey.hex])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.hasPrefix("\(good): verified\n  session \(b.sessionId), ended closed\n  4 records: 3 acks"), ok.stdout)

        let json = try waihost(["audit", "verify", good, "--json", "--owner", Fixture.stranger.publicKey.hex])
        XCTAssertEqual(json.status, 1)
        // Under --json the failure is the CLI's error object (docs/cli.md, "JSON output").
        let o = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(o?["schema"] as? String, "waihost.error/1")
        let error = o?["error"] as? [String: Any]
        XCTAssertEqual(error?["code"] as? String, "audit")
        XCTAssertEqual(error?["message"] as? String, "\(good): does not verify: " + AuditBundleError.wrongOwner(
            expected: Fixture.stranger.publicKey.hex, got: Fixture.owner.publicKey.hex).description)
        let verified = try waihost(["audit", "verify", good, "--json"])
        XCTAssertEqual(verified.status, 0, verified.stderr)
        let v = try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(v?["schema"] as? String, "waihost.audit-verify/1")
        XCTAssertEqual(v?["ok"] as? Bool, true)
        XCTAssertEqual(v?["session_id"] as? String, b.sessionId)

        b.records.swapAt(1, 2)
        let bad = dir.path + "/bad.json"
        try Data(b.encoded()).write(to: URL(fileURLWithPath: bad))
        let refused = try waihost(["audit", "verify", bad])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "waihost audit verify: \(bad): does not verify: records[1]: sequence number 2, expected 1 (a record dropped, reordered or replayed)\n")

        XCTAssertEqual(try waihost(["audit", "verify"]).status, 2)
        XCTAssertEqual(try waihost(["audit", "bogus"]).status, 2)
        XCTAssertEqual(try waihost(["relay", "http://127.0.0.1:1/x.m3u8", "--collector", "http://127.0.0.1:1"]).status, 2)
    }

    /// One audited relay session played by ffmpeg: waits for the URL line, plays, stops the
    /// relay with SIGINT and returns its stderr.
    func relaySession(origin: String, collector: String, env: [String: String], keyFile: String, deliverWait: String) throws -> String {
        // A relay that hangs is killed at the deadline, so the test fails instead of hanging the suite.
        let p = try Subprocess(Self.waihost, ["relay", origin, "--collector", collector, "--owner", Fixture.owner.publicKey.hex,
                                              "--installation-key", keyFile, "--deliver-wait", deliverWait],
                               environment: env, deadline: 180).start()
        let url = try p.readLine() ?? ""
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        let played = try FFmpeg.play(url)
        XCTAssertEqual(played.status, 0, played.stderrText)
        p.signal(SIGINT)
        let ended = try p.wait()
        XCTAssertEqual(ended.status, 0)
        return ended.stderrText
    }

    func testRelayBundleIsDeliveredThroughFailuresAndAcrossARestart() throws {
        let dir = try TempDir()
        let made = try FFmpeg.makeStream(in: dir.path, seconds: 2)
        XCTAssertEqual(made.status, 0, made.stderrText)
        let origin = try FolderOrigin(root: dir.path)
        let keyFile = dir.path + "/installation.key"
        try KeyFile.write(Fixture.installation, path: keyFile)
        let env = ["WAIHOST_CACHE_DIR": dir.path + "/cache"]
        let spool = dir.path + "/cache/audit/spool/" + Fixture.owner.publicKey.hex

        // First run: the collector refuses everything; the relay exits with the bundle spooled.
        let down = try TestCollector(failures: Int.max)
        let first = try relaySession(origin: origin.url("index.m3u8"), collector: down.base, env: env,
                                     keyFile: keyFile, deliverWait: "0")
        XCTAssertTrue(first.contains("still spooled"), first)
        let spooled = try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".bundle") }
        XCTAssertEqual(spooled.count, 1, first)
        XCTAssertEqual(down.stored.count, 0)

        // Second run: a collector that fails twice, then acknowledges. Both sessions' bundles
        // arrive, each exactly as spooled and verifying; the spool is empty.
        let up = try TestCollector(failures: 2)
        let second = try relaySession(origin: origin.url("index.m3u8"), collector: up.base, env: env,
                                      keyFile: keyFile, deliverWait: "120")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".bundle") }, [], second)
        let stored = up.stored
        XCTAssertEqual(stored.count, 2, second)
        XCTAssertNotNil(stored[String(spooled[0].dropLast(".bundle".count))])
        for (id, bytes) in stored {
            let v = try AuditBundle.verify(bytes, owner: Fixture.owner.publicKey,
                                           trustedInstallationKeys: [Fixture.installation.publicKey])
            XCTAssertEqual(v.sessionId, id)
            XCTAssertEqual(v.acks.count, 3, "playlist and two segments")
            XCTAssertEqual(v.session.endReason, .closed)
        }
        // CMCD from the second session reached the collector (best effort, but nothing fails here).
        XCTAssertTrue(up.cmcd.contains { $0.hasPrefix("e=ps,") }, "\(up.cmcd)")
    }
}
