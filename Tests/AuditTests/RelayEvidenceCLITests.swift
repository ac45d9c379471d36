// The real `waihost relay --collector` losing no evidence: SIGKILLed mid-session, the next run
// delivers what was journaled before the kill; with a spool that refuses the bundle, the
// relay delivers from memory, or exits 3 saying the evidence is lost (never 0).
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
import Relay
#if canImport(Glibc)
import Glibc
#endif

final class RelayEvidenceCLITests: XCTestCase {
    struct Stream {
        let dir: TempDir
        let origin: FolderOrigin
        let segments: [String: [UInt8]]
        let keyFile: String
        var env: [String: String] { ["WAIHOST_CACHE_DIR": dir.path + "/cache"] }
        var ownerSpool: String { dir.path + "/cache/audit/spool/" + Fixture.owner.publicKey.hex }
    }

    /// A VOD playlist with two small segments (the relay does not need real media to relay it).
    static func makeStream() throws -> Stream {
        let dir = try TempDir()
        var segments: [String: [UInt8]] = [:]
        for n in 0..<2 {
            let name = "seg\(n).ts"
            segments[name] = Array("segment \(n) ".utf8) + [UInt8](repeating: UInt8(n), count: 2000)
            try Data(segments[name]!).write(to: URL(fileURLWithPath: dir.path + "/" + name))
        }
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nseg0.ts\n#EXTINF:1.0,\nseg1.ts\n#EXT-X-ENDLIST\n".utf8)
            .write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        let keyFile = dir.path + "/installation.key"
        try KeyFile.write(Fixture.installation, path: keyFile)
        return Stream(dir: dir, origin: try FolderOrigin(root: dir.path), segments: segments, keyFile: keyFile)
    }

    /// Starts the relay; returns its pid, its output file and the player URL it printed.
    static func startRelay(_ s: Stream, collector: String, extra: [String] = []) throws -> (RunningSubprocess, String, String) {
        let log = s.dir.path + "/relay-\(UUID().uuidString).log"
        let pid = try Subprocess(AuditCLITests.waihost, ["relay", s.origin.url("index.m3u8"), "--collector", collector,
                                                         "--owner", Fixture.owner.publicKey.hex, "--installation-key", s.keyFile] + extra,
                                 environment: s.env, output: .file(log), deadline: 600).start()
        for _ in 0..<3000 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("http://127.0.0.1:") }) {
                return (pid, log, String(line))
            }
            usleep(10_000)
        }
        pid.signal(SIGKILL)
        _ = try? pid.wait()
        throw TestFailure(description: "relay printed no URL: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Plays like a player: the playlist, then each segment it lists, through the relay.
    static func play(_ url: String) throws {
        let port = UInt16(url.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }) ?? 0
        let path = String(url.dropFirst("http://127.0.0.1:\(port)".count))
        let playlist = try TestHTTP.send(port: port, method: "GET", target: path)
        XCTAssertEqual(playlist.status, 200, playlist.text)
        let base = path.split(separator: "/").dropLast().joined(separator: "/")
        for line in playlist.text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let target: String
            if line.hasPrefix("http://") { target = "/" + line.dropFirst("http://".count).split(separator: "/", maxSplits: 1).last.map(String.init)! }
            else if line.hasPrefix("/") { target = String(line) }
            else { target = "/" + base + (base.isEmpty ? "" : "/") + line }
            let r = try TestHTTP.send(port: port, method: "GET", target: target.replacingOccurrences(of: "//", with: "/"))
            XCTAssertEqual(r.status, 200, "\(line): \(r.text)")
        }
    }

    func testSIGKILLedRelaySessionIsDeliveredByTheNextRun() throws {
        let s = try Self.makeStream()
        let collector = try TestCollector(failures: 0)
        let (pid, log, url) = try Self.startRelay(s, collector: collector.base)
        try Self.play(url)
        // The journal holds the binding and the three acks (playlist, two segments) shortly
        // after they were made.
        var journal = ""
        for _ in 0..<1000 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: s.ownerSpool)) ?? []
            if let j = names.first(where: { $0.hasSuffix(".journal") }),
               let text = try? String(contentsOfFile: s.ownerSpool + "/" + j, encoding: .utf8),
               text.split(separator: "\n").count >= 4 {
                journal = j
                break
            }
            usleep(10_000)
        }
        XCTAssertFalse(journal.isEmpty, "no journal with the session's records in \(s.ownerSpool)")
        pid.signal(SIGKILL)
        XCTAssertEqual(try pid.wait().status, 128 + SIGKILL)
        XCTAssertEqual(collector.postCount, 0, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        let killedSession = String(journal.dropLast(".journal".count))

        // The next run, any session: the dead relay's journal is recovered and delivered.
        let (pid2, log2, _) = try Self.startRelay(s, collector: collector.base, extra: ["--deliver-wait", "60"])
        pid2.signal(SIGINT)
        let status = try pid2.wait().status
        let out = (try? String(contentsOfFile: log2, encoding: .utf8)) ?? ""
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("audit bundle \(killedSession) recovered"), out)
        let bytes = try XCTUnwrap(collector.stored[killedSession], "the killed session's evidence was not delivered: \(out)")
        let v = try AuditBundle.verify(bytes, owner: Fixture.owner.publicKey, trustedInstallationKeys: [Fixture.installation.publicKey])
        XCTAssertEqual(v.session.endReason, .interrupted)
        XCTAssertEqual(v.acks.filter { $0.kind == .playlist }.count, 1)
        for (name, body) in s.segments {
            let a = v.acks.filter { $0.uri == s.origin.url(name) }
            XCTAssertEqual(a.map { $0.sha256 }, [SHA256.hex(body)], name)
        }
        XCTAssertEqual(collector.stored.count, 2, "the killed session and the second one")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: s.ownerSpool), [], "spool empty")
    }

    func testSpoolRefusingTheBundleNeverExitsZeroWithTheEvidenceLost() throws {
        for collectorUp in [false, true] {
            let s = try Self.makeStream()
            let collector = try TestCollector(failures: collectorUp ? 0 : Int.max)
            let (pid, log, url) = try Self.startRelay(s, collector: collector.base, extra: ["--deliver-wait", collectorUp ? "60" : "1"])
            try Self.play(url)
            // The spool stops taking files (as a full or read-only file system would).
            try FileManager.default.removeItem(atPath: s.ownerSpool)
            XCTAssertTrue(FileManager.default.createFile(atPath: s.ownerSpool, contents: Data()))
            pid.signal(SIGINT)
            let status = try pid.wait().status
            let out = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            XCTAssertTrue(out.contains("could not be spooled, held in memory"), out)
            if collectorUp {
                XCTAssertEqual(status, 0, out)
                XCTAssertEqual(collector.stored.count, 1, out)
                XCTAssertTrue(out.contains("acknowledged (stored)"), out)
            } else {
                XCTAssertEqual(status, 3, "evidence neither delivered nor spooled: \(out)")
                XCTAssertTrue(out.contains("NOT delivered and NOT spooled"), out)
                XCTAssertTrue(out.contains("its evidence is lost when the relay exits"), "the journal went with the folder: \(out)")
            }
        }
    }
}

/// Userinfo (`user:password@`) of the collector and origin URLs never reaches a log or a record.
final class RedactionTests: XCTestCase {
    func testURLRedaction() {
        XCTAssertEqual(Redaction.url("http://u:p@h:1/x?a=b@c"), "http://***@h:1/x?a=b@c")
        XCTAssertEqual(Redaction.url("https://token@h/x"), "https://***@h/x")
        XCTAssertEqual(Redaction.url("http://h/x@y"), "http://h/x@y")
        XCTAssertEqual(Redaction.url("http://a:b@c@h/"), "http://***@h/")
        XCTAssertEqual(Redaction.message("POST 'http://u:secret@h/v1' failed"), "POST 'http://***@h/v1' failed")
    }

    func testDeliveryFailureNamesTheCollectorWithoutItsPassword() throws {
        let dir = try TempDir()
        let closed = try HTTPServer { _ in HTTPResponse(status: 500) }
        let port = closed.port
        closed.stop()
        let chain = try Fixture.chain()
        let d = AuditDelivery(collector: "http://user:secret@127.0.0.1:\(port)", owner: Fixture.owner.publicKey,
                              spool: try AuditSpool(root: dir.path, owner: Fixture.owner.publicKey))
        d.submit(chain.bundle.encoded(), sessionId: chain.sessionId)
        XCTAssertThrowsError(try d.deliver(sessionId: chain.sessionId)) {
            XCTAssertFalse("\($0)".contains("secret"), "\($0)")
            XCTAssertTrue("\($0)".contains("http://***@127.0.0.1:\(port)/v1/sessions"), "\($0)")
        }
    }

    func testRelayLogsAndRecordsCarryNoPassword() throws {
        let s = try RelayEvidenceCLITests.makeStream()
        let collector = try TestCollector(failures: 1)
        let withUser = collector.base.replacingOccurrences(of: "http://", with: "http://collector:secret1@")
        let log = s.dir.path + "/relay.log"
        let origin = s.origin.url("index.m3u8").replacingOccurrences(of: "http://", with: "http://origin:secret2@")
        let pid = try Subprocess(AuditCLITests.waihost, ["relay", origin, "--collector", withUser, "--owner", Fixture.owner.publicKey.hex,
                                                         "--installation-key", s.keyFile, "--deliver-wait", "60"],
                                 environment: s.env, output: .file(log), deadline: 600).start()
        var url = ""
        for _ in 0..<3000 where url.isEmpty {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            url = text.split(separator: "\n").first(where: { $0.hasPrefix("http://127.0.0.1:") }).map(String.init) ?? ""
            usleep(10_000)
        }
        XCTAssertFalse(url.isEmpty)
        if !url.isEmpty { try RelayEvidenceCLITests.play(url) }
        pid.signal(SIGINT)
        XCTAssertEqual(try pid.wait().status, 0)
        let out = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(out.contains("not delivered, retry"), "the 503 was reported: \(out)")
        XCTAssertFalse(out.contains("secret"), out)
        XCTAssertEqual(collector.stored.count, 1, out)
        for (_, bytes) in collector.stored {
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertFalse(text.contains("secret"))
            let v = try AuditBundle.verify(bytes)
            XCTAssertTrue(v.acks.allSatisfy { $0.uri.hasPrefix("http://***@127.0.0.1:") }, "\(v.acks.map { $0.uri })")
            XCTAssertFalse(v.acks.map { $0.uri + ($0.effectiveUri ?? "") }.joined().contains("secret"))
        }
    }
}
