import Foundation
import TestSupport
import XCTest
@testable import Relay

final class SealerTests: XCTestCase {
    let key = try! Ed25519PrivateKey(seed: Array(repeating: 3, count: 32))

    func top(_ v: FFmpegStream.Variant) -> String { v == .multivariant ? "master.m3u8" : "index.m3u8" }

    /// Every playlist in `dir` verifies under its relative name; every segment and map URI of
    /// every media playlist is a content address whose file hashes to it.
    func assertSealed(_ dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let verifier = ReceiptVerifier(publisherKey: key.publicKey)
        let names = try SealFiles.playlists(under: dir)
        XCTAssertFalse(names.isEmpty, file: file, line: line)
        for name in names {
            let bytes = try SealFiles.read(dir + "/" + name)
            let state = try verifier.verify(playlistBytes: bytes, name: name, previous: nil)
            for ref in state.playlist.references where ref.kind == .segment || ref.kind == .map {
                let stated = try XCTUnwrap(ContentAddress.expectedHash(forURI: ref.uri), "\(name): \(ref.uri)", file: file, line: line)
                let objDir = (name as NSString).deletingLastPathComponent
                let path = dir + "/" + (objDir.isEmpty ? ref.uri : objDir + "/" + ref.uri)
                XCTAssertEqual(try SealFiles.sha256(path), stated, "\(name): \(ref.uri)", file: file, line: line)
            }
        }
    }

    func testSealsEveryFFmpegLayoutAndFFmpegStillPlaysIt() throws {
        let tmp = try TempDir()
        for v in FFmpegStream.Variant.allCases {
            let src = tmp.path + "/\(v.rawValue)-src", out = tmp.path + "/\(v.rawValue)-out"
            try FFmpegStream.make(v, in: src)
            let before = try FFmpegStream.framemd5(src + "/" + top(v), live: v == .live)
            XCTAssertGreaterThan(before.count, 10, "\(v)")
            let report = try Sealer(source: src, output: out, key: key).sealOnce()
            XCTAssertTrue(report.playlists.allSatisfy { $0.published && $0.revision == 1 }, "\(v)")
            XCTAssertGreaterThan(report.objectsPlaced, 0, "\(v)")
            try assertSealed(out)
            XCTAssertEqual(try FFmpegStream.framemd5(out + "/" + top(v), live: v == .live), before, "\(v)")
            // The source folder is untouched when sealing elsewhere.
            XCTAssertEqual(try FFmpegStream.framemd5(src + "/" + top(v), live: v == .live), before, "\(v)")
            // Sealing again changes nothing and keeps revision 1.
            let again = try Sealer(source: src, output: out, key: key).sealOnce()
            XCTAssertTrue(again.playlists.allSatisfy { !$0.published && $0.revision == 1 }, "\(v)")
            XCTAssertEqual(again.objectsPlaced, 0)
            if v == .multivariant {
                let master = try Playlist.parse(SealFiles.read(out + "/master.m3u8"))
                XCTAssertEqual(master.kind, .multivariant)
                XCTAssertEqual(master.references.filter { $0.kind == .variantStream }.map(\.uri), ["stream_0.m3u8", "stream_1.m3u8"])
            }
            if v == .byterange || v == .fmp4Byterange {
                let p = try Playlist.parse(SealFiles.read(out + "/index.m3u8"))
                XCTAssertEqual(Set(p.references.filter { $0.kind == .segment }.map(\.uri)).count, 1)
                XCTAssertTrue(p.references.allSatisfy { $0.byteRange != nil }, "\(v)")
            }
            if v == .live { XCTAssertFalse(report.complete) } else { XCTAssertTrue(report.complete) }
        }
    }

    func testSealsInPlace() throws {
        let tmp = try TempDir()
        let dir = tmp.path + "/s"
        try FFmpegStream.make(.fmp4, in: dir)
        let before = try FFmpegStream.framemd5(dir + "/index.m3u8")
        let report = try Sealer(source: dir, output: nil, key: key).sealOnce()
        XCTAssertEqual(report.playlists.map(\.revision), [1])
        try assertSealed(dir)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertTrue(files.allSatisfy { $0 == "index.m3u8" || ContentAddress.expectedHash(forURI: $0) != nil }, "\(files)")
        XCTAssertEqual(try FFmpegStream.framemd5(dir + "/index.m3u8"), before)
        let again = try Sealer(source: dir, output: nil, key: key).sealOnce()
        XCTAssertEqual(again.playlists.map(\.published), [false])
    }

    /// A live folder rewritten by hand between passes: each change is a new revision chained
    /// to the last; a forbidden change is not published; a restarted sealer keeps the chain.
    func testLiveRevisionsChain() throws {
        let tmp = try TempDir()
        let src = tmp.path + "/src", out = tmp.path + "/out"
        try SealFiles.makeDirectory(src)
        for i in 0..<6 { try Data("segment \(i)".utf8).write(to: URL(fileURLWithPath: src + "/s\(i).ts")) }
        func write(_ p: [UInt8]) throws { try SealFiles.atomicWrite(p, to: src + "/index.m3u8") }
        let verifier = ReceiptVerifier(publisherKey: key.publicKey)
        let sealer = Sealer(source: src, output: out, key: key)

        try write(livePlaylist(first: 0, count: 3))
        XCTAssertEqual(try sealer.sealOnce().playlists.map(\.revision), [1])
        var state = try verifier.verify(playlistBytes: SealFiles.read(out + "/index.m3u8"), name: "index.m3u8", previous: nil)

        try write(livePlaylist(first: 1, count: 3))
        XCTAssertEqual(try sealer.sealOnce().playlists.map(\.revision), [2])
        state = try verifier.verify(playlistBytes: SealFiles.read(out + "/index.m3u8"), name: "index.m3u8", previous: state)
        XCTAssertEqual(state.revision, 2)

        // Unchanged source: nothing published.
        XCTAssertEqual(try sealer.sealOnce().playlists.map(\.published), [false])

        // A reorder is refused and the published revision stays.
        let published = try SealFiles.read(out + "/index.m3u8")
        try write(livePlaylist(first: 1, count: 4, uri: { $0 == 2 ? "s3.ts" : $0 == 3 ? "s2.ts" : "s\($0).ts" }))
        XCTAssertThrowsError(try sealer.sealOnce()) { e in
            guard case .wouldViolateRevisionRules(playlist: "index.m3u8", violation: .segmentChanged(sequence: 2, _, _, _)) = e as? SealError else {
                return XCTFail("\(e)")
            }
        }
        XCTAssertEqual(try SealFiles.read(out + "/index.m3u8"), published)

        // A new sealer (restart) continues at revision 3, chained to 2.
        try write(livePlaylist(first: 2, count: 4, endList: true))
        let report = try Sealer(source: src, output: out, key: key).sealOnce()
        XCTAssertEqual(report.playlists.map(\.revision), [3])
        XCTAssertTrue(report.complete)
        state = try verifier.verify(playlistBytes: SealFiles.read(out + "/index.m3u8"), name: "index.m3u8", previous: state)
        XCTAssertEqual(state.revision, 3)
        try assertSealed(out)
    }

    /// Ad markers, date ranges, unknown tags, comments and CRLF line ends survive sealing
    /// byte for byte; only segment and map URIs change.
    func testSealingKeepsEveryOtherLineExactly() throws {
        let tmp = try TempDir()
        let src = tmp.path + "/src", out = tmp.path + "/out"
        try SealFiles.makeDirectory(src)
        for f in ["init.mp4", "a.m4s", "b.m4s"] { try Data("bytes of \(f)".utf8).write(to: URL(fileURLWithPath: src + "/" + f)) }
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            + "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:00Z\",SCTE35-OUT=0xFC00\n#EXT-X-CUE-OUT:4\n"
            + "#EXTINF:2.0,\na.m4s\n# note\n#EXT-X-VENDOR:k=\"v\"\n#EXT-X-CUE-IN\n#EXTINF:2.0,\nb.m4s\n#EXT-X-ENDLIST"
        try Data(text.utf8).write(to: URL(fileURLWithPath: src + "/index.m3u8"))
        _ = try Sealer(source: src, output: out, key: key).sealOnce()
        try assertSealed(out)
        let sealed = try ReceiptVerifier(publisherKey: key.publicKey)
            .verify(playlistBytes: SealFiles.read(out + "/index.m3u8"), name: "index.m3u8", previous: nil).playlist
        let original = try Playlist.parse(Array(text.utf8))
        XCTAssertEqual(sealed.lines.count, original.lines.count)
        let uriLines: Set<Int> = [3, 7, 12]
        for (a, b) in zip(original.lines, sealed.lines) {
            if uriLines.contains(a.number) { XCTAssertNotEqual(a.text, b.text) } else if a.number < original.lines.count {
                XCTAssertEqual(a, b)
            } else {
                // The last line gains the LF the receipt line needs before it.
                XCTAssertEqual(a.text, b.text)
                XCTAssertEqual(b.terminator, "\n")
            }
        }
    }

    func testRefusesWhatCannotBeSealed() throws {
        let tmp = try TempDir()
        func seal(_ playlist: String, files: [String] = []) throws -> SealError? {
            let dir = tmp.path + "/" + UUID().uuidString
            try SealFiles.makeDirectory(dir)
            for f in files { try Data(f.utf8).write(to: URL(fileURLWithPath: dir + "/" + f)) }
            try Data(playlist.utf8).write(to: URL(fileURLWithPath: dir + "/index.m3u8"))
            do { _ = try Sealer(source: dir, output: dir + "-out", key: key).sealOnce(); return nil } catch { return error }
        }
        let head = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        XCTAssertEqual(try seal(head + "#EXTINF:2,\nmissing.ts\n")?.description.contains("missing.ts"), true)
        XCTAssertEqual(try seal(head + "#EXT-X-BYTERANGE:3@0\n#EXTINF:2,\na.ts\n", files: ["a.ts"]), .liveByteRange(playlist: "index.m3u8", line: 5))
        XCTAssertEqual(try seal(head + "#EXTINF:2,\nnoext\n", files: ["noext"]), .badExtension(playlist: "index.m3u8", line: 4, uri: "noext"))
        guard case .unsupportedURI(_, 4, "https://x/a.ts", _)? = try seal(head + "#EXTINF:2,\nhttps://x/a.ts\n") else { return XCTFail() }
        guard case .unsupportedURI(_, 4, "../a.ts", _)? = try seal(head + "#EXTINF:2,\n../a.ts\n") else { return XCTFail() }
        guard case .invalidPlaylist(_, let e)? = try seal(head + "#EXTINF:2,\n") else { return XCTFail() }
        XCTAssertEqual(e.line, 3)
    }

    /// ffmpeg writes a live sliding window in real time while `--watch` seals it; every
    /// revision published verifies and chains to the one before, and ffmpeg plays the result.
    func testWatchSealsALiveFFmpegStream() throws {
        let tmp = try TempDir()
        let src = tmp.path + "/src", out = tmp.path + "/out"
        try SealFiles.makeDirectory(src)
        let ffmpeg = try Subprocess("/usr/bin/ffmpeg",
                                    ["-hide_banner", "-loglevel", "error", "-y", "-re", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=10", "-t", "4"]
                                    + FFmpegStream.encode + ["-hls_list_size", "3", "-hls_flags", "temp_file+delete_segments",
                                                             "-hls_segment_filename", src + "/live%03d.ts", src + "/index.m3u8"],
                                    deadline: 120).start()
        let verifier = ReceiptVerifier(publisherKey: key.publicKey)
        var state: RevisionState?
        var revisions: [UInt64] = []
        var failures: [String] = []
        let sealer = Sealer(source: src, output: out, key: key)
        let report = sealer.watch(interval: 0.05, log: { message in
            guard message.hasPrefix("index.m3u8: revision") else { return }
            do {
                let bytes = try SealFiles.read(out + "/index.m3u8")
                state = try verifier.verify(playlistBytes: bytes, name: "index.m3u8", previous: state)
                revisions.append(state!.revision)
            } catch { failures.append("\(error)") }
        }, shouldStop: { !ffmpeg.isRunning && !SealFiles.exists(src + "/index.m3u8") })
        let produced = try ffmpeg.wait()
        XCTAssertEqual(produced.status, 0, produced.stderrText)
        XCTAssertEqual(failures, [])
        XCTAssertEqual(report?.complete, true)
        XCTAssertGreaterThanOrEqual(revisions.count, 2)
        XCTAssertEqual(revisions, Array(1...UInt64(revisions.count)))
        try assertSealed(out)
        XCTAssertEqual(try FFmpegStream.framemd5(out + "/index.m3u8"), try FFmpegStream.framemd5(src + "/index.m3u8"))
    }
}
