// Durability: the real `waihost audit serve` on SQLite, concurrent clients, SIGKILL at random
// moments, restart, several rounds. Afterwards every bundle that got a 200 is in the database
// exactly once with its exact bytes, and nothing is there that was never posted.
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

final class CollectorDurabilityTests: XCTestCase {
    static var waihost: String {
        let exe = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return exe.deletingLastPathComponent().appendingPathComponent("waihost").path
    }

    func testAcknowledgedBundlesSurviveSIGKILL() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.waihost) else {
            return XCTFail("\(Self.waihost) is missing: build the package first (swift build)")
        }
        signal(SIGPIPE, SIG_IGN)
        let dir = try TempDir()
        let keyPath = dir.path + "/owner.key"
        try KeyFile.write(Fixture.owner, path: keyPath)
        let db = dir.path + "/collector.db"

        let posted = Locked<[String: [UInt8]]>([:])       // every bundle sent at least once
        let acked = Locked<[String: [UInt8]]>([:])        // every bundle answered 200 with a valid ack
        let problems = Locked<[String]>([])
        var rng = SystemRandomNumberGenerator()

        for round in 0..<4 {
            let log = dir.path + "/serve-\(round).log"
            let pid = try Subprocess(Self.waihost, ["audit", "serve", "--db", "sqlite:" + db, "--key", keyPath, "--port", "0"],
                                     output: .file(log), deadline: 600).start()
            let port: UInt16
            do { port = try Self.waitForPort(log: log, process: pid) } catch {
                pid.signal(SIGKILL)
                _ = try? pid.wait()
                throw error
            }
            // Bundles posted before a kill but never answered are sent again first.
            let retry = Locked<[[UInt8]]>(posted.value.filter { acked.value[$0.key] == nil }.map { $0.value })
            let roundAcks = Locked(0)
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                DispatchQueue.global().async {
                    defer { group.leave() }
                    while true {
                        var next: [UInt8]?
                        retry.update { if !$0.isEmpty { next = $0.removeLast() } }
                        let bytes: [UInt8]
                        let sid: String
                        if let n = next, let b = try? AuditBundle.parse(n) {
                            bytes = n
                            sid = b.sessionId
                        } else {
                            sid = AuditChain.newSessionId()
                            guard let b = try? CollectorFixture.bundle(sessionId: sid) else {
                                problems.update { $0.append("cannot make a bundle") }
                                return
                            }
                            bytes = b
                        }
                        posted.update { $0[sid] = bytes }
                        // A connection error means the server is gone: this client's round is over.
                        guard let reply = try? TestHTTP.postBundle(port: port, bytes) else { return }
                        guard reply.status == 200 else {
                            problems.update { $0.append("status \(reply.status): \(reply.text)") }
                            return
                        }
                        do {
                            _ = try CollectorAcknowledgement.verify(reply.body, owner: Fixture.owner.publicKey,
                                                                    sessionId: sid, bundleSha256: SHA256.hex(bytes))
                            acked.update { $0[sid] = bytes }
                            roundAcks.update { $0 += 1 }
                        } catch {
                            problems.update { $0.append("acknowledgement: \(error)") }
                            return
                        }
                    }
                }
            }
            // Kill mid-load: after the first acknowledgement of the round, a random moment later.
            while roundAcks.value == 0 && problems.value.isEmpty && pid.isRunning { usleep(1000) }
            usleep(UInt32.random(in: 0...400_000, using: &rng))
            pid.signal(SIGKILL)
            _ = try? pid.wait()
            group.wait()
            XCTAssertEqual(problems.value, [], "round \(round)")
            if !problems.value.isEmpty { break }
        }

        print("collector durability: \(posted.value.count) bundles posted, \(acked.value.count) acknowledged over 4 SIGKILLed servers")
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let rows = try store.allBundles()
        XCTAssertEqual(Set(rows.map { $0.sessionID }).count, rows.count, "a session stored twice")
        let bySession = Dictionary(rows.map { ($0.sessionID, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        XCTAssertGreaterThan(acked.value.count, 0)
        for (sid, bytes) in acked.value {
            XCTAssertEqual(bySession[sid], bytes, "acknowledged bundle \(sid) missing or changed")
        }
        for row in rows {
            XCTAssertEqual(posted.value[row.sessionID], row.bytes, "stored bundle \(row.sessionID) was never posted")
            XCTAssertEqual(try store.records(sessionID: row.sessionID).count, 4)
        }
    }

    /// Reads the port from the first line `waihost audit serve` prints.
    static func waitForPort(log: String, process: RunningSubprocess) throws -> UInt16 {
        for _ in 0..<30_000 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("{\"port\":") }),
               let port = UInt16(line.dropFirst(8).prefix(while: { $0.isNumber })) {
                return port
            }
            if !process.isRunning {
                let status = try process.wait().termination
                throw TestFailure(description: "waihost audit serve exited (\(status)): \(text)")
            }
            usleep(1000)
        }
        throw TestFailure(description: "waihost audit serve printed no port: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
}
