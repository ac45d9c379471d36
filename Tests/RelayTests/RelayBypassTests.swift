// Issue 14, player bypass and encrypted streams: an attribute list a player reads otherwise
// than the relay must never be relayed, and AES-128 keys are covered like segments, so sealed
// encrypted streams play under --require-signed and a swapped key is withheld.

import XCTest
import TestSupport
import Foundation
@testable import Relay

/// An AES-128 HLS stream written by ffmpeg with -hls_key_info_file: key `k.key` beside the
/// playlist, named `k.key` in it.
enum Encrypted {
    static func make(into name: String) throws -> String {
        let dir = Media.root + "/" + name
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var key = [UInt8](repeating: 0, count: 16)
        var g = SystemRandomNumberGenerator()
        for i in key.indices { key[i] = UInt8.random(in: 0...255, using: &g) }
        try Data(key).write(to: URL(fileURLWithPath: dir + "/k.key"))
        let info = Media.root + "/" + name + ".keyinfo"
        try "k.key\n\(dir)/k.key\n".write(toFile: info, atomically: true, encoding: .utf8)
        let r = try Subprocess("/usr/bin/ffmpeg", Media.source + ["-hls_key_info_file", info,
                                                                 "-hls_segment_filename", dir + "/seg%d.ts", dir + "/index.m3u8"],
                               deadline: 120).run()
        guard r.status == 0 else { throw TestFailure("ffmpeg could not make the encrypted stream: \(r.stderrText)") }
        return dir
    }
}

/// Signs `covered` as revision 1 of `name` without parsing it: what a sealer that did not
/// check attribute lists would have published.
func signUnchecked(_ covered: [UInt8], name: String, key: Ed25519PrivateKey) throws -> [UInt8] {
    let t = ReceiptFreshness().now
    let m = PlaylistReceipt.signedMessage(name: name, revision: 1, time: t, publisherKey: key.publicKey, previous: nil,
                                          playlistSHA256: SHA256Hasher.digest(covered))
    let r = PlaylistReceipt(name: name, revision: 1, time: t, publisherKey: key.publicKey, previous: nil, signature: try key.sign(m))
    return covered + Array(r.line.utf8) + [0x0A]
}

/// The sealed playlist's text without its receipt line.
func coveredText(_ path: String) -> String {
    var lines = String(decoding: readBytes(path), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    while lines.last == "" { lines.removeLast() }
    lines.removeLast()
    return lines.joined(separator: "\n") + "\n"
}

final class RelayBypassTests: XCTestCase {
    /// Replaces the line starting with `tag` in the sealed playlist by `edit(line)` and signs
    /// the result unchecked. Returns the edited covered text.
    private func smuggle(_ sealed: String, tag: String, key: Ed25519PrivateKey, _ edit: (String) -> String) throws -> String {
        let text = coveredText(sealed + "/index.m3u8")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let i = lines.firstIndex(where: { $0.hasPrefix(tag) }) else { throw TestFailure("no \(tag) in \(text)") }
        lines[i] = edit(lines[i])
        let edited = lines.joined(separator: "\n")
        try Data(try signUnchecked(Array(edited.utf8), name: "index.m3u8", key: key)).write(to: URL(fileURLWithPath: sealed + "/index.m3u8"))
        return edited
    }

    /// ffmpeg, given the smuggled playlist directly, fetches the second URI (the bypass is
    /// real); through the verifying relay it decodes nothing and the evil origin is never asked.
    private func checkBypass(sealed: String, key: Ed25519PrivateKey, evil: FolderOrigin, evilPath: String, tag: String) throws {
        let origin = try FolderOrigin(root: sealed)
        _ = try Player.framemd5(origin.url("index.m3u8"))
        XCTAssertGreaterThan(evil.requestCount(evilPath), 0, "ffmpeg did not read the second URI: the test proves nothing")
        let before = evil.requests.count

        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let played = try Player.framemd5(session.playerURL)
        XCTAssertEqual(played.frames, [], played.log)
        XCTAssertEqual(evil.requests.count, before, "the evil origin was asked through the relay")
        XCTAssertEqual(observer.events.map(\.kind), [.playlist])
        XCTAssertEqual(observer.withheld.map(reasonOf), ["playlist_invalid"])
        if case .withheld(_, let detail) = observer.withheld.first?.outcome {
            XCTAssertTrue(detail.contains("\(tag): unquoted value of attribute X contains whitespace"), detail)
        }
        let f = try Curl.request(session.playerURL)
        XCTAssertEqual(f.status, 502)
        XCTAssertEqual(f.header("x-relay-withheld"), "playlist_invalid")
        XCTAssertTrue(f.header("x-relay-reason")?.contains("attribute X") ?? false, "\(f.headers)")
    }

    func testAmbiguousMapIsWithheldAndFFmpegDecodesNoUnverifiedFrame() throws {
        let key = try Ed25519PrivateKey.generate()
        let (plain, sealed) = try Sealed.make(.fmp4, into: "bypass-map", key: key)
        let evilRoot = Media.root + "/bypass-map-evil"
        try? FileManager.default.removeItem(atPath: evilRoot)
        try FileManager.default.createDirectory(atPath: evilRoot + "/evil", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: plain + "/init.mp4", toPath: evilRoot + "/evil/init.mp4")
        let evil = try FolderOrigin(root: evilRoot)
        _ = try smuggle(sealed, tag: "#EXT-X-MAP:", key: key) { $0 + ",X=1 URI=\"\(evil.url("evil/init.mp4"))\"" }
        try checkBypass(sealed: sealed, key: key, evil: evil, evilPath: "evil/init.mp4", tag: "EXT-X-MAP")
    }

    func testAmbiguousKeyIsWithheldAndFFmpegDecodesNoUnverifiedFrame() throws {
        let key = try Ed25519PrivateKey.generate()
        let plain = try Encrypted.make(into: "bypass-key")
        let sealed = plain + "-sealed"
        _ = try Sealer(source: plain, output: sealed, key: key).sealOnce()
        let evilRoot = Media.root + "/bypass-key-evil"
        try? FileManager.default.removeItem(atPath: evilRoot)
        try FileManager.default.createDirectory(atPath: evilRoot + "/evil", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: plain + "/k.key", toPath: evilRoot + "/evil/k.key")
        let evil = try FolderOrigin(root: evilRoot)
        _ = try smuggle(sealed, tag: "#EXT-X-KEY:", key: key) { $0 + ",X=1 URI=\"\(evil.url("evil/k.key"))\"" }
        try checkBypass(sealed: sealed, key: key, evil: evil, evilPath: "evil/k.key", tag: "EXT-X-KEY")
    }

    func testSealerRefusesAmbiguousAttributeLists() throws {
        let plain = try Media.make(.fmp4, into: "bypass-seal")
        let text = String(decoding: readBytes(plain + "/index.m3u8"), as: UTF8.self)
        let edited = text.replacingOccurrences(of: "#EXT-X-MAP:URI=\"init.mp4\"",
                                               with: "#EXT-X-MAP:URI=\"init.mp4\",X=1 URI=\"http://127.0.0.1:9/evil/init.mp4\"")
        XCTAssertNotEqual(edited, text)
        try Data(edited.utf8).write(to: URL(fileURLWithPath: plain + "/index.m3u8"))
        let line = edited.split(separator: "\n").firstIndex { $0.hasPrefix("#EXT-X-MAP") }.map { $0 + 1 } ?? 0
        XCTAssertThrowsError(try Sealer(source: plain, output: plain + "-sealed", key: try Ed25519PrivateKey.generate()).sealOnce()) { e in
            guard case .invalidPlaylist(_, let pe)? = e as? SealError else { return XCTFail("\(e)") }
            XCTAssertEqual(pe.line, line)
            XCTAssertTrue(pe.reason.contains("unquoted value of attribute X contains whitespace"), pe.reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain + "-sealed/index.m3u8"))
    }

    /// `waihost seal` says which line and attribute, exits 1 and publishes nothing.
    func testSealCommandRefusesAmbiguousAttributeLists() throws {
        let plain = try Media.make(.fmp4, into: "bypass-seal-cli")
        let text = String(decoding: readBytes(plain + "/index.m3u8"), as: UTF8.self)
        try Data(text.replacingOccurrences(of: "#EXT-X-MAP:URI=\"init.mp4\"", with: "#EXT-X-MAP:URI=\"init.mp4\",X=1 URI=\"evil.mp4\"").utf8)
            .write(to: URL(fileURLWithPath: plain + "/index.m3u8"))
        let exe = TestPaths.waihost
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw TestFailure("no waihost at \(exe)") }
        let dir = try TempDir()
        XCTAssertEqual(try Subprocess(exe, ["keygen", "-o", dir.path + "/k.key"], deadline: 120).run().status, 0)
        let r = try Subprocess(exe, ["seal", plain, "--key", dir.path + "/k.key", "--out", dir.path + "/out"], deadline: 120).run()
        XCTAssertEqual(r.status, 1, r.stderrText)
        XCTAssertTrue(r.stderrText.contains("index.m3u8") && r.stderrText.contains("EXT-X-MAP: unquoted value of attribute X contains whitespace"), r.stderrText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/out/index.m3u8"))
    }

    // MARK: AES-128

    func testEncryptedSealedStreamPlaysUnderRequireSigned() throws {
        let key = try Ed25519PrivateKey.generate()
        let plain = try Encrypted.make(into: "aes-play")
        // Over HTTP: ffmpeg does not read AES-128 HLS from local files (crypto: over file:).
        let plainOrigin = try FolderOrigin(root: plain)
        let expected = try Player.framemd5(plainOrigin.url("index.m3u8"))
        XCTAssertGreaterThan(expected.frames.count, 30, expected.log)
        let sealed = plain + "-sealed"
        _ = try Sealer(source: plain, output: sealed, key: key).sealOnce()
        let keyHash = Hex.encode(SHA256Hasher.digest(readBytes(plain + "/k.key")))
        XCTAssertTrue(coveredText(sealed + "/index.m3u8").contains("#EXT-X-KEY:METHOD=AES-128,URI=\"\(keyHash).key\""))
        XCTAssertEqual(readBytes(sealed + "/\(keyHash).key"), readBytes(plain + "/k.key"))

        let origin = try FolderOrigin(root: sealed)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let relayed = try Player.framemd5(session.playerURL)
        XCTAssertEqual(relayed.output, expected.output, relayed.log)
        XCTAssertEqual(observer.withheld, [])
        XCTAssertTrue(observer.events.allSatisfy { $0.outcome == .verified })
        XCTAssertTrue(observer.events.contains { $0.originURL.hasSuffix("/\(keyHash).key") })
    }

    func testSwappedKeyIsWithheld() throws {
        let key = try Ed25519PrivateKey.generate()
        let plain = try Encrypted.make(into: "aes-swap")
        let sealed = plain + "-sealed"
        _ = try Sealer(source: plain, output: sealed, key: key).sealOnce()
        // Untouched, the sealed stream plays through the relay: what follows is the swap.
        let origin = try FolderOrigin(root: sealed)
        let genuine = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key))
        XCTAssertGreaterThan(try Player.framemd5(genuine.playerURL).frames.count, 30)
        genuine.close()
        let keyHash = Hex.encode(SHA256Hasher.digest(readBytes(plain + "/k.key")))
        var other = readBytes(plain + "/k.key")
        other[0] ^= 0xff
        try Data(other).write(to: URL(fileURLWithPath: sealed + "/\(keyHash).key"))
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let played = try Player.framemd5(session.playerURL)
        XCTAssertEqual(played.frames, [], played.log)
        let keyEvents = observer.events.filter { $0.originURL.hasSuffix("/\(keyHash).key") }
        XCTAssertEqual(keyEvents.map(reasonOf), ["hash_mismatch"])
        XCTAssertEqual(keyEvents.first?.sha256, Hex.encode(SHA256Hasher.digest(other)))
        // No segment decrypted with the swapped key reached a decoder: none was even released
        // before the key, and the key never was.
        XCTAssertFalse(observer.events.contains { $0.kind == .object && !$0.isWithheld && $0.originURL.hasSuffix(".key") })
    }
}
