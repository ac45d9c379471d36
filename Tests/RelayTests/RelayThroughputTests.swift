// The relay's fast path (docs/relay.md, "Throughput"): bodies hashed while they land (on a
// second thread past 1 MiB), served from the buffer they were received in, and the next
// listed object fetched while the player receives one. None of it may let an unverified
// byte through or change what the observer is told.

import XCTest
import TestSupport
import Foundation
@testable import Relay

final class RelayThroughputTests: XCTestCase {
    private func pattern(_ n: Int, seed: UInt32) -> [UInt8] {
        var x = seed | 1
        return (0..<n).map { _ in
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            return UInt8(truncatingIfNeeded: x)
        }
    }

    /// Appends `body` in `chunk`-byte pieces as libcurl would, growing the buffer by doubling
    /// (no declared length) or sizing it once (declared), while the hashing thread reads it.
    private func landedDigest(_ body: [UInt8], chunk: Int, declared: Bool) -> ([UInt8], [UInt8]) {
        let bytes = SharedBytes()
        let hasher = BodyHasher(bytes)
        if declared { hasher.quiesced { bytes.reserve(body.count) } }
        var at = 0
        while at < body.count {
            let n = min(chunk, body.count - at)
            if n > bytes.capacity - bytes.count {
                hasher.quiesced { bytes.reserve(max(bytes.count + n, bytes.capacity * 2)) }
            }
            body.withUnsafeBytes { raw in
                XCTAssertTrue(bytes.append(UnsafeRawBufferPointer(rebasing: raw[at..<(at + n)])))
            }
            at += n
            hasher.landed(bytes.count, expected: declared ? body.count : 0)
        }
        return (hasher.finish(), bytes.array)
    }

    func testDigestWhileLandingEqualsTheDigestOfTheWholeBody() {
        let sizes = [0, 1, 4095, BodyHasher.parallelFrom - 1, BodyHasher.parallelFrom, BodyHasher.parallelFrom + 1,
                     2 * BodyHasher.parallelFrom + 7]
        for size in sizes {
            let body = pattern(size, seed: UInt32(size))
            let expected = SHA256Hasher.digest(body)
            for (chunk, declared) in [(16 << 10, true), (16 << 10, false), (256 << 10, false), (1000, false), (777_777, true)] {
                let (digest, kept) = landedDigest(body, chunk: chunk, declared: declared)
                XCTAssertEqual(digest, expected, "size \(size), chunk \(chunk), declared \(declared)")
                XCTAssertEqual(kept, body, "size \(size), chunk \(chunk), declared \(declared)")
            }
        }
    }

    func testOneChangedByteAnywhereChangesTheDigest() {
        let size = 2 * BodyHasher.parallelFrom + 5
        let body = pattern(size, seed: 7)
        let genuine = SHA256Hasher.digest(body)
        for at in [0, BodyHasher.parallelFrom - 1, BodyHasher.parallelFrom, size - 1] {
            var b = body
            b[at] ^= 0x01
            XCTAssertNotEqual(landedDigest(b, chunk: 256 << 10, declared: false).0, genuine, "byte \(at)")
        }
    }

    func testThePoolHandsBackTheSmallestFittingBlockAndKeepsItsBound() {
        let pool = BufferPool(limit: 3 << 20)
        let blocks = [1 << 20, 2 << 20, 512 << 10].map { n -> (UnsafeMutableRawPointer, Int) in (malloc(n)!, n) }
        for (b, n) in blocks { pool.give(b, capacity: n) }
        // 3.5 MiB given to a 3 MiB pool: the oldest (1 MiB) was freed.
        XCTAssertEqual(pool.kept, (2 << 20) + (512 << 10))
        XCTAssertNil(pool.take(atLeast: 4 << 20))
        // Not a block more than twice the size asked for: a small object does not pin a large one.
        XCTAssertNil(pool.take(atLeast: 200 << 10))
        XCTAssertEqual(pool.take(atLeast: 300 << 10)?.capacity, 512 << 10)
        XCTAssertEqual(pool.take(atLeast: 1 << 20)?.capacity, 2 << 20)
        XCTAssertEqual(pool.kept, 0)
        free(blocks[1].0)
        free(blocks[2].0)
    }

    func testAReusedBufferCarriesNothingOfTheObjectBefore() {
        func dropped(_ n: Int) -> UnsafeMutableRawPointer? {
            let b = SharedBytes(pattern(n, seed: 1))
            return b.base
        }
        let old = dropped(3_333_333)
        // The same block, from the pool, holds only what the new object appended.
        let next = SharedBytes(pattern(2_222_222, seed: 2))
        XCTAssertEqual(next.base, old)
        XCTAssertEqual(next.count, 2_222_222)
        XCTAssertEqual(next.array, pattern(2_222_222, seed: 2))
        XCTAssertEqual(next.withBytes(2_222_212..<2_222_222) { Array($0) }, Array(pattern(2_222_222, seed: 2)[2_222_212...]))
    }

    /// A folder of content-addressed objects of the sizes given, and a VOD playlist of them.
    private func stream(sizes: [Int]) throws -> (dir: TempDir, names: [String], bodies: [[UInt8]]) {
        let dir = try TempDir()
        var names: [String] = [], bodies: [[UInt8]] = []
        var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for (i, size) in sizes.enumerated() {
            let body = pattern(size, seed: UInt32(100 + i))
            let n = Hex.encode(SHA256Hasher.digest(body)) + ".ts"
            try Data(body).write(to: URL(fileURLWithPath: dir.path + "/" + n))
            names.append(n)
            bodies.append(body)
            playlist += "#EXTINF:1.000000,\n\(n)\n"
        }
        playlist += "#EXT-X-ENDLIST\n"
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: dir.path + "/index.m3u8"))
        return (dir, names, bodies)
    }

    private func localURLs(_ session: RelaySession) throws -> [String] {
        let playlist = try Curl.request(session.playerURL)
        XCTAssertEqual(playlist.status, 200)
        return String(decoding: playlist.body, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// Waits (bounded) until the origin has been asked for `path` `n` times: a fetch ahead
    /// runs on its own thread.
    private func waitForRequests(_ origin: FolderOrigin, _ path: String, _ n: Int) -> Bool {
        for _ in 0..<1000 where origin.requestCount(path) < n { usleep(10_000) }
        return origin.requestCount(path) >= n
    }

    func testAChangedLastByteOfALargeObjectIsWithheldFetchedAheadOrNot() throws {
        for prefetch in [false, true] {
            let (dir, names, bodies) = try stream(sizes: [4096, 2 * BodyHasher.parallelFrom + 11, 5000])
            // Object 1 changes in its very last byte, after 2 MiB of correct bytes were kept
            // (hashed on the second thread).
            var bad = bodies[1]
            bad[bad.count - 1] ^= 0x40
            try Data(bad).write(to: URL(fileURLWithPath: dir.path + "/" + names[1]))
            let origin = try FolderOrigin(root: dir.path)
            let observer = RecordingObserver()
            var options = RelayOptions()
            options.contentAddressed = true
            options.prefetchNext = prefetch
            let session = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer)
            defer { session.close() }
            let urls = try localURLs(session)
            XCTAssertEqual(urls.count, 3)
            let first = try Curl.request(urls[0])
            XCTAssertEqual(first.status, 200)
            XCTAssertEqual(first.body, bodies[0])
            if prefetch {
                XCTAssertTrue(waitForRequests(origin, names[1], 1), "object 1 was not fetched ahead")
            }
            for attempt in 0..<2 {
                let got = try Curl.request(urls[1])
                XCTAssertEqual(got.status, 502, "prefetch \(prefetch), attempt \(attempt)")
                XCTAssertEqual(got.header("x-relay-withheld"), "hash_mismatch")
                XCTAssertTrue(got.body.starts(with: Array("withheld".utf8)))
                XCTAssertLessThan(got.body.count, 1000)
            }
            // Fetched once, ahead or not; the verdict stands for the session.
            XCTAssertEqual(origin.requestCount(names[1]), 1, "prefetch \(prefetch)")
            let ranged = try Curl.request(urls[1], headers: ["Range: bytes=0-99"])
            XCTAssertEqual(ranged.status, 502)
            let events = observer.events.filter { $0.originURL.hasSuffix("/" + names[1]) }
            XCTAssertEqual(events.count, 1, "\(observer.events)")
            XCTAssertEqual(events.first?.sha256, Hex.encode(SHA256Hasher.digest(bad)))
            XCTAssertEqual(events.first.map(reasonOf), "hash_mismatch")
            let third = try Curl.request(urls[2])
            XCTAssertEqual(third.status, 200)
            XCTAssertEqual(third.body, bodies[2])
        }
    }

    func testAnOriginFailureMetAheadIsReportedOncePerPlayerRequest() throws {
        let (dir, names, bodies) = try stream(sizes: [2000, 2001, 2002])
        try FileManager.default.removeItem(atPath: dir.path + "/" + names[1])
        let origin = try FolderOrigin(root: dir.path)
        let observer = RecordingObserver()
        var options = RelayOptions()
        options.contentAddressed = true
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer)
        defer { session.close() }
        let urls = try localURLs(session)
        XCTAssertEqual(try Curl.request(urls[0]).body, bodies[0])
        // Both objects after it are fetched ahead: the missing one and the one after.
        XCTAssertTrue(waitForRequests(origin, names[1], 1) && waitForRequests(origin, names[2], 1))
        for n in 1...2 {
            let got = try Curl.request(urls[1])
            XCTAssertEqual(got.status, 502)
            XCTAssertEqual(got.header("x-relay-withheld"), "origin_status")
            // Whether this request met the failure ahead or asked the origin again, it is one event.
            let events = observer.events.filter { $0.originURL.hasSuffix("/" + names[1]) }
            XCTAssertEqual(events.count, n, "\(events)")
            XCTAssertTrue(events.allSatisfy { reasonOf($0) == "origin_status" && $0.response?.status == 404 })
        }
        XCTAssertGreaterThanOrEqual(origin.requestCount(names[1]), 2, "an origin failure is asked again")
        XCTAssertEqual(observer.events.filter { $0.originURL.hasSuffix("/" + names[2]) }.count, 0)
        XCTAssertEqual(try Curl.request(urls[2]).body, bodies[2])
        XCTAssertEqual(origin.requestCount(names[2]), 1)
        XCTAssertEqual(observer.events.filter { $0.originURL.hasSuffix("/" + names[2]) }.map(\.outcome), [.verified])
    }

    func testAnObjectFetchedAheadIsReportedOnlyWhenThePlayerAsks() throws {
        let (dir, names, bodies) = try stream(sizes: [300_000, 300_001, 300_002])
        let origin = try FolderOrigin(root: dir.path)
        let observer = RecordingObserver()
        var options = RelayOptions()
        options.contentAddressed = true
        let session = try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer)
        defer { session.close() }
        let urls = try localURLs(session)
        XCTAssertEqual(try Curl.request(urls[0]).body, bodies[0])
        XCTAssertTrue(waitForRequests(origin, names[1], 1), "object 1 was not fetched ahead")
        // HEAD does not fetch ahead; it reports object 1, which its fetch ahead checked.
        _ = try Curl.request(urls[1], method: "HEAD")
        XCTAssertEqual(observer.events.filter { $0.originURL.hasSuffix("/" + names[1]) }.count, 1)
        XCTAssertEqual(observer.events.filter { $0.originURL.hasSuffix("/" + names[2]) }.count, 0)
        let got = try Curl.request(urls[1])
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.body, bodies[1])
        XCTAssertEqual(origin.requestCount(names[1]), 1)
        // Object 2 was fetched ahead but never asked for: never reported.
        XCTAssertTrue(waitForRequests(origin, names[2], 1), "object 2 was not fetched ahead")
        session.close()
        let reported = observer.events.filter { $0.kind == .object }.map { $0.originURL.split(separator: "/").last.map(String.init) ?? "" }
        XCTAssertEqual(reported, [names[0], names[1]])
        XCTAssertTrue(observer.events.filter { $0.kind == .object }.allSatisfy { $0.outcome == .verified })
    }
}
