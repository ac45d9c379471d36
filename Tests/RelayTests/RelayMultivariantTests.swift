// A multivariant stream (two renditions) through the relay: the multivariant playlist and
// both media playlists are rewritten to relay-local URLs, and ffmpeg, mapping every
// rendition, decodes the same frames as from the local files — plain, and sealed with the
// verifying flags on.

import XCTest
import TestSupport
import Foundation
@testable import Relay

final class RelayMultivariantTests: XCTestCase {
    private func expectedFrames(_ dir: String) throws -> Player.Decoded {
        let d = try Player.framemd5(dir + "/master.m3u8")
        // 3 s at 10 fps in each of two renditions.
        XCTAssertGreaterThanOrEqual(d.frames.count, 60, d.log)
        return d
    }

    func testMultivariantPlaysThroughTheRelay() throws {
        let tmp = try TempDir()
        try FFmpegStream.make(.multivariant, in: tmp.path)
        let expected = try expectedFrames(tmp.path)
        let origin = try FolderOrigin(root: tmp.path)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("master.m3u8"), observer: observer)
        defer { session.close() }
        let relayed = try Player.framemd5(session.playerURL)
        XCTAssertEqual(relayed.output, expected.output, relayed.log)
        XCTAssertEqual(observer.withheld, [])
        // The multivariant playlist, two media playlists, and every segment of both.
        let playlists = observer.events.filter { $0.kind == .playlist }.map { String($0.originURL.split(separator: "/").last ?? "") }
        XCTAssertEqual(Set(playlists), ["master.m3u8", "stream_0.m3u8", "stream_1.m3u8"])
    }

    func testSealedMultivariantPlaysWithRequireSignedAndContentAddressed() throws {
        let tmp = try TempDir()
        let plain = tmp.path + "/plain", sealed = tmp.path + "/sealed"
        try FFmpegStream.make(.multivariant, in: plain)
        let key = try Ed25519PrivateKey.generate()
        _ = try Sealer(source: plain, output: sealed, key: key).sealOnce()
        let expected = try expectedFrames(plain)

        let origin = try FolderOrigin(root: sealed)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("master.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let relayed = try Player.framemd5(session.playerURL)
        XCTAssertEqual(relayed.output, expected.output, relayed.log)
        XCTAssertEqual(observer.withheld, [])
        XCTAssertTrue(observer.events.allSatisfy { $0.outcome == .verified })
        XCTAssertEqual(observer.events.filter { $0.kind == .playlist }.count, 3)
    }
}
