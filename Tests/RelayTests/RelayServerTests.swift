// The relay's HTTP behaviour (status codes, headers, ranges, redirects, session end) against
// a folder origin on loopback, plus the helpers the player and tamper tests share.

import XCTest
import TestSupport
import Foundation
@testable import Relay

// MARK: shared helpers

/// A folder served over HTTP on loopback through the relay's own server code, with byte
/// ranges (players fetch byte-range playlists with Range) and configurable redirects.
final class FolderOrigin: @unchecked Sendable {
    let root: String
    private var server: HTTPServer?
    private let lock = NSLock()
    private var log: [String] = []
    private var redirects: [String: String] = [:]

    init(root: String) throws {
        self.root = root
        server = try HTTPServer { [weak self] req in
            guard let self = self else { return HTTPResponse(status: 500) }
            return self.serve(req)
        }
    }

    deinit { server?.stop() }

    var port: UInt16 { server?.port ?? 0 }
    var base: String { "http://127.0.0.1:\(port)" }
    func url(_ path: String) -> String { base + "/" + path }

    func redirect(_ from: String, to: String) {
        lock.lock(); redirects["/" + from] = "/" + to; lock.unlock()
    }

    /// Paths requested so far, in order.
    var requests: [String] { lock.lock(); defer { lock.unlock() }; return log }

    func requestCount(_ path: String) -> Int { requests.filter { $0 == "/" + path }.count }

    private func serve(_ req: HTTPRequest) -> HTTPResponse {
        lock.lock()
        log.append(req.path)
        let target = redirects[req.path]
        lock.unlock()
        if let target = target { return HTTPResponse(status: 302, headers: [("Location", base + target)]) }
        guard !req.path.contains(".."), let data = FileManager.default.contents(atPath: root + req.path) else {
            return HTTPResponse(status: 404)
        }
        let bytes = [UInt8](data)
        let type = [("Content-Type", ContentType.forName(req.path)), ("Accept-Ranges", "bytes")]
        switch RangeRequest(header: req.header("range"), length: bytes.count) {
        case .whole: return HTTPResponse(status: 200, headers: type, body: bytes[...])
        case .range(let f, let l):
            return HTTPResponse(status: 206, headers: type + [("Content-Range", "bytes \(f)-\(l)/\(bytes.count)")],
                                body: bytes[f...l])
        case .unsatisfiable: return HTTPResponse(status: 416, headers: [("Content-Range", "bytes */\(bytes.count)")])
        }
    }
}

final class RecordingObserver: RelayObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var list: [ObjectEvent] = []
    private var endReasons: [EndReason] = []

    func received(_ event: ObjectEvent) { lock.lock(); list.append(event); lock.unlock() }
    func sessionEnded(_ reason: EndReason) { lock.lock(); endReasons.append(reason); lock.unlock() }

    var events: [ObjectEvent] { lock.lock(); defer { lock.unlock() }; return list }
    var ends: [EndReason] { lock.lock(); defer { lock.unlock() }; return endReasons }
    var withheld: [ObjectEvent] { events.filter { $0.isWithheld } }
}

/// Tiny streams made with ffmpeg, once per test process: 3 s of 128x72 H.264 at 10 fps and
/// AAC, one-second segments.
enum Media {
    static let root: String = {
        do { return try makeTemporaryDirectory("relaytest-media") } catch { fatalError("\(error)") }
    }()

    static let source = ["-hide_banner", "-loglevel", "error", "-y",
                         "-f", "lavfi", "-i", "testsrc2=size=128x72:rate=10:duration=3",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050:duration=3",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-c:a", "aac", "-b:a", "32k",
                         "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"]

    enum Kind: String, CaseIterable { case ts, fmp4, byterange }

    /// A fresh copy of the stream of `kind` in a folder of its own (tests may change it).
    static func make(_ kind: Kind, into name: String) throws -> String {
        let dir = root + "/" + name
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var args = source
        switch kind {
        case .ts: args += ["-hls_segment_filename", dir + "/seg%d.ts"]
        case .fmp4: args += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                             "-hls_segment_filename", dir + "/seg%d.m4s"]
        case .byterange: args += ["-hls_flags", "single_file"]
        }
        args.append(dir + "/index.m3u8")
        let r = try Subprocess("/usr/bin/ffmpeg", args, deadline: 120).run()
        guard r.status == 0 else { throw TestFailure("ffmpeg could not make the \(kind) stream: \(r.stderrText)") }
        return dir
    }
}


func readBytes(_ path: String) -> [UInt8] { FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? [] }

// MARK: tests

final class RelayServerTests: XCTestCase {
    func testRangeHeaderInterpretation() {
        XCTAssertEqual(RangeRequest(header: nil, length: 100), .whole)
        XCTAssertEqual(RangeRequest(header: "bytes=0-9", length: 100), .range(first: 0, last: 9))
        XCTAssertEqual(RangeRequest(header: "bytes=90-", length: 100), .range(first: 90, last: 99))
        XCTAssertEqual(RangeRequest(header: "bytes=90-500", length: 100), .range(first: 90, last: 99))
        XCTAssertEqual(RangeRequest(header: "bytes=-10", length: 100), .range(first: 90, last: 99))
        XCTAssertEqual(RangeRequest(header: "bytes=-500", length: 100), .range(first: 0, last: 99))
        XCTAssertEqual(RangeRequest(header: "bytes=100-", length: 100), .unsatisfiable)
        XCTAssertEqual(RangeRequest(header: "bytes=-0", length: 100), .unsatisfiable)
        XCTAssertEqual(RangeRequest(header: "bytes=0-1,5-6", length: 100), .whole)
        XCTAssertEqual(RangeRequest(header: "bytes=9-3", length: 100), .whole)
        XCTAssertEqual(RangeRequest(header: "items=0-3", length: 100), .whole)
    }

    func testCMCDParametersAreDropped() {
        XCTAssertEqual(removingCMCD("http://h/a.ts?CMCD=bl%3D21300%2Cbr%3D3200"), "http://h/a.ts")
        XCTAssertEqual(removingCMCD("http://h/a.ts?tok=1&CMCD=sid%3D%22x%22&b=2"), "http://h/a.ts?tok=1&b=2")
        XCTAssertEqual(removingCMCD("http://h/a.ts?tok=1"), "http://h/a.ts?tok=1")
        XCTAssertEqual(removingCMCD("http://h/a.ts?CMCDX=1"), "http://h/a.ts?CMCDX=1")
        XCTAssertEqual(removingCMCD("http://h/a.ts"), "http://h/a.ts")
    }

    func testLocalNamesKeepTheExtension() {
        XCTAssertEqual(LocalURLTable.name(of: "http://h/x/seg1.m4s?tok=2"), "seg1.m4s")
        XCTAssertEqual(LocalURLTable.name(of: "http://h/x/a%20b.ts"), "a_20b.ts")
        XCTAssertEqual(LocalURLTable.name(of: "http://h/"), "object")
    }

    func testCacheEvictsLeastRecentlyUsedBeyondItsBudget() {
        var cache = ObjectCache(budget: 10)
        func obj(_ n: Int) -> CachedObject { CachedObject(bytes: [UInt8](repeating: 1, count: n), sha256: "", contentType: "") }
        cache.put(1, obj(4))
        cache.put(2, obj(4))
        XCTAssertNotNil(cache.get(1))          // 1 is now more recent than 2
        cache.put(3, obj(4))                   // over budget: 2 goes
        XCTAssertTrue(cache.contains(1))
        XCTAssertFalse(cache.contains(2))
        XCTAssertTrue(cache.contains(3))
        XCTAssertEqual(cache.bytes, 8)
        cache.put(4, obj(11))                  // larger than the whole budget: not kept
        XCTAssertFalse(cache.contains(4))
        XCTAssertEqual(cache.bytes, 8)
    }

    func testPlaylistIsRewrittenAndServedWithPlaylistHeaders() throws {
        let dir = try Media.make(.ts, into: "server-playlist")
        let origin = try FolderOrigin(root: dir)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { session.close() }
        // http://127.0.0.1:PORT/<32 hex>/r/0/index.m3u8: the session's unguessable prefix.
        let path = session.playerURL.dropFirst("http://127.0.0.1:\(session.port)/".count)
        XCTAssertTrue(session.playerURL.hasPrefix("http://127.0.0.1:\(session.port)/"), session.playerURL)
        XCTAssertEqual(path.split(separator: "/").first?.count, 32, session.playerURL)
        XCTAssertTrue(path.hasSuffix("/r/0/index.m3u8"), session.playerURL)

        let f = try Curl.request(session.playerURL)
        XCTAssertEqual(f.status, 200)
        XCTAssertEqual(f.header("content-type"), "application/vnd.apple.mpegurl")
        XCTAssertEqual(f.header("cache-control"), "no-cache")
        XCTAssertNil(f.header("access-control-allow-origin"))   // no web origin is allowed by default
        let text = String(decoding: f.body, as: UTF8.self)
        let original = String(decoding: readBytes(dir + "/index.m3u8"), as: UTF8.self)
        let uriLines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(uriLines.count, 3)
        let base = String(session.playerURL.dropLast("0/index.m3u8".count))
        for (i, line) in uriLines.enumerated() {
            XCTAssertTrue(line.hasPrefix(base), String(line))
            XCTAssertTrue(line.hasSuffix("/seg\(i).ts"), String(line))
        }
        // Everything but the URI lines is byte for byte the origin's.
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("#") },
                       original.split(separator: "\n").filter { $0.hasPrefix("#") })
        XCTAssertEqual(observer.events.map(\.kind), [.playlist])
        XCTAssertEqual(observer.events.first?.outcome, .relayed)
        XCTAssertEqual(observer.events.first?.sha256, Hex.encode(SHA256Hasher.digest(readBytes(dir + "/index.m3u8"))))
    }

    func testRangesHeadOptionsCMCDAndOneOriginFetch() throws {
        let dir = try Media.make(.ts, into: "server-ranges")
        let origin = try FolderOrigin(root: dir)
        let session = try RelaySession(origin: origin.url("index.m3u8"))
        defer { session.close() }
        let playlist = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self)
        guard let seg = playlist.split(separator: "\n").first(where: { $0.hasSuffix("seg1.ts") }).map(String.init) else {
            return XCTFail("no seg1.ts in \(playlist)")
        }
        let bytes = readBytes(dir + "/seg1.ts")

        let head = try Curl.request(seg, method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("content-length"), "\(bytes.count)")
        XCTAssertEqual(head.header("accept-ranges"), "bytes")
        XCTAssertEqual(head.header("content-type"), "video/mp2t")

        let whole = try Curl.request(seg + "?CMCD=bl%3D21300%2Cot%3Dv")
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, bytes)

        let part = try Curl.request(seg, headers: ["Range: bytes=100-299"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.header("content-range"), "bytes 100-299/\(bytes.count)")
        XCTAssertEqual(part.body, Array(bytes[100...299]))

        let suffix = try Curl.request(seg, headers: ["Range: bytes=-7"])
        XCTAssertEqual(suffix.status, 206)
        XCTAssertEqual(suffix.body, Array(bytes[(bytes.count - 7)...]))

        let beyond = try Curl.request(seg, headers: ["Range: bytes=\(bytes.count)-"])
        XCTAssertEqual(beyond.status, 416)
        XCTAssertEqual(beyond.header("content-range"), "bytes */\(bytes.count)")

        let options = try Curl.request(seg, method: "OPTIONS")
        XCTAssertEqual(options.status, 204)
        XCTAssertNil(options.header("access-control-allow-origin"))

        XCTAssertEqual(try Curl.request(seg, method: "POST").status, 405)
        XCTAssertEqual(try Curl.request("http://127.0.0.1:\(session.port)/r/99/seg1.ts").status, 404)
        XCTAssertEqual(try Curl.request("http://127.0.0.1:\(session.port)/r/1/other.ts").status, 404)
        let base = String(session.playerURL.dropLast("0/index.m3u8".count))
        XCTAssertEqual(try Curl.request(base + "99/seg1.ts").status, 404)
        XCTAssertEqual(try Curl.request(base + "1/other.ts").status, 404)
        // HEAD, four GETs and ranges: fetched from the origin once.
        XCTAssertEqual(origin.requestCount("seg1.ts"), 1)
    }

    func testRelativeURIsResolveAgainstTheURLAfterRedirects() throws {
        let dir = try Media.make(.ts, into: "server-redirect")
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        for name in ["index.m3u8", "seg0.ts", "seg1.ts", "seg2.ts"] {
            try FileManager.default.moveItem(atPath: dir + "/" + name, toPath: dir + "/real/" + name)
        }
        let origin = try FolderOrigin(root: dir)
        origin.redirect("moved/index.m3u8", to: "real/index.m3u8")
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("moved/index.m3u8"), observer: observer)
        defer { session.close() }
        let playlist = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self)
        let segs = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(segs.count, 3)
        for (i, s) in segs.enumerated() {
            let f = try Curl.request(s)
            XCTAssertEqual(f.status, 200)
            XCTAssertEqual(f.body, readBytes(dir + "/real/seg\(i).ts"))
        }
        XCTAssertEqual(observer.events.first?.effectiveURL, origin.url("real/index.m3u8"))
        XCTAssertEqual(observer.events.dropFirst().map(\.originURL),
                       (0..<3).map { origin.url("real/seg\($0).ts") })
        // The status is the final response's (the 302 is followed); curl's timers, first ≤ last.
        XCTAssertEqual(observer.events.map { $0.response?.status }, [200, 200, 200, 200])
        for e in observer.events {
            guard let r = e.response else { continue }
            XCTAssertTrue(0 <= r.firstByteMs && r.firstByteMs <= r.lastByteMs, "\(r)")
        }
    }

    func testOriginFailuresAreWithheldWithADefiniteStatus() throws {
        let dir = try Media.make(.ts, into: "server-missing")
        try FileManager.default.removeItem(atPath: dir + "/seg2.ts")
        let sizes = (0..<2).map { readBytes(dir + "/seg\($0).ts").count }
        XCTAssertNotEqual(sizes[0], sizes[1])
        let origin = try FolderOrigin(root: dir)
        let observer = RecordingObserver()
        var options = RelayOptions()
        options.origin.maxObjectBytes = sizes.min() ?? 0   // the smaller segment fits exactly
        // The origin's requests here are the player's own; a fetch ahead of seg2 would be one
        // more (RelayThroughputTests covers fetching ahead).
        options.prefetchNext = false
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer)
        defer { session.close() }
        let segs = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        for i in 0..<2 {
            let f = try Curl.request(segs[i])
            if sizes[i] > options.origin.maxObjectBytes {
                XCTAssertEqual(f.status, 502)
                XCTAssertEqual(f.header("x-relay-withheld"), "too_large")
            } else {
                XCTAssertEqual(f.status, 200)
                XCTAssertEqual(f.body, readBytes(dir + "/seg\(i).ts"))
            }
        }
        let missing = try Curl.request(segs[2])
        XCTAssertEqual(missing.status, 502)
        XCTAssertEqual(missing.header("x-relay-withheld"), "origin_status")
        // An origin failure is asked again (a live segment may appear); a verdict on bytes
        // (too_large) is answered from the record without asking the origin again.
        XCTAssertEqual(try Curl.request(segs[2]).status, 502)
        XCTAssertEqual(origin.requestCount("seg2.ts"), 2)
        let big = sizes[0] > sizes[1] ? 0 : 1
        XCTAssertEqual(try Curl.request(segs[big]).header("x-relay-withheld"), "too_large")
        XCTAssertEqual(origin.requestCount("seg\(big).ts"), 1)
        XCTAssertEqual(observer.withheld.map(reasonOf).sorted(), ["origin_status", "origin_status", "too_large"])
        // A 404 is a response received (its status and timing are reported); a transfer stopped at
        // the size bound is not.
        XCTAssertEqual(observer.withheld.filter { reasonOf($0) == "origin_status" }.map { $0.response?.status }, [404, 404])
        XCTAssertEqual(observer.withheld.filter { reasonOf($0) == "too_large" }.map { $0.response }, [nil])
        XCTAssertEqual(try Curl.request(session.playerURL + "x").status, 404)
    }

    func testEndedSessionAnswers410AndStopsFetching() throws {
        let dir = try Media.make(.ts, into: "server-end")
        let origin = try FolderOrigin(root: dir)
        let observer = RecordingObserver()
        let session = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { session.close() }
        let segs = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(try Curl.request(segs[0]).status, 200)
        // Serving seg0 fetches seg1 and seg2 ahead; those transfers began before the end and
        // may reach the origin after this response: count from when they have.
        let deadline = Date().addingTimeInterval(30)
        while origin.requestCount("seg1.ts") + origin.requestCount("seg2.ts") < 2, Date() < deadline { usleep(10_000) }
        let before = origin.requests.count
        session.end(reason: .notVisible)
        session.end(reason: .viewerIdle)     // the first reason stands
        XCTAssertEqual(session.ended, .notVisible)
        XCTAssertEqual(observer.ends, [.notVisible])
        XCTAssertEqual(try Curl.request(session.playerURL).status, 410)
        XCTAssertEqual(try Curl.request(segs[0]).status, 410)
        XCTAssertEqual(try Curl.request(segs[1]).status, 410)
        XCTAssertEqual(origin.requests.count, before)
        session.waitUntilEnded()
    }

    func testIdleAfterEndsTheSession() throws {
        let dir = try Media.make(.ts, into: "server-idle")
        let origin = try FolderOrigin(root: dir)
        var options = RelayOptions()
        options.idleAfterSeconds = 0.3
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: options)
        defer { session.close() }
        session.waitUntilEnded()
        XCTAssertEqual(session.ended, .idleTimeout)
        XCTAssertEqual(try Curl.request(session.playerURL).status, 410)
        XCTAssertEqual(origin.requests.count, 0)
    }

    func testObjectsThatLeftThePlaylistAreStillServedFromTheCheckedCopy() throws {
        let dir = try Media.make(.ts, into: "server-slid")
        let origin = try FolderOrigin(root: dir)
        let session = try RelaySession(origin: origin.url("index.m3u8"))
        defer { session.close() }
        let segs = String(decoding: try Curl.request(session.playerURL).body, as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        let seg0 = readBytes(dir + "/seg0.ts")
        XCTAssertEqual(try Curl.request(segs[0]).body, seg0)
        try FileManager.default.removeItem(atPath: dir + "/seg0.ts")
        let again = try Curl.request(segs[0])
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again.body, seg0)
        XCTAssertEqual(origin.requestCount("seg0.ts"), 1)
    }

    /// `waihost relay`, built beside this test bundle by `swift test`.
    func testCommandLinePrintsTheURLServesAndEndsWhenIdle() throws {
        let dir = try Media.make(.ts, into: "server-cli")
        let origin = try FolderOrigin(root: dir)
        let exe = TestPaths.waihost
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw TestFailure("no waihost at \(exe)") }
        let p = try Subprocess(exe, ["relay", origin.url("index.m3u8"), "--json", "--idle-after", "0.5"], deadline: 120).start()
        let line = try p.readLine() ?? ""
        let printed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        guard let url = printed?["url"] as? String else { throw TestFailure("no url in \(line)") }
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        XCTAssertEqual(printed?["schema"] as? String, "waihost.relay/1")
        let f = try Curl.request(url)
        XCTAssertEqual(f.status, 200)
        XCTAssertTrue(String(decoding: f.body, as: UTF8.self).contains("/seg0.ts"))
        let ended = try p.wait()
        XCTAssertEqual(ended.status, 0)
        let tail = ended.stderrText
        XCTAssertTrue(tail.contains("{\"ended\":\"idle_timeout\",\"schema\":\"waihost.relay-ended/1\"}"), tail)
    }

    /// `waihost relay` with an origin URL carrying user:password: nothing it prints, on stdout
    /// or in the withheld lines on stderr, holds the password.
    func testCommandLineRedactsOriginUserinfo() throws {
        let dir = try Media.make(.ts, into: "server-cli-userinfo")
        try FileManager.default.removeItem(atPath: dir + "/seg1.ts")
        let origin = try FolderOrigin(root: dir)
        let exe = TestPaths.waihost
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw TestFailure("no waihost at \(exe)") }
        for json in [true, false] {
            let p = try Subprocess(exe, ["relay", "http://viewer:pa55w0rd@127.0.0.1:\(origin.port)/index.m3u8", "--idle-after", "0.5"]
                                   + (json ? ["--json"] : []), deadline: 120).start()
            let printed = try p.readLine().map { $0 + "\n" } ?? ""
            let url = json ? ((try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])?["url"] as? String ?? "")
                           : printed.trimmingCharacters(in: .whitespacesAndNewlines)
            let segs = String(decoding: try Curl.request(url).body, as: UTF8.self)
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            XCTAssertEqual(segs.count, 3)
            XCTAssertEqual(try Curl.request(segs[1]).status, 502)
            let ended = try p.wait()
            let stderr = ended.stderrText
            XCTAssertTrue(stderr.contains("origin_status"), stderr)
            XCTAssertTrue(stderr.contains("***@127.0.0.1"), stderr)
            // All it printed: the URL line and whatever followed it.
            XCTAssertTrue(ended.stdoutText.hasPrefix(printed), ended.stdoutText)
            XCTAssertFalse((ended.stdoutText + stderr).contains("pa55w0rd"), ended.stdoutText + stderr)
        }
    }

    func testRequireSignedNeedsAKey() {
        var options = RelayOptions()
        options.requireSigned = true
        XCTAssertThrowsError(try RelaySession(origin: "http://127.0.0.1:1/x.m3u8", options: options))
        XCTAssertThrowsError(try RelaySession(origin: "file:///etc/passwd"))
    }
}
