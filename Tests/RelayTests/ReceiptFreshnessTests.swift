// docs/receipts.md §4.2: receipts carry the time they were sealed; the first revision a
// session accepts of a live playlist must be recent, so an old signed window cannot be
// replayed to a viewer who joins.

import Foundation
import TestSupport
import XCTest
@testable import Relay

final class ReceiptFreshnessTests: XCTestCase {
    let key = try! Ed25519PrivateKey(seed: Array(repeating: 5, count: 32))
    var verifier: ReceiptVerifier { ReceiptVerifier(publisherKey: key.publicKey) }
    let now: UInt64 = 1_790_000_000

    private func sealed(_ p: [UInt8], time: UInt64) throws -> [UInt8] {
        try ReceiptSigner(key: key).seal(playlist: p, name: "index.m3u8", revision: 1, previous: nil, time: time).bytes
    }

    /// A version 1 receipt, as sealers wrote before TIME: signed over the v1 statement.
    private func sealedV1(_ p: [UInt8]) throws -> [UInt8] {
        let message = PlaylistReceipt.signedMessage(name: "index.m3u8", revision: 1, publisherKey: key.publicKey,
                                                    previous: nil, playlistSHA256: SHA256Hasher.digest(p))
        let r = PlaylistReceipt(name: "index.m3u8", revision: 1, publisherKey: key.publicKey, previous: nil,
                                signature: try key.sign(message))
        XCTAssertEqual(r.version, 1)
        return p + Array(r.line.utf8) + [0x0A]
    }

    private func verify(_ bytes: [UInt8]) throws -> RevisionState {
        try verifier.verify(playlistBytes: bytes, name: "index.m3u8", previous: nil,
                            freshness: ReceiptFreshness(now: now, maxAgeSeconds: 60))
    }

    private func assertStale(_ bytes: [UInt8], time: UInt64?, _ line: UInt = #line) {
        XCTAssertThrowsError(try verify(bytes), line: line) { e in
            XCTAssertEqual(e as? ReceiptError, .staleRevision(time: time, now: now, maxAge: 60), line: line)
        }
    }

    func testFirstLiveRevisionOlderThanTheBoundIsRefused() throws {
        let live = livePlaylist(first: 0, count: 3)
        XCTAssertEqual(try verify(try sealed(live, time: now - 60)).revision, 1)
        XCTAssertEqual(try verify(try sealed(live, time: now)).revision, 1)
        assertStale(try sealed(live, time: now - 61), time: now - 61)
        assertStale(try sealed(live, time: now - 86_400), time: now - 86_400)
        // Ahead of this clock: up to the skew allowance.
        XCTAssertEqual(try verify(try sealed(live, time: now + ReceiptFreshness.maxClockSkewSeconds)).revision, 1)
        assertStale(try sealed(live, time: now + ReceiptFreshness.maxClockSkewSeconds + 1), time: now + 61)
        // Without a freshness rule (a recorded session checked later) the time is not judged.
        XCTAssertNoThrow(try verifier.verify(playlistBytes: try sealed(live, time: 1), name: "index.m3u8", previous: nil))
    }

    func testTheBoundGrowsWithTheTargetDuration() throws {
        // TARGETDURATION 30: a packager publishes every 30 s, so 90 s is the bound.
        let text = String(decoding: livePlaylist(first: 0, count: 2), as: UTF8.self)
            .replacingOccurrences(of: "#EXT-X-TARGETDURATION:2", with: "#EXT-X-TARGETDURATION:30")
        let p = Array(text.utf8)
        XCTAssertEqual(ReceiptFreshness(now: now).bound(for: try Playlist.parse(p)), 90)
        XCTAssertNoThrow(try verify(try sealed(p, time: now - 90)))
        XCTAssertThrowsError(try verify(try sealed(p, time: now - 91)))
    }

    func testEndedAndMultivariantPlaylistsAreNotJudgedByAge() throws {
        XCTAssertNoThrow(try verify(try sealed(livePlaylist(first: 0, count: 3, endList: true), time: now - 86_400)))
        let multivariant = Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nv0.m3u8\n".utf8)
        XCTAssertNoThrow(try verify(try sealed(multivariant, time: now - 86_400)))
        // Version 1 receipts keep verifying where no time is needed...
        XCTAssertEqual(try verify(try sealedV1(livePlaylist(first: 0, count: 3, endList: true))).receipt.time, nil)
        XCTAssertNoThrow(try verify(try sealedV1(multivariant)))
        // ...but a live playlist's first revision must say when it was sealed.
        assertStale(try sealedV1(livePlaylist(first: 0, count: 3)), time: nil)
    }

    func testLaterRevisionsAreJudgedByTheChainNotTheClock() throws {
        let signer = ReceiptSigner(key: key)
        let r1 = try signer.seal(playlist: livePlaylist(first: 0, count: 3), name: "index.m3u8", revision: 1, previous: nil, time: now)
        let r2 = try signer.seal(playlist: livePlaylist(first: 1, count: 3), name: "index.m3u8", revision: 2, previous: r1.receipt, time: now - 500)
        let s1 = try verify(r1.bytes)
        XCTAssertEqual(try verifier.verify(playlistBytes: r2.bytes, name: "index.m3u8", previous: s1,
                                           freshness: ReceiptFreshness(now: now, maxAgeSeconds: 60)).revision, 2)
    }

    /// The relay refuses an old live window at session start (receipt_stale), and plays a
    /// fresh one.
    func testRelayWithholdsAStaleFirstRevision() throws {
        let dir = try TempDir()
        let origin = try FolderOrigin(root: dir.path)
        var options = RelayOptions()
        options.requireSigned = true
        options.publisherKey = key.publicKey.bytes
        let clock = ReceiptFreshness().now
        let old = try ReceiptSigner(key: key).seal(playlist: livePlaylist(first: 0, count: 3), name: "index.m3u8",
                                                   revision: 1, previous: nil, time: clock - 3600)
        try Data(old.bytes).write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer)
        defer { session.close() }
        let f = try Curl.request(session.playerURL)
        XCTAssertEqual(f.status, 502)
        XCTAssertEqual(f.header("x-relay-withheld"), "receipt_stale")
        XCTAssertEqual(observer.withheld.map(reasonOf), ["receipt_stale"])

        let fresh = try ReceiptSigner(key: key).seal(playlist: livePlaylist(first: 0, count: 3), name: "index.m3u8",
                                                     revision: 1, previous: nil)
        try Data(fresh.bytes).write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        let session2 = try RelaySession(origin: origin.url("index.m3u8"), options: options)
        defer { session2.close() }
        XCTAssertEqual(try Curl.request(session2.playerURL).status, 200)
    }
}
