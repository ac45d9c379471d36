// Real players through the relay: ffmpeg's frame hashes through it equal those from the
// origin directly, and GStreamer's playbin3 plays to the end of stream.

import XCTest
import TestSupport
import Foundation
@testable import Relay

enum Player {
    struct Decoded {
        /// framemd5 lines (one per decoded frame), the '#' header lines removed.
        let frames: [String]
        /// The whole framemd5 output, headers included.
        let output: String
        let log: String
    }

    /// ffmpeg as the player. Its exit status says nothing (it exits 0 when segments fail), so
    /// callers look at the frames and the log.
    static func framemd5(_ url: String) throws -> Decoded {
        let r = try Subprocess("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", url, "-map", "0", "-f", "framemd5", "-"],
                               deadline: 120).run()
        let frames = r.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map(String.init)
        return Decoded(frames: frames, output: r.stdoutText, log: r.stderrText)
    }

    /// GStreamer 1.22's hlsdemux2 (Debian 12) fails a VOD stream that is downloaded whole
    /// before its output pads are exposed: at the end of the playlist it logs this line and
    /// reports "Couldn't download fragments" although every download succeeded (HTTP 200).
    /// Short test streams on a loaded machine hit it; later GStreamer releases reworked that
    /// path. Only a failure carrying this exact line is played again; any other failure,
    /// including a real download error, is the test's.
    static let hlsdemux2EarlyEOS = "Can't push EOS on non-exposed pad"

    static func gstreamer(_ url: String) throws -> (status: Int32, stdout: String, stderr: String) {
        var last: (status: Int32, stdout: String, stderr: String) = (0, "", "")
        for _ in 0..<3 {
            // ERROR-level debug output of adaptivedemux2 only, so the known race can be told
            // from a real failure; a clean run prints none of it.
            let r = try Subprocess("/usr/bin/gst-launch-1.0", ["playbin3", "uri=" + url, "video-sink=fakesink", "audio-sink=fakesink"],
                                   environment: ["GST_DEBUG": "adaptivedemux2:1", "GST_DEBUG_NO_COLOR": "1"],
                                   deadline: 120).run()
            last = (r.status, r.stdoutText, r.stderrText)
            guard r.status != 0, r.stderrText.contains(hlsdemux2EarlyEOS) else { break }
            FileHandle.standardError.write(Data("note: hlsdemux2 ended \(url) before exposing its pads (GStreamer 1.22); playing again\n".utf8))
        }
        return last
    }
}

final class RelayPlayerTests: XCTestCase {
    /// Frames of the local files, read without HTTP: what every player must end up with.
    private func reference(_ dir: String) throws -> Player.Decoded {
        let d = try Player.framemd5(dir + "/index.m3u8")
        // 3 s at 10 fps is 30 video frames, plus the AAC frames.
        XCTAssertGreaterThan(d.frames.count, 30, d.log)
        return d
    }

    private func checkFFmpeg(_ kind: Media.Kind) throws {
        let dir = try Media.make(kind, into: "player-ffmpeg-\(kind)")
        let expected = try reference(dir)
        let origin = try FolderOrigin(root: dir)
        let direct = try Player.framemd5(origin.url("index.m3u8"))
        XCTAssertEqual(direct.output, expected.output, "origin directly, \(kind): \(direct.log)")

        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { session.close() }
        let relayed = try Player.framemd5(session.playerURL)
        XCTAssertEqual(relayed.frames.count, expected.frames.count, relayed.log)
        XCTAssertEqual(relayed.output, expected.output, "through the relay, \(kind): \(relayed.log)")
        XCTAssertEqual(observer.withheld, [])
        XCTAssertTrue(observer.events.allSatisfy { $0.outcome == .relayed })
    }

    func testFFmpegTSFramesThroughTheRelayEqualTheOrigin() throws { try checkFFmpeg(.ts) }
    func testFFmpegFMP4FramesThroughTheRelayEqualTheOrigin() throws { try checkFFmpeg(.fmp4) }

    func testFFmpegByteRangeFramesThroughTheRelayEqualTheOrigin() throws {
        try checkFFmpeg(.byterange)
    }

    func testByteRangeFileIsFetchedOnceAndServedInRanges() throws {
        let dir = try Media.make(.byterange, into: "player-byterange-once")
        let origin = try FolderOrigin(root: dir)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { session.close() }
        let d = try Player.framemd5(session.playerURL)
        XCTAssertGreaterThan(d.frames.count, 30, d.log)
        XCTAssertEqual(origin.requestCount("index.ts"), 1)
        XCTAssertEqual(observer.events.filter { $0.kind == .object }.count, 1)
        XCTAssertEqual(observer.events.first { $0.kind == .object }?.sha256,
                       Hex.encode(SHA256Hasher.digest(readBytes(dir + "/index.ts"))))
    }

    private func checkGStreamer(_ kind: Media.Kind) throws {
        let dir = try Media.make(kind, into: "player-gst-\(kind)")
        let origin = try FolderOrigin(root: dir)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { session.close() }
        let r = try Player.gstreamer(session.playerURL)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("Got EOS"), r.stdout + r.stderr)
        XCTAssertFalse((r.stdout + r.stderr).contains("ERROR"), r.stdout + r.stderr)
        // It played: every segment went through the relay.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasSuffix(".m3u8") }
        let served = Set(observer.events.filter { $0.kind == .object }.map { String($0.originURL.split(separator: "/").last ?? "") })
        XCTAssertEqual(served, Set(files))
        XCTAssertEqual(observer.withheld, [])
    }

    func testGStreamerPlaysTSThroughTheRelayToEOS() throws { try checkGStreamer(.ts) }
    func testGStreamerPlaysFMP4ThroughTheRelayToEOS() throws { try checkGStreamer(.fmp4) }
}

/// Streams sealed with the sealer (docs/sealing.md) into a folder of their own.
enum Sealed {
    static func make(_ kind: Media.Kind, into name: String, key: Ed25519PrivateKey) throws -> (plain: String, sealed: String) {
        let plain = try Media.make(kind, into: name)
        let sealed = plain + "-sealed"
        try? FileManager.default.removeItem(atPath: sealed)
        _ = try Sealer(source: plain, output: sealed, key: key).sealOnce()
        return (plain, sealed)
    }

    /// The object URIs of a sealed media playlist, in order (each once).
    static func objects(_ dir: String) throws -> [String] {
        let p = try Playlist.parse(readBytes(dir + "/index.m3u8"))
        var seen: [String] = []
        for r in p.references where !seen.contains(r.uri) { seen.append(r.uri) }
        return seen
    }

    static func options(_ key: Ed25519PrivateKey) -> RelayOptions {
        var o = RelayOptions()
        o.requireSigned = true
        o.contentAddressed = true
        o.publisherKey = key.publicKey.bytes
        return o
    }
}

final class RelaySealedPlayerTests: XCTestCase {
    private func checkSealed(_ kind: Media.Kind) throws {
        let key = try Ed25519PrivateKey.generate()
        let (plain, sealed) = try Sealed.make(kind, into: "sealed-\(kind)", key: key)
        let expected = try Player.framemd5(plain + "/index.m3u8")
        XCTAssertGreaterThan(expected.frames.count, 30, expected.log)
        XCTAssertTrue(try Sealed.objects(sealed).allSatisfy { ContentAddress.expectedHash(forURI: $0) != nil })
        let origin = try FolderOrigin(root: sealed)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let relayed = try Player.framemd5(session.playerURL)
        XCTAssertEqual(relayed.output, expected.output, "sealed \(kind) through the relay: \(relayed.log)")
        XCTAssertEqual(observer.withheld, [])
        XCTAssertFalse(observer.events.isEmpty)
        XCTAssertTrue(observer.events.allSatisfy { $0.outcome == .verified })
        XCTAssertEqual(Set(observer.events.filter { $0.kind == .object }.map { String($0.originURL.split(separator: "/").last ?? "") }),
                       Set(try Sealed.objects(sealed)))
    }

    func testSealedTSPlaysWithRequireSignedAndContentAddressed() throws { try checkSealed(.ts) }
    func testSealedFMP4PlaysWithRequireSignedAndContentAddressed() throws { try checkSealed(.fmp4) }
    func testSealedByteRangePlaysWithRequireSignedAndContentAddressed() throws { try checkSealed(.byterange) }

    func testGStreamerPlaysASealedStreamThroughTheVerifyingRelay() throws {
        let key = try Ed25519PrivateKey.generate()
        let (_, sealed) = try Sealed.make(.fmp4, into: "sealed-gst", key: key)
        let origin = try FolderOrigin(root: sealed)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let r = try Player.gstreamer(session.playerURL)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("Got EOS"), r.stdout + r.stderr)
        XCTAssertEqual(observer.withheld, [])
        XCTAssertEqual(Set(observer.events.filter { $0.kind == .object }.map { String($0.originURL.split(separator: "/").last ?? "") }),
                       Set(try Sealed.objects(sealed)))
    }
}

final class RelayLivePlayerTests: XCTestCase {
    /// The pictures (stream 0) of framemd5 output as "size hash", timestamps left out.
    static func pictures(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return f.count == 6 && f[0] == "0" ? f[4] + " " + f[5] : nil
        }
    }

    /// ffmpeg writes a live sliding window in real time (-re, 3 segments listed), the sealer
    /// seals each revision as it appears, and ffmpeg plays it live through a relay that
    /// requires every revision signed and chained and every segment content-addressed.
    func testLiveSlidingWindowPlaysThroughTheVerifyingRelay() throws {
        let key = try Ed25519PrivateKey.generate()
        let plain = Media.root + "/live", sealed = Media.root + "/live-sealed"
        for d in [plain, sealed] {
            try? FileManager.default.removeItem(atPath: d)
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        }
        // Released at the end of the test: still running then, its process group is killed.
        let producer = try Subprocess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-re",
                                      "-f", "lavfi", "-i", "testsrc2=size=128x72:rate=10:duration=6",
                                      "-c:v", "libx264", "-preset", "ultrafast", "-g", "10",
                                      "-f", "hls", "-hls_time", "1", "-hls_list_size", "3", "-hls_flags", "temp_file",
                                      "-hls_segment_filename", plain + "/seg%d.ts", plain + "/index.m3u8"],
                                      deadline: 120).start()

        let sealer = Sealer(source: plain, output: sealed, key: key)
        let done = Signal()
        let stop = Locked(false)
        let sealing = Thread {
            _ = sealer.watch(interval: 0.1, log: { _ in }, shouldStop: { stop.value })
            done.fire()
        }
        sealing.start()
        defer {
            stop.set(true)
            done.wait()
        }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: sealed + "/index.m3u8") {
            guard Date() < deadline else { throw TestFailure("the sealer published nothing") }
            usleep(50_000)
        }

        let origin = try FolderOrigin(root: sealed)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: Sealed.options(key), observer: observer)
        defer { session.close() }
        let played = try Player.framemd5(session.playerURL)
        _ = try producer.wait()
        done.wait()

        XCTAssertEqual(observer.withheld, [], played.log)
        let revisions = Set(observer.events.filter { $0.kind == .playlist }.compactMap(\.sha256))
        XCTAssertGreaterThan(revisions.count, 2, "the player saw one revision only")
        XCTAssertTrue(observer.events.allSatisfy { $0.outcome == .verified })
        let finalText = String(decoding: readBytes(sealed + "/index.m3u8"), as: UTF8.self)
        XCTAssertTrue(finalText.contains("#EXT-X-ENDLIST"))

        // Every picture the player decoded is one of the stream's (all segments, decoded whole).
        let segments = try FileManager.default.contentsOfDirectory(atPath: plain).filter { $0.hasSuffix(".ts") }
            .sorted { Int($0.dropFirst(3).dropLast(3)) ?? 0 < Int($1.dropFirst(3).dropLast(3)) ?? 0 }
        XCTAssertEqual(segments.count, 6)
        let whole = try Player.framemd5("concat:" + segments.map { plain + "/" + $0 }.joined(separator: "|"))
        let genuine = Set(Self.pictures(whole.output))
        XCTAssertEqual(genuine.count, 60, whole.log)    // 6 s at 10 fps, every picture distinct
        let seen = Self.pictures(played.output)
        XCTAssertGreaterThanOrEqual(seen.count, 20, played.log)
        for p in seen { XCTAssertTrue(genuine.contains(p), "picture not in the stream: \(p)") }
    }
}
