// Small HTTP pieces for the audit tests: a folder origin and a collector that fails a given
// number of times before acknowledging, both on the relay's own HTTPServer.

import Foundation
import Relay
@testable import Audit
import WaiCrypto

final class FolderOrigin: @unchecked Sendable {
    let root: String
    private var server: HTTPServer?

    init(root: String) throws {
        self.root = root
        server = try HTTPServer { [root] req in
            guard !req.path.contains(".."), let data = FileManager.default.contents(atPath: root + req.path) else {
                return HTTPResponse(status: 404)
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", ContentType.forName(req.path))], body: [UInt8](data)[...])
        }
    }

    deinit { server?.stop() }
    func url(_ path: String) -> String { "http://127.0.0.1:\(server?.port ?? 0)/" + path }
}

/// Answers 503 to the first `failures` bundles posted, then stores and acknowledges with a
/// signature by `signer` (the owner key, or another to test refusal).
final class TestCollector: @unchecked Sendable {
    private var server: HTTPServer?
    private let lock = NSLock()
    private var failuresLeft: Int
    private(set) var posts = 0
    private var storedBundles: [String: [UInt8]] = [:]
    private var cmcdLines: [String] = []
    let signer: Ed25519PrivateKey

    /// `port` 0 picks one; another takes the port of a collector that was stopped (a restart).
    init(failures: Int, signer: Ed25519PrivateKey = Fixture.owner, port: UInt16 = 0) throws {
        failuresLeft = failures
        self.signer = signer
        server = try HTTPServer(port: port, maxRequestBody: AuditLimits.bundleBytes) { [weak self] req in
            self?.handle(req) ?? HTTPResponse(status: 500)
        }
    }

    deinit { server?.stop() }

    /// Closes the listener and every connection, kept-alive ones included.
    func stop() { server?.stop() }
    var port: UInt16 { server?.port ?? 0 }
    /// TCP connections the collector accepted so far.
    var connections: Int { server?.connectionsOpened ?? 0 }

    var base: String { "http://127.0.0.1:\(server?.port ?? 0)" }
    var stored: [String: [UInt8]] { lock.lock(); defer { lock.unlock() }; return storedBundles }
    var cmcd: [String] { lock.lock(); defer { lock.unlock() }; return cmcdLines }
    var postCount: Int { lock.lock(); defer { lock.unlock() }; return posts }

    private func handle(_ req: HTTPRequest) -> HTTPResponse {
        if req.path == "/v1/cmcd" {
            lock.lock()
            cmcdLines += String(decoding: req.body, as: UTF8.self).split(separator: "\n").map(String.init)
            lock.unlock()
            return HTTPResponse(status: 204)
        }
        guard req.method == "POST", req.path == "/v1/sessions" else { return HTTPResponse(status: 404) }
        lock.lock()
        posts += 1
        if failuresLeft > 0 {
            failuresLeft -= 1
            lock.unlock()
            return HTTPResponse(status: 503, body: ArraySlice("try later".utf8))
        }
        lock.unlock()
        let v: VerifiedBundle
        do { v = try AuditBundle.verify(req.body, owner: Fixture.owner.publicKey) } catch {
            return HTTPResponse(status: 400, body: ArraySlice("\(error)".utf8))
        }
        lock.lock()
        let status: CollectorAcknowledgement.Status = storedBundles[v.sessionId] == nil ? .stored : .duplicate
        storedBundles[v.sessionId] = req.body
        lock.unlock()
        let ack = CollectorAcknowledgement(sessionId: v.sessionId, bundleSha256: v.bundleSha256, status: status, storedMs: 1)
        guard let body = try? ack.signed(by: signer) else { return HTTPResponse(status: 500) }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body[...])
    }
}
