// Issue 14, "any local web page can use it" and "secrets in logs": the session's path prefix,
// the Host check (DNS rebinding), CORS only for allowed web origins, the SSRF address policy
// (playlist URIs and redirects into loopback or private ranges), and userinfo redaction.

import XCTest
import TestSupport
import Foundation
@testable import Relay

/// An origin answering from a closure, for responses a folder cannot give (redirects to
/// another server, playlists that change on every request, slow answers).
final class ScriptedOrigin: @unchecked Sendable {
    private var server: HTTPServer?
    private let lock = NSLock()
    private var log: [String] = []

    init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
        server = try HTTPServer { [weak self] req in
            self?.lock.lock(); self?.log.append(req.path); self?.lock.unlock()
            return answer(req)
        }
    }

    deinit { server?.stop() }
    var port: UInt16 { server?.port ?? 0 }
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/" + path }
    var requests: [String] { lock.lock(); defer { lock.unlock() }; return log }
}

func text(_ s: String, type: String = ContentType.playlist) -> HTTPResponse {
    HTTPResponse(status: 200, headers: [("Content-Type", type)], body: ArraySlice(Array(s.utf8)))
}

final class RelayExposureTests: XCTestCase {
    private func session(_ options: RelayOptions = RelayOptions(), observer: RecordingObserver? = nil) throws -> (RelaySession, FolderOrigin, String) {
        let dir = try Media.make(.ts, into: "exposure-\(UUID().uuidString.prefix(8))")
        let origin = try FolderOrigin(root: dir)
        return (try RelaySession(origin: origin.url("index.m3u8"), options: options, observer: observer), origin, dir)
    }

    func testOnlyTheRelaysOwnHostIsAnswered() throws {
        let (s, origin, _) = try session()
        defer { s.close() }
        XCTAssertEqual(try Curl.request(s.playerURL).status, 200)
        XCTAssertEqual(try Curl.request(s.playerURL, headers: ["Host: localhost:\(s.port)"]).status, 200)
        // A rebound DNS name reaches 127.0.0.1 with its own Host: refused before anything is fetched.
        let before = origin.requests.count
        let rebound = try Curl.request(s.playerURL, headers: ["Host: attacker.example:\(s.port)"])
        XCTAssertEqual(rebound.status, 421)
        XCTAssertFalse(String(decoding: rebound.body, as: UTF8.self).contains("#EXTM3U"))
        XCTAssertEqual(try Curl.request(s.playerURL, headers: ["Host: 127.0.0.1:\(Int(s.port) + 1)"]).status, 421)
        XCTAssertEqual(try Curl.request(s.playerURL, headers: ["Host:"]).status, 421)
        XCTAssertEqual(origin.requests.count, before)
    }

    func testPathsOutsideTheSessionPrefixAreNotFound() throws {
        let (s, origin, _) = try session()
        defer { s.close(); withExtendedLifetime(origin) {} }
        let path = s.playerURL.dropFirst("http://127.0.0.1:\(s.port)".count)
        let prefix = path.split(separator: "/")[0]
        XCTAssertEqual(prefix.count, 32)
        XCTAssertTrue(prefix.allSatisfy { $0.isHexDigit })
        XCTAssertEqual(try Curl.request("http://127.0.0.1:\(s.port)/r/0/index.m3u8").status, 404)
        var guessed = String(prefix)
        guessed.removeLast(); guessed.append(prefix.last == "0" ? "1" : "0")
        XCTAssertEqual(try Curl.request("http://127.0.0.1:\(s.port)/\(guessed)/r/0/index.m3u8").status, 404)
        // Two sessions never share a prefix.
        let (s2, origin2, _) = try session()
        defer { s2.close(); withExtendedLifetime(origin2) {} }
        XCTAssertNotEqual(s2.playerURL.dropFirst("http://127.0.0.1:\(s2.port)".count).split(separator: "/")[0], prefix)
    }

    func testCORSHeadersOnlyForAllowedWebOrigins() throws {
        var options = RelayOptions()
        options.allowedWebOrigins = ["https://app.example"]
        let (s, origin, _) = try session(options)
        defer { s.close(); withExtendedLifetime(origin) {} }
        let allowed = try Curl.request(s.playerURL, headers: ["Origin: https://app.example"])
        XCTAssertEqual(allowed.status, 200, "\(allowed.headers)")
        XCTAssertEqual(allowed.header("access-control-allow-origin"), "https://app.example")
        XCTAssertEqual(allowed.header("vary"), "Origin")
        let preflight = try Curl.request(s.playerURL, method: "OPTIONS", headers: ["Origin: https://app.example"])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("access-control-allow-headers"), "Range")
        for other in ["https://evil.example", "null", "https://app.example.evil", "http://app.example"] {
            let f = try Curl.request(s.playerURL, headers: ["Origin: \(other)"])
            XCTAssertEqual(f.status, 403, other)
            XCTAssertNil(f.header("access-control-allow-origin"), other)
            XCTAssertFalse(String(decoding: f.body, as: UTF8.self).contains("#EXTM3U"), other)
        }
        let plain = try Curl.request(s.playerURL)
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.header("access-control-allow-origin"))
    }

    func testAddressClassification() {
        for ip in ["127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                   "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fc00::1", "fd12::1", "fe80::1", "::ffff:127.0.0.1",
                   "::ffff:10.0.0.1", "64:ff9b::a00:1", "not an address"] {
            XCTAssertFalse(AddressPolicy.isPublic(ip), ip)
        }
        for ip in ["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
            XCTAssertTrue(AddressPolicy.isPublic(ip), ip)
        }
        let p = AddressPolicy.forOrigin("http://127.0.0.1:8080/live/index.m3u8")
        XCTAssertTrue(p.allows(ip: "127.0.0.1", port: 8080))
        XCTAssertFalse(p.allows(ip: "127.0.0.1", port: 6379))
        XCTAssertFalse(p.allows(ip: "10.0.0.1", port: 8080))
        XCTAssertTrue(p.allows(ip: "93.184.216.34", port: 80))
    }

    /// A playlist naming another loopback service, and an origin redirecting to one: the relay
    /// does not connect there, so nothing of that service reaches the player.
    func testPlaylistURIsAndRedirectsIntoOtherLocalServicesAreRefused() throws {
        let inside = try ScriptedOrigin { _ in text("internal secret\n", type: "text/plain") }
        let secret = inside.url("admin/secret.ts")
        let origin = try ScriptedOrigin { req in
            switch req.path {
            case "/index.m3u8":
                return text("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n\(secret)\n#EXTINF:1.0,\nhop.ts\n#EXT-X-ENDLIST\n")
            case "/hop.ts":
                return HTTPResponse(status: 302, headers: [("Location", secret)])
            default: return HTTPResponse(status: 404)
            }
        }
        let observer = RecordingObserver()
        let s = try RelaySession(origin: origin.url("index.m3u8"), observer: observer)
        defer { s.close() }
        let playlist = String(decoding: try Curl.request(s.playerURL).body, as: UTF8.self)
        let uris = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(uris.count, 2, playlist)
        for u in uris {
            let f = try Curl.request(u)
            XCTAssertEqual(f.status, 502, u)
            XCTAssertEqual(f.header("x-relay-withheld"), "address_forbidden", u)
            XCTAssertFalse(String(decoding: f.body, as: UTF8.self).contains("internal secret"))
        }
        XCTAssertEqual(inside.requests, [])
        XCTAssertEqual(observer.withheld.map(reasonOf), ["address_forbidden", "address_forbidden"])
        // The origin itself is on loopback and stays reachable.
        XCTAssertEqual(origin.requests.filter { $0 == "/index.m3u8" }.count, 1)
    }

    func testOriginUserinfoIsRedactedInEventsAndErrors() throws {
        let dir = try Media.make(.ts, into: "exposure-userinfo")
        try FileManager.default.removeItem(atPath: dir + "/seg2.ts")
        let origin = try FolderOrigin(root: dir)
        let url = "http://viewer:s3cr3t-pw@127.0.0.1:\(origin.port)/index.m3u8"
        let observer = RecordingObserver()
        let s = try RelaySession(origin: url, observer: observer)
        defer { s.close() }
        let playlist = String(decoding: try Curl.request(s.playerURL).body, as: UTF8.self)
        XCTAssertFalse(playlist.contains("s3cr3t"))
        let segs = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        XCTAssertEqual(try Curl.request(segs[0]).status, 200)
        let missing = try Curl.request(segs[2])
        XCTAssertEqual(missing.status, 502)
        XCTAssertFalse("\(missing.headers) \(String(decoding: missing.body, as: UTF8.self))".contains("s3cr3t"))
        XCTAssertEqual(observer.events.count, 3)
        for e in observer.events {
            XCTAssertFalse("\(e)".contains("s3cr3t"), "\(e)")
            XCTAssertTrue(e.originURL.hasPrefix("http://***@127.0.0.1:"), e.originURL)
        }
        XCTAssertEqual(redactingUserinfo("https://u:p@h/x?y=@z"), "https://***@h/x?y=@z")
        XCTAssertEqual(redactingUserinfo("https://h/a@b"), "https://h/a@b")
        XCTAssertEqual(redactingUserinfo("http://a:b@c@h:1/"), "http://***@h:1/")
        XCTAssertFalse("\(RelaySessionError.badOriginURL(redactingUserinfo("ftp://u:pw@h/")))".contains("pw"))
        XCTAssertThrowsError(try RelaySession(origin: "ftp://u:hunter2@h/x.m3u8")) { e in
            XCTAssertFalse("\(e)".contains("hunter2"), "\(e)")
        }
    }
}
