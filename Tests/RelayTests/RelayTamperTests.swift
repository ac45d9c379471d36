// Tampering is withheld every time and the player never receives a tampered byte: sealed
// streams with one thing changed after sealing, played by ffmpeg through the relay with
// --require-signed --content-addressed, and live revision chains broken on purpose.

import XCTest
import TestSupport
import Foundation
@testable import Relay

final class RelayTamperTests: XCTestCase {
    // MARK: sealed streams changed after sealing, played by ffmpeg

    struct Played {
        let decoded: Player.Decoded
        let expected: Player.Decoded
        let observer: RecordingObserver
        let direct: [String: Fetched]
    }

    /// Seals a stream of `kind`, lets `tamper` change the sealed folder (given the folder and
    /// its object names in playlist order), and plays it through a relay that requires
    /// everything signed and content-addressed. `probe` names objects also fetched with curl.
    private func play(_ kind: Media.Kind, _ name: String, relayKey: Ed25519PrivateKey? = nil,
                      probe: [Int] = [], tamper: (String, [String]) throws -> Void) throws -> Played {
        let key = try Ed25519PrivateKey.generate()
        let (plain, sealed) = try Sealed.make(kind, into: "tamper-" + name, key: key)
        let expected = try Player.framemd5(plain + "/index.m3u8")
        let objects = try Sealed.objects(sealed)
        try tamper(sealed, objects)
        let origin = try FolderOrigin(root: sealed)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(relayKey ?? key),
                                       observer: observer)
        defer { session.close() }
        let decoded = try Player.framemd5(session.playerURL)
        var direct: [String: Fetched] = [:]
        if !probe.isEmpty {
            let playlist = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self)
            for i in probe {
                guard let local = playlist.split(separator: "\n").first(where: { $0.hasSuffix("/" + objects[i]) }) else {
                    throw TestFailure("\(objects[i]) not in the relayed playlist")
                }
                direct[objects[i]] = try Curl.request(String(local))
            }
        }
        // Nothing released ever differs from the hash its name states.
        for e in observer.events where !e.isWithheld && e.kind == .object {
            XCTAssertEqual(e.sha256, ContentAddress.expectedHash(forURI: e.originURL).map(Hex.encode), e.originURL)
        }
        return Played(decoded: decoded, expected: expected, observer: observer, direct: direct)
    }

    /// The decoded pictures (stream 0, the video) as "size hash": timestamps shift when a
    /// segment is missing, the pictures of the segments that arrived do not (a keyframe starts
    /// every segment). Audio is left out: AAC frames overlap, so the first one after a gap
    /// decodes differently without any tampered byte.
    private func pictures(_ d: Player.Decoded) -> [String] {
        d.frames.compactMap { line in
            let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return f.count == 6 && f[0] == "0" ? f[4] + " " + f[5] : nil
        }
    }

    /// The player decoded only pictures of the untampered stream, and fewer of them.
    private func assertOnlyGenuineFrames(_ p: Played, _ file: StaticString = #filePath, _ line: UInt = #line) {
        let decoded = pictures(p.decoded), genuine = pictures(p.expected)
        XCTAssertEqual(genuine.count, 30, p.expected.log, file: file, line: line)
        XCTAssertLessThan(decoded.count, genuine.count, p.decoded.log, file: file, line: line)
        let set = Set(genuine)
        for f in decoded { XCTAssertTrue(set.contains(f), "picture not in the sealed stream: \(f)", file: file, line: line) }
        XCTAssertTrue(p.decoded.log.contains("502"), p.decoded.log, file: file, line: line)
    }

    private func assertWithheld(_ p: Played, _ object: String, _ reason: String, bytes: [UInt8]? = nil,
                                _ file: StaticString = #filePath, _ line: UInt = #line) {
        let events = p.observer.withheld.filter { $0.originURL.hasSuffix("/" + object) }
        XCTAssertEqual(events.count, 1, "\(object): \(p.observer.events)", file: file, line: line)
        XCTAssertEqual(events.first.map(reasonOf), reason, file: file, line: line)
        if let bytes = bytes {
            XCTAssertEqual(events.first?.sha256, Hex.encode(SHA256Hasher.digest(bytes)), file: file, line: line)
        }
        if let f = p.direct[object] {
            XCTAssertEqual(f.status, 502, file: file, line: line)
            XCTAssertEqual(f.header("x-relay-withheld"), reason, file: file, line: line)
            XCTAssertTrue(f.body.starts(with: Array("withheld".utf8)), file: file, line: line)
        }
    }

    func testFlippedByteInASegmentIsWithheld() throws {
        var tampered: [UInt8] = []
        let p = try play(.ts, "flip", probe: [1]) { dir, objects in
            var b = readBytes(dir + "/" + objects[1])
            b[b.count / 2] ^= 0x01
            tampered = b
            try Data(b).write(to: URL(fileURLWithPath: dir + "/" + objects[1]))
        }
        assertWithheld(p, try Sealed.objects(Media.root + "/tamper-flip-sealed")[1], "hash_mismatch", bytes: tampered)
        assertOnlyGenuineFrames(p)
        XCTAssertEqual(p.observer.withheld.count, 1)
    }

    func testTruncatedSegmentIsWithheld() throws {
        let p = try play(.fmp4, "truncate", probe: [2]) { dir, objects in
            // objects[0] is the init section; [2] the second media segment.
            let b = readBytes(dir + "/" + objects[2])
            try Data(b[0..<(b.count - 100)]).write(to: URL(fileURLWithPath: dir + "/" + objects[2]))
        }
        assertWithheld(p, try Sealed.objects(Media.root + "/tamper-truncate-sealed")[2], "hash_mismatch")
        assertOnlyGenuineFrames(p)
    }

    func testSwappedSegmentsAreWithheld() throws {
        let p = try play(.ts, "swap", probe: [0, 2]) { dir, objects in
            let a = readBytes(dir + "/" + objects[0]), c = readBytes(dir + "/" + objects[2])
            try Data(c).write(to: URL(fileURLWithPath: dir + "/" + objects[0]))
            try Data(a).write(to: URL(fileURLWithPath: dir + "/" + objects[2]))
        }
        let objects = try Sealed.objects(Media.root + "/tamper-swap-sealed")
        assertWithheld(p, objects[0], "hash_mismatch")
        assertWithheld(p, objects[2], "hash_mismatch")
        assertOnlyGenuineFrames(p)
        XCTAssertGreaterThan(p.decoded.frames.count, 0, p.decoded.log)
    }

    func testFlippedByteInAByteRangeFileWithholdsEveryRange() throws {
        let p = try play(.byterange, "byterange", probe: [0]) { dir, objects in
            var b = readBytes(dir + "/" + objects[0])
            b[b.count - 10] ^= 0x80
            try Data(b).write(to: URL(fileURLWithPath: dir + "/" + objects[0]))
        }
        assertWithheld(p, try Sealed.objects(Media.root + "/tamper-byterange-sealed")[0], "hash_mismatch")
        XCTAssertEqual(p.decoded.frames, [], p.decoded.log)
        XCTAssertTrue(p.decoded.log.contains("502"), p.decoded.log)
    }

    func testEditedPlaylistIsWithheld() throws {
        let p = try play(.ts, "edit") { dir, _ in
            let text = String(decoding: readBytes(dir + "/index.m3u8"), as: UTF8.self)
            guard let r = text.range(of: "#EXTINF:1.000000,") else { throw TestFailure("no EXTINF in \(text)") }
            try Data(text.replacingCharacters(in: r, with: "#EXTINF:0.900000,").utf8).write(to: URL(fileURLWithPath: dir + "/index.m3u8"))
        }
        XCTAssertEqual(p.decoded.frames, [], p.decoded.log)
        XCTAssertEqual(p.observer.events.map(reasonOf), ["receipt_bad_signature"])
        XCTAssertEqual(p.observer.events.map(\.kind), [.playlist])
    }

    func testReceiptByAnotherKeyIsWithheld() throws {
        let p = try play(.fmp4, "otherkey", relayKey: try Ed25519PrivateKey.generate()) { _, _ in }
        XCTAssertEqual(p.decoded.frames, [], p.decoded.log)
        XCTAssertEqual(p.observer.events.map(reasonOf), ["receipt_wrong_key"])
    }

    func testUnsealedStreamIsWithheldWhenSignaturesAreRequired() throws {
        let dir = try Media.make(.ts, into: "tamper-unsealed")
        let origin = try FolderOrigin(root: dir)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"),
                                       options: Sealed.options(try Ed25519PrivateKey.generate()), observer: observer)
        defer { session.close() }
        XCTAssertEqual(try Player.framemd5(session.playerURL).frames, [])
        XCTAssertEqual(observer.events.map(reasonOf), ["receipt_missing"])
        // Content-addressed only: the playlist passes, but names without a hash do not.
        var options = RelayOptions()
        options.contentAddressed = true
        let observer2 = RecordingObserver()
        let session2 = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer2)
        defer { session2.close() }
        XCTAssertEqual(try Player.framemd5(session2.playerURL).frames, [])
        XCTAssertEqual(observer2.withheld.map(reasonOf), ["not_content_addressed", "not_content_addressed", "not_content_addressed"])
    }

    // MARK: live revision chain (playlists crafted revision by revision)

    /// A live media playlist window: segments `first..<first+count`, content-addressed names
    /// made from the sequence number (the chain check looks at the playlist, not the objects).
    private func window(first: Int, count: Int, endList: Bool = false, renamed: Int? = nil) -> [UInt8] {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for s in first..<(first + count) {
            let tag = s == renamed ? "x\(s)" : "\(s)"
            text += "#EXTINF:1.000000,\n\(Hex.encode(SHA256Hasher.digest(Array(tag.utf8)))).ts\n"
        }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return Array(text.utf8)
    }

    func testLiveRevisionsThatBreakTheChainAreWithheld() throws {
        let tmp = try TempDir("relaytest-live")
        let dir = tmp.path
        let key = try Ed25519PrivateKey.generate()
        let signer = ReceiptSigner(key: key)
        let origin = try FolderOrigin(root: dir)
        func publish(_ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: dir + "/live.m3u8")) }

        let r1 = try signer.seal(playlist: window(first: 0, count: 3), name: "live.m3u8", revision: 1, previous: nil)
        let r2 = try signer.seal(playlist: window(first: 1, count: 3), name: "live.m3u8", revision: 2, previous: r1.receipt)
        let r3 = try signer.seal(playlist: window(first: 2, count: 3), name: "live.m3u8", revision: 3, previous: r2.receipt)
        // Revision 2 again, but another playlist: a fork.
        let fork2 = try signer.seal(playlist: window(first: 1, count: 4), name: "live.m3u8", revision: 2, previous: r1.receipt)
        // Signed and chained, but segment 3 was replaced: not a change RFC 8216 §6.2.1 allows.
        let edit4 = try signer.seal(playlist: window(first: 2, count: 3, renamed: 3), name: "live.m3u8", revision: 4, previous: r3.receipt)
        let other = try Ed25519PrivateKey.generate()
        let foreign4 = try ReceiptSigner(key: other).seal(playlist: window(first: 3, count: 3), name: "live.m3u8", revision: 4, previous: r3.receipt)
        let r4 = try signer.seal(playlist: window(first: 3, count: 3, endList: true), name: "live.m3u8", revision: 4, previous: r3.receipt)

        var options = RelayOptions()
        options.requireSigned = true
        options.contentAddressed = true
        options.publisherKey = key.publicKey.bytes
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("live.m3u8"), options: options, observer: observer)
        defer { session.close() }

        func fetch(_ bytes: [UInt8]) throws -> Fetched {
            try publish(bytes)
            return try Curl.request(session.playerURL)
        }
        XCTAssertEqual(try fetch(r1.bytes).status, 200)
        XCTAssertEqual(try fetch(r1.bytes).status, 200)              // the same revision again
        XCTAssertEqual(try fetch(r2.bytes).status, 200)
        let replay = try fetch(r1.bytes)
        XCTAssertEqual(replay.status, 502)
        XCTAssertEqual(replay.header("x-relay-withheld"), "revision_replayed")
        let forked = try fetch(fork2.bytes)
        XCTAssertEqual(forked.status, 502)
        XCTAssertEqual(forked.header("x-relay-withheld"), "revision_forked")
        XCTAssertEqual(try fetch(r3.bytes).status, 200)
        let edited = try fetch(edit4.bytes)
        XCTAssertEqual(edited.status, 502)
        XCTAssertEqual(edited.header("x-relay-withheld"), "revision_illegal")
        let foreign = try fetch(foreign4.bytes)
        XCTAssertEqual(foreign.status, 502)
        XCTAssertEqual(foreign.header("x-relay-withheld"), "receipt_wrong_key")
        let last = try fetch(r4.bytes)
        XCTAssertEqual(last.status, 200)
        XCTAssertTrue(String(decoding: last.body, as: UTF8.self).hasSuffix(r4.receipt.line + "\n"))
        // A withheld revision's bytes never reach the player: only the 502 text.
        XCTAssertFalse(String(decoding: forked.body, as: UTF8.self).contains("#EXTM3U"))
        XCTAssertEqual(observer.withheld.map { reasonOf($0) },
                       ["revision_replayed", "revision_forked", "revision_illegal", "receipt_wrong_key"])
        XCTAssertTrue(observer.events.filter { !$0.isWithheld }.allSatisfy { $0.outcome == .verified })
    }
}

func reasonOf(_ e: ObjectEvent) -> String {
    if case .withheld(let r, _) = e.outcome { return r }
    return ""
}
