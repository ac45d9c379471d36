import Foundation
import TestSupport
import XCTest
@testable import Relay

/// A live media playlist: segments `first..<first+count`, named s<seq>.ts.
func livePlaylist(first: UInt64, count: Int, dsn: UInt64 = 0, endList: Bool = false, discontinuityAt: Set<UInt64> = [],
                  uri: (UInt64) -> String = { "s\($0).ts" }, extinf: (UInt64) -> String = { _ in "2.000," },
                  extraHead: String = "") -> [UInt8] {
    var s = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
    if dsn > 0 { s += "#EXT-X-DISCONTINUITY-SEQUENCE:\(dsn)\n" }
    s += extraHead
    for q in first..<(first + UInt64(count)) {
        if discontinuityAt.contains(q) { s += "#EXT-X-DISCONTINUITY\n" }
        s += "#EXTINF:\(extinf(q))\n\(uri(q))\n"
    }
    if endList { s += "#EXT-X-ENDLIST\n" }
    return Array(s.utf8)
}

final class ReceiptTests: XCTestCase {
    let key = try! Ed25519PrivateKey(seed: Array(repeating: 7, count: 32))
    let otherKey = try! Ed25519PrivateKey(seed: Array(repeating: 9, count: 32))
    var verifier: ReceiptVerifier { ReceiptVerifier(publisherKey: key.publicKey) }

    /// Seals a chain of playlists as revisions 1, 2, …
    func chain(_ playlists: [[UInt8]], name: String = "live/index.m3u8", key k: Ed25519PrivateKey? = nil) throws -> [[UInt8]] {
        let signer = ReceiptSigner(key: k ?? key)
        var prev: PlaylistReceipt?
        var out: [[UInt8]] = []
        for (i, p) in playlists.enumerated() {
            let (bytes, r) = try signer.seal(playlist: p, name: name, revision: UInt64(i + 1), previous: prev)
            out.append(bytes)
            prev = r
        }
        return out
    }

    func assertRefused(_ bytes: [UInt8], name: String = "live/index.m3u8", previous: RevisionState? = nil,
                       _ check: (ReceiptError) -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try verifier.verify(playlistBytes: bytes, name: name, previous: previous)
            XCTFail("accepted", file: file, line: line)
        } catch {
            XCTAssertTrue(check(error), "\(error)", file: file, line: line)
        }
    }

    func testSealedPlaylistVerifiesAndReceiptIsLastLine() throws {
        let p = livePlaylist(first: 0, count: 3)
        let (bytes, receipt) = try ReceiptSigner(key: key).seal(playlist: p, name: "live/index.m3u8", revision: 1, previous: nil)
        XCTAssertEqual(Array(bytes.prefix(p.count)), p)
        XCTAssertEqual(String(decoding: bytes.dropFirst(p.count), as: UTF8.self), receipt.line + "\n")
        let t = try XCTUnwrap(receipt.time)
        XCTAssertTrue(receipt.line.hasPrefix("#EXT-X-WAI-RECEIPT:VERSION=2,NAME=\"live/index.m3u8\",REVISION=1,TIME=\(t),KEY=0x\(key.publicKey.hex),SIGNATURE=0x"))
        XCTAssertLessThanOrEqual(t, ReceiptFreshness().now)
        let state = try verifier.verify(playlistBytes: bytes, name: "live/index.m3u8", previous: nil)
        XCTAssertEqual(state.revision, 1)
        XCTAssertEqual(state.playlist.serialized(), p)
        XCTAssertEqual(state.receiptHash, SHA256Hasher.digest(Array(receipt.line.utf8)))
        // The sealed file is still a playlist every parser reads (the receipt is an unknown tag).
        XCTAssertEqual(try Playlist.parse(bytes).segments.count, 3)
        // Fetched again: the same state.
        XCTAssertEqual(try verifier.verify(playlistBytes: bytes, name: "live/index.m3u8", previous: state), state)
    }

    /// The version 2 message (the sealer's), spelled out: version 1's with a time line.
    func testSignedMessageBytesVersion2() throws {
        let m = PlaylistReceipt.signedMessage(name: "a.m3u8", revision: 2, time: 1_790_000_000, publisherKey: key.publicKey,
                                              previous: Array(repeating: 0xab, count: 32), playlistSHA256: Array(repeating: 1, count: 32))
        let statement = "waihost playlist receipt v2\nname: a.m3u8\nrevision: 2\ntime: 1790000000\nprevious: \(String(repeating: "ab", count: 32))\n"
            + "key: \(key.publicKey.hex)\nplaylist-sha256: \(String(repeating: "01", count: 32))\n"
        let expected = "DSSEv1 43 application/vnd.waihost.playlist-receipt.v2 \(statement.utf8.count) \(statement)"
        XCTAssertEqual(String(decoding: m, as: UTF8.self), expected)
    }

    /// The version 1 message (receipts sealed before TIME existed), spelled out, so an
    /// independent verifier has a fixed target.
    func testSignedMessageBytes() throws {
        let m = PlaylistReceipt.signedMessage(name: "a.m3u8", revision: 2, publisherKey: key.publicKey,
                                              previous: Array(repeating: 0xab, count: 32), playlistSHA256: Array(repeating: 1, count: 32))
        let statement = "waihost playlist receipt v1\nname: a.m3u8\nrevision: 2\nprevious: \(String(repeating: "ab", count: 32))\n"
            + "key: \(key.publicKey.hex)\nplaylist-sha256: \(String(repeating: "01", count: 32))\n"
        let expected = "DSSEv1 43 application/vnd.waihost.playlist-receipt.v1 \(statement.utf8.count) \(statement)"
        XCTAssertEqual(String(decoding: m, as: UTF8.self), expected)
    }

    /// The openssl command-line tool, knowing nothing of this code, accepts the signature over
    /// the message docs/receipts.md §3 defines.
    func testOpenSSLCommandVerifiesReceipt() throws {
        let dir = try TempDir()
        let p = livePlaylist(first: 0, count: 2)
        let (bytes, receipt) = try ReceiptSigner(key: key).seal(playlist: p, name: "index.m3u8", revision: 1, previous: nil)
        let covered = Array(bytes.prefix(bytes.count - receipt.line.utf8.count - 1))
        let msg = PlaylistReceipt.signedMessage(name: "index.m3u8", revision: 1, time: receipt.time, publisherKey: key.publicKey, previous: nil,
                                                playlistSHA256: SHA256Hasher.digest(covered))
        let spki = Hex.decode("302a300506032b6570032100")! + key.publicKey.bytes
        let pem = "-----BEGIN PUBLIC KEY-----\n\(Data(spki).base64EncodedString())\n-----END PUBLIC KEY-----\n"
        try pem.write(toFile: dir.path + "/pub.pem", atomically: true, encoding: .utf8)
        try Data(msg).write(to: URL(fileURLWithPath: dir.path + "/msg"))
        try Data(receipt.signature).write(to: URL(fileURLWithPath: dir.path + "/sig"))
        let args = ["pkeyutl", "-verify", "-pubin", "-inkey", dir.path + "/pub.pem", "-rawin", "-in", dir.path + "/msg", "-sigfile", dir.path + "/sig"]
        XCTAssertEqual(try Subprocess("/usr/bin/openssl", args, deadline: 60).run().status, 0)
        var bad = msg; bad[bad.count - 2] ^= 1
        try Data(bad).write(to: URL(fileURLWithPath: dir.path + "/msg"))
        XCTAssertNotEqual(try Subprocess("/usr/bin/openssl", args, deadline: 60).run().status, 0)
    }

    func testFlippedByteAnywhereIsRefused() throws {
        let bytes = try chain([livePlaylist(first: 0, count: 2)])[0]
        // Every byte of the file, one at a time: nothing verifies.
        for i in 0..<bytes.count {
            var b = bytes
            b[i] ^= 0x01
            assertRefused(b) { _ in true }
        }
        var b = bytes
        b[20] ^= 0x01
        assertRefused(b) { $0 == .badSignature }
    }

    func testEditedPlaylistIsRefused() throws {
        let bytes = try chain([livePlaylist(first: 0, count: 2)])[0]
        let edited = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "s1.ts", with: "evil.ts").utf8)
        assertRefused(edited) { $0 == .badSignature }
        let added = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "#EXT-X-WAI", with: "#EXTINF:2.000,\nx.ts\n#EXT-X-WAI").utf8)
        assertRefused(added) { $0 == .badSignature }
    }

    func testOtherKeyIsRefused() throws {
        let bytes = try chain([livePlaylist(first: 0, count: 2)], key: otherKey)[0]
        assertRefused(bytes) { $0 == .wrongKey(expected: self.key.publicKey.hex, got: self.otherKey.publicKey.hex) }
        // The KEY attribute swapped for the publisher's: the signature is not the publisher's.
        let swapped = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: otherKey.publicKey.hex, with: key.publicKey.hex).utf8)
        assertRefused(swapped) { $0 == .badSignature }
    }

    func testWrongNameIsRefused() throws {
        let bytes = try chain([livePlaylist(first: 0, count: 2)], name: "v1/index.m3u8")[0]
        assertRefused(bytes, name: "v0/index.m3u8") { $0 == .wrongName(expected: "v0/index.m3u8", got: "v1/index.m3u8") }
    }

    func testTruncatedOrMissingReceiptIsRefused() throws {
        let p = livePlaylist(first: 0, count: 2)
        let bytes = try chain([p])[0]
        for cut in 1..<(bytes.count - p.count) {
            assertRefused(Array(bytes.dropLast(cut))) { e in
                if case .malformedReceipt = e { return true }
                return e == .missingReceipt || e == .badSignature
            }
        }
        assertRefused(Array(bytes.dropLast(1))) { if case .malformedReceipt = $0 { return true }; return false }
        assertRefused(Array(bytes.dropLast(3))) { if case .malformedReceipt = $0 { return true }; return false }
        assertRefused(p) { $0 == .missingReceipt }
        assertRefused([]) { $0 == .missingReceipt }
        // A file cut inside the playlist, receipt gone.
        assertRefused(Array(bytes.prefix(30))) { $0 == .missingReceipt }
    }

    func testNonCanonicalReceiptsAreRefused() throws {
        let bytes = try chain([livePlaylist(first: 0, count: 2)])[0]
        let text = String(decoding: bytes, as: UTF8.self)
        func refused(_ t: String) { assertRefused(Array(t.utf8)) { if case .malformedReceipt = $0 { return true }; return false } }
        refused(text.replacingOccurrences(of: "KEY=0x\(key.publicKey.hex)", with: "KEY=0x\(key.publicKey.hex.uppercased())"))
        refused(text.replacingOccurrences(of: ",SIGNATURE=", with: ",EXTRA=1,SIGNATURE="))
        refused(text.replacingOccurrences(of: "REVISION=1,", with: "REVISION=01,"))
        refused(text.replacingOccurrences(of: "REVISION=1,", with: "REVISION=1,PREVIOUS=0x\(String(repeating: "00", count: 32)),"))
        refused(String(text.dropLast()) + "\r\n")
        assertRefused(Array(text.replacingOccurrences(of: "VERSION=2", with: "VERSION=3").utf8)) { $0 == .unsupportedVersion("3") }
        assertRefused(Array(text.replacingOccurrences(of: "VERSION=2", with: "VERSION=02").utf8)) { $0 == .unsupportedVersion("02") }
        // A version 2 line without its TIME, or the TIME moved: not the canonical spelling.
        refused(text.replacingOccurrences(of: "VERSION=2", with: "VERSION=1"))
        // Two receipts: the earlier one is not allowed to hide anywhere.
        let receiptLine = text.split(separator: "\n").last!
        let doubled = text.replacingOccurrences(of: "#EXT-X-TARGETDURATION", with: "\(receiptLine)\n#EXT-X-TARGETDURATION")
        assertRefused(Array(doubled.utf8)) { $0 == .multipleReceipts(line: 3) }
    }

    func testLiveChainAcceptsAllowedChanges() throws {
        let revisions = try chain([
            livePlaylist(first: 0, count: 3),
            livePlaylist(first: 0, count: 4),                  // append
            livePlaylist(first: 2, count: 3),                  // remove 2 from the head, append 1
            livePlaylist(first: 3, count: 3, endList: true),   // remove 1, end the list
        ])
        var state: RevisionState?
        for r in revisions {
            state = try verifier.verify(playlistBytes: r, name: "live/index.m3u8", previous: state)
        }
        XCTAssertEqual(state?.revision, 4)
        // A viewer that missed revisions 2 and 3 still accepts 4 after 1.
        let s1 = try verifier.verify(playlistBytes: revisions[0], name: "live/index.m3u8", previous: nil)
        XCTAssertEqual(try verifier.verify(playlistBytes: revisions[3], name: "live/index.m3u8", previous: s1).revision, 4)
        // And a viewer joining late starts anywhere.
        XCTAssertEqual(try verifier.verify(playlistBytes: revisions[2], name: "live/index.m3u8", previous: nil).revision, 3)
    }

    func testReplayedOldRevisionIsRefused() throws {
        let rs = try chain([livePlaylist(first: 0, count: 2), livePlaylist(first: 1, count: 2), livePlaylist(first: 2, count: 2)])
        var state = try verifier.verify(playlistBytes: rs[0], name: "live/index.m3u8", previous: nil)
        state = try verifier.verify(playlistBytes: rs[1], name: "live/index.m3u8", previous: state)
        state = try verifier.verify(playlistBytes: rs[2], name: "live/index.m3u8", previous: state)
        assertRefused(rs[1], previous: state) { $0 == .replayedRevision(got: 2, latest: 3) }
        assertRefused(rs[0], previous: state) { $0 == .replayedRevision(got: 1, latest: 3) }
    }

    func testForkedRevisionIsRefused() throws {
        let a = try chain([livePlaylist(first: 0, count: 2), livePlaylist(first: 0, count: 3)])
        let b = try chain([livePlaylist(first: 0, count: 2), livePlaylist(first: 0, count: 3, uri: { $0 == 2 ? "other.ts" : "s\($0).ts" })])
        let s1 = try verifier.verify(playlistBytes: a[0], name: "live/index.m3u8", previous: nil)
        let s2 = try verifier.verify(playlistBytes: a[1], name: "live/index.m3u8", previous: s1)
        // Same revision number, other content.
        assertRefused(b[1], previous: s2) { if case .forkedRevision(revision: 2, _) = $0 { return true }; return false }
        // A revision 2 chained to another revision 1.
        let c = try chain([livePlaylist(first: 0, count: 2, extinf: { _ in "2.0," }), livePlaylist(first: 0, count: 3)])
        assertRefused(c[1], previous: s1) { if case .forkedRevision(revision: 2, _) = $0 { return true }; return false }
    }

    func illegal(_ from: [UInt8], _ to: [UInt8], _ expected: RevisionViolation, file: StaticString = #filePath, line: UInt = #line) throws {
        let rs = try chain([from, to])
        let s1 = try verifier.verify(playlistBytes: rs[0], name: "live/index.m3u8", previous: nil)
        assertRefused(rs[1], previous: s1, { $0 == .illegalChange(expected) }, file: file, line: line)
        // The rules alone say the same.
        XCTAssertThrowsError(try RevisionRules.check(previous: Playlist.parse(from), next: Playlist.parse(to)), file: file, line: line) {
            XCTAssertEqual($0 as? RevisionViolation, expected, file: file, line: line)
        }
    }

    func testReorderedSegmentsAreRefused() throws {
        let order: [UInt64: String] = [1: "s2.ts", 2: "s1.ts"]
        try illegal(livePlaylist(first: 0, count: 3), livePlaylist(first: 0, count: 4, uri: { order[$0] ?? "s\($0).ts" }),
                    .segmentChanged(sequence: 1, field: "URI", from: "s1.ts", to: "s2.ts"))
    }

    func testRemovedFromMiddleIsRefused() throws {
        // s1 removed: every later segment shifts down one sequence number.
        try illegal(livePlaylist(first: 0, count: 4), livePlaylist(first: 0, count: 4, uri: { "s\($0 >= 1 ? $0 + 1 : $0).ts" }),
                    .segmentChanged(sequence: 1, field: "URI", from: "s1.ts", to: "s2.ts"))
    }

    func testEditedSegmentIsRefused() throws {
        try illegal(livePlaylist(first: 0, count: 3), livePlaylist(first: 1, count: 3, extinf: { $0 == 2 ? "1.500," : "2.000," }),
                    .segmentChanged(sequence: 2, field: "EXTINF", from: "2.000,", to: "1.500,"))
    }

    func testLoweredSequenceIsRefused() throws {
        try illegal(livePlaylist(first: 5, count: 3), livePlaylist(first: 4, count: 4), .mediaSequenceLowered(from: 5, to: 4))
    }

    func testTailRemovalIsRefused() throws {
        try illegal(livePlaylist(first: 0, count: 4), livePlaylist(first: 1, count: 2), .segmentsRemovedFromTail(last: 3, nowLast: 2))
    }

    func testEndListRules() throws {
        try illegal(livePlaylist(first: 0, count: 3, endList: true), livePlaylist(first: 0, count: 3), .endListRemoved)
        try illegal(livePlaylist(first: 0, count: 3, endList: true), livePlaylist(first: 0, count: 4, endList: true), .changedAfterEndList)
    }

    func testTargetDurationAndTypeRules() throws {
        let a = livePlaylist(first: 0, count: 2)
        let b = Array(String(decoding: livePlaylist(first: 0, count: 3), as: UTF8.self).replacingOccurrences(of: "TARGETDURATION:2", with: "TARGETDURATION:3").utf8)
        try illegal(a, b, .targetDurationChanged(from: 2, to: 3))
        let ev = livePlaylist(first: 0, count: 2, extraHead: "#EXT-X-PLAYLIST-TYPE:EVENT\n")
        try illegal(ev, livePlaylist(first: 1, count: 2, extraHead: "#EXT-X-PLAYLIST-TYPE:EVENT\n"), .removedFromEventPlaylist(mediaSequence: 1))
        try illegal(ev, livePlaylist(first: 0, count: 3), .playlistTypeChanged(from: "EVENT", to: nil))
    }

    func testDiscontinuitySequenceRules() throws {
        let a = livePlaylist(first: 0, count: 4, discontinuityAt: [1, 3])
        // Removing 0 and 1 removes one discontinuity: the sequence must go from 0 to 1.
        XCTAssertNoThrow(try RevisionRules.check(previous: Playlist.parse(a), next: Playlist.parse(livePlaylist(first: 2, count: 3, dsn: 1, discontinuityAt: [3]))))
        try illegal(a, livePlaylist(first: 2, count: 3, dsn: 0, discontinuityAt: [3]), .discontinuitySequenceWrong(expected: 1, got: 0))
        try illegal(a, livePlaylist(first: 2, count: 3, dsn: 2, discontinuityAt: [3]), .discontinuitySequenceWrong(expected: 1, got: 2))
        try illegal(a, livePlaylist(first: 1, count: 4, discontinuityAt: [3]),
                    .segmentChanged(sequence: 1, field: "EXT-X-DISCONTINUITY", from: "true", to: "false"))
    }

    func testMapAndKeyRestatedAtHeadAreAllowed() throws {
        func p(_ first: UInt64, _ count: Int, mapFirst: Bool) -> [UInt8] {
            var s = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            for q in first..<(first + UInt64(count)) { s += "#EXTINF:2.0,\n\(q).m4s\n" }
            return Array(s.utf8)
        }
        XCTAssertNoThrow(try RevisionRules.check(previous: Playlist.parse(p(0, 3, mapFirst: true)), next: Playlist.parse(p(1, 3, mapFirst: true))))
        let other = Array(String(decoding: p(1, 3, mapFirst: true), as: UTF8.self).replacingOccurrences(of: "init.mp4", with: "init2.mp4").utf8)
        XCTAssertThrowsError(try RevisionRules.check(previous: Playlist.parse(p(0, 3, mapFirst: true)), next: Playlist.parse(other))) {
            guard case .segmentChanged(sequence: 1, field: "EXT-X-MAP", _, _) = $0 as? RevisionViolation else { return XCTFail("\($0)") }
        }
    }

    func testContentAddress() {
        let h = String(repeating: "0123456789abcdef", count: 4)
        XCTAssertEqual(ContentAddress.expectedHash(forURI: "\(h).ts"), Hex.decode(h))
        XCTAssertEqual(ContentAddress.expectedHash(forURI: "https://cdn.example/a/b/\(h).m4s?CMCD=bl%3D100#x"), Hex.decode(h))
        XCTAssertEqual(ContentAddress.expectedHash(forURI: "/x/\(h).mp4"), Hex.decode(h))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h)"))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h)."))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h.uppercased()).ts"))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h.dropLast()).ts"))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h)0.ts"))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h).t-s"))
        XCTAssertNil(ContentAddress.expectedHash(forURI: "\(h).ts/seg.ts"))
        XCTAssertEqual(ContentAddress.name(hash: Hex.decode(h)!, fileExtension: "ts"), "\(h).ts")
    }

    func testReceiptNames() throws {
        let root = try XCTUnwrap(URL(string: "https://o.example/live/ch7/master.m3u8?CMCD=x"))
        func n(_ s: String) -> String? { ReceiptName.forURL(URL(string: s)!, root: root) }
        XCTAssertEqual(n("https://o.example/live/ch7/master.m3u8"), "master.m3u8")
        XCTAssertEqual(n("https://o.example/live/ch7/v0/index.m3u8?CMCD=bl%3D1"), "v0/index.m3u8")
        XCTAssertEqual(n("https://O.example/live/ch7/stream_1.m3u8"), "stream_1.m3u8")
        XCTAssertEqual(n("https://o.example/live/ch8/index.m3u8"), "/live/ch8/index.m3u8")
        XCTAssertEqual(n("https://cdn.example/live/ch7/index.m3u8"), "/live/ch7/index.m3u8")
        XCTAssertEqual(n("http://o.example/live/ch7/index.m3u8"), "/live/ch7/index.m3u8")
    }
}
