// The recorder on a real relay session: acks for every object of an ffmpeg stream played by
// ffmpeg, and ad claims for DATERANGE and CUE-OUT/IN markers, in a bundle that verifies.

import Foundation
import TestSupport
import XCTest
@testable import Audit
import Relay
import WaiCrypto

final class RecorderTests: XCTestCase {
    func testAcksForAStreamPlayedByFFmpegThroughTheRelay() throws {
        let dir = try TempDir()
        let made = try FFmpeg.makeStream(in: dir.path, seconds: 3)
        XCTAssertEqual(made.status, 0, made.stderrText)
        let origin = try FolderOrigin(root: dir.path)
        let lines = Locked<[CMCDEvent]>([])
        let recorder = try AuditRecorder(installationKey: Fixture.installation, owner: Fixture.owner.publicKey,
                                         cmcdIntervalSeconds: nil) { lines.append($0) }
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: recorder)
        let played = try FFmpeg.play(session.playerURL)
        XCTAssertEqual(played.status, 0, played.stderrText)
        session.close()
        let bytes = try recorder.finish()
        XCTAssertEqual(try recorder.finish(), bytes, "finish is idempotent")

        let v = try AuditBundle.verify(bytes, owner: Fixture.owner.publicKey, trustedInstallationKeys: [Fixture.installation.publicKey])
        XCTAssertEqual(v.sessionId, recorder.sessionId)
        let playlist = try Playlist.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path + "/index.m3u8"))))
        let segmentNames = playlist.segments.map { $0.uri }
        XCTAssertEqual(segmentNames.count, 3)
        // One ack per origin fetch: the playlist once, then each segment once, in play order.
        XCTAssertEqual(v.acks.map { $0.uri }, [origin.url("index.m3u8")] + segmentNames.map { origin.url($0) })
        for ack in v.acks {
            let name = String(ack.uri.split(separator: "/").last ?? "")
            let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + name)))
            XCTAssertEqual(ack.sha256, SHA256.hex(file), name)
            XCTAssertEqual(ack.size, Int64(file.count), name)
            XCTAssertEqual(ack.outcome, .relayed, name)
            XCTAssertEqual(ack.kind, name.hasSuffix(".m3u8") ? .playlist : .object)
        }
        XCTAssertEqual(v.session.endReason, .closed)
        XCTAssertEqual(v.session.objects, 4)
        XCTAssertEqual(v.session.relayed, 4)
        XCTAssertEqual(v.session.withheld, 0)
        XCTAssertEqual(v.session.bytes, v.acks.reduce(0) { $0 + $1.size })
        XCTAssertEqual(v.session.decodeUnits, ["player"])
        XCTAssertEqual(v.adClaims, [])
        // CMCD event mode (docs/collector.md §CMCD rules): starting, playing, ended; a response
        // received for each fetch; msd once, on playing. Each report passes the collector's checks.
        let sent = lines.value
        XCTAssertEqual(sent.filter { $0.type == "ps" }.map { $0.keys["sta"] }, [.token("s"), .token("p"), .token("e")])
        XCTAssertEqual(sent.filter { $0.type == "rr" }.compactMap { $0.keys["url"] },
                       ([origin.url("index.m3u8")] + segmentNames.map { origin.url($0) }).map { .string($0) })
        // Each `rr` carries the origin's status and curl's timers (whole ms, first byte ≤ last).
        for rr in sent.filter({ $0.type == "rr" }) { assertResponseReceived(rr, status: 200) }
        XCTAssertEqual(sent.filter { $0.keys["msd"] != nil }.map { $0.keys["sta"] }, [.token("p")])
        XCTAssertTrue(sent.allSatisfy { $0.keys["sid"] == .string(recorder.sessionId) && $0.keys["v"] == .integer(2) })
        let body = sent.enumerated().map { $1.line(sn: Int64($0)) }.joined(separator: "\n")
        XCTAssertEqual(try CMCDParser.parseEventBody(Array(body.utf8)).map { $0.sequence }, (0..<Int64(sent.count)).map { $0 })
    }

    func testAdClaimsFromDateRangeAndCueMarkers() throws {
        let dir = try TempDir()
        let names = ["c0", "a0", "a1", "c1", "b0", "c2"]
        for n in names { try Data(Array("segment \(n)".utf8)).write(to: URL(fileURLWithPath: dir.path + "/\(n).ts")) }
        let playlistText = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:0
            #EXTINF:4.000,
            c0.ts
            #EXT-X-DATERANGE:ID="ad-1",CLASS="com.example.ad",START-DATE="2026-11-30T00:00:04.000Z",PLANNED-DURATION=6.5,SCTE35-OUT=0xFC302000
            #EXTINF:4.000,
            a0.ts
            #EXTINF:2.500,
            a1.ts
            #EXTINF:4.000,
            c1.ts
            #EXT-X-CUE-OUT:4
            #EXTINF:4.000,
            b0.ts
            #EXT-X-CUE-IN
            #EXTINF:4.000,
            c2.ts
            #EXT-X-ENDLIST

            """
        try Data(playlistText.utf8).write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        let origin = try FolderOrigin(root: dir.path)
        let recorder = try AuditRecorder(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: recorder)
        let client = OriginClient()
        let rewritten = try Playlist.parse(try client.fetch(session.playerURL).body)
        let local = Dictionary(uniqueKeysWithValues: zip(names, rewritten.segments.map { $0.uri }))
        for n in names {
            // a1 is released while nobody can see the player: it is claimed, not counted as presented.
            recorder.setVisible(n != "a1")
            _ = try client.fetch(try XCTUnwrap(local[n]))
        }
        session.close()
        let v = try AuditBundle.verify(try recorder.finish(), owner: Fixture.owner.publicKey)
        func seg(_ n: String, _ ms: Int64) -> AdSegment {
            AdSegment(uri: origin.url(n + ".ts"), sha256: SHA256.hex(Array("segment \(n)".utf8)), durationMs: ms)
        }
        XCTAssertEqual(v.adClaims, [
            AdClaimBody(marker: .daterange, id: "ad-1", adClass: "com.example.ad", startDate: "2026-11-30T00:00:04.000Z",
                        scte35Cmd: nil, scte35Out: "0xFC302000", scte35In: nil, plannedDurationMs: 6500,
                        segments: [seg("a0", 4000), seg("a1", 2500)], presentedMs: 4000),
            AdClaimBody(marker: .cue, id: "cue-4", adClass: nil, startDate: nil, scte35Cmd: nil, scte35Out: nil,
                        scte35In: nil, plannedDurationMs: 4000, segments: [seg("b0", 4000)], presentedMs: 4000),
        ])
        XCTAssertEqual(v.session.adClaims, 2)
        XCTAssertEqual(v.session.objects, 7)
        XCTAssertEqual(v.records.map { $0.type }, Array(repeating: .ack, count: 7) + [.adClaim, .adClaim, .session])
    }

    func testWithheldObjectIsAcknowledgedWithItsReason() throws {
        let dir = try TempDir()
        let body = Array("not what the name says".utf8)
        let name = String(repeating: "0", count: 64) + ".ts"
        try Data(body).write(to: URL(fileURLWithPath: dir.path + "/" + name))
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\n\(name)\n#EXT-X-ENDLIST\n".utf8)
            .write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        let origin = try FolderOrigin(root: dir.path)
        let recorder = try AuditRecorder(installationKey: Fixture.installation, owner: Fixture.owner.publicKey)
        var options = RelayOptions()
        options.contentAddressed = true
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: recorder)
        let client = OriginClient()
        let rewritten = try Playlist.parse(try client.fetch(session.playerURL).body)
        XCTAssertThrowsError(try client.fetch(rewritten.segments[0].uri))
        session.end(reason: .notVisible)
        let v = try AuditBundle.verify(try recorder.finish())
        let ack = try XCTUnwrap(v.acks.last)
        XCTAssertEqual(ack.outcome, .withheld)
        XCTAssertEqual(ack.sha256, SHA256.hex(body))
        XCTAssertNotNil(ack.reason)
        XCTAssertEqual(v.session.withheld, 1)
        XCTAssertEqual(v.session.endReason, .notVisible)
    }
}

extension RecorderTests {
    /// `rr` for every response received whole, an HTTP error status too, with its `rc`; none for
    /// a transfer that failed (it has its `e`).
    func testResponseReceivedCarriesStatusAndTimingOnlyForResponses() throws {
        let dir = try TempDir()
        try Data("segment".utf8).write(to: URL(fileURLWithPath: dir.path + "/a.ts"))
        // missing.ts: the origin answers 404; port 1 on loopback: refused (not the origin's address).
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\na.ts\n#EXTINF:4.0,\nmissing.ts\n#EXTINF:4.0,\nhttp://127.0.0.1:1/b.ts\n#EXT-X-ENDLIST\n".utf8)
            .write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        let origin = try FolderOrigin(root: dir.path)
        let lines = Locked<[CMCDEvent]>([])
        let recorder = try AuditRecorder(installationKey: Fixture.installation, owner: Fixture.owner.publicKey,
                                         cmcdIntervalSeconds: nil) { lines.append($0) }
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: recorder)
        let client = OriginClient()
        let rewritten = try Playlist.parse(try client.fetch(session.playerURL).body)
        XCTAssertEqual(rewritten.segments.count, 3)
        XCTAssertNoThrow(try client.fetch(rewritten.segments[0].uri))
        XCTAssertThrowsError(try client.fetch(rewritten.segments[1].uri))
        XCTAssertThrowsError(try client.fetch(rewritten.segments[2].uri))
        session.close()
        _ = try recorder.finish()

        let sent = lines.value
        let rr = sent.filter { $0.type == "rr" }
        XCTAssertEqual(rr.compactMap { $0.keys["url"] }, [origin.url("index.m3u8"), origin.url("a.ts"), origin.url("missing.ts")].map { .string($0) })
        XCTAssertEqual(rr.map { $0.keys["ot"] }, [.token("m"), nil, nil])
        for (event, status) in zip(rr, [200, 200, 404] as [Int64]) { assertResponseReceived(event, status: status) }
        XCTAssertEqual(sent.filter { $0.type == "e" }.count, 2, "\(sent)")
        let body = sent.enumerated().map { $1.line(sn: Int64($0)) }.joined(separator: "\n")
        XCTAssertEqual(try CMCDParser.parseEventBody(Array(body.utf8)).count, sent.count)
    }

    func assertResponseReceived(_ rr: CMCDEvent, status: Int64, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(rr.keys["rc"], .integer(status), "\(rr)", file: file, line: line)
        guard case .integer(let ttfb)? = rr.keys["ttfb"], case .integer(let ttlb)? = rr.keys["ttlb"] else {
            return XCTFail("rr without integer ttfb/ttlb: \(rr)", file: file, line: line)
        }
        XCTAssertTrue(0 <= ttfb && ttfb <= ttlb, "ttfb \(ttfb), ttlb \(ttlb)", file: file, line: line)
        guard case .string(let url)? = rr.keys["url"], !url.isEmpty else { return XCTFail("rr without url: \(rr)", file: file, line: line) }
    }
}

