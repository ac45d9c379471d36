// The relay's CMCD v2 event-mode sender against the rules of docs/collector.md §CMCD rules:
// numbered per target, POSTed as application/cmcd with one sorted key list a line, retried on
// 429/5xx with backoff, stopped for good by 410; play states only on real changes; `t` at the
// interval. Every report sent is checked by the collector's own parser (CMCDParser).
import Foundation
import XCTest
import TestSupport
@testable import Audit
import Relay

final class CMCDTarget: @unchecked Sendable {
    private var server: HTTPServer?
    private let lock = NSLock()
    private var answers: [Int]
    private(set) var bodies: [(type: String?, body: String, status: Int)] = []

    init(answers: [Int]) throws {
        self.answers = answers
        server = try HTTPServer(maxRequestBody: 1 << 20) { [weak self] req in
            guard let self = self else { return HTTPResponse(status: 500) }
            self.lock.lock()
            let status = self.answers.isEmpty ? 204 : self.answers.removeFirst()
            self.bodies.append((req.header("content-type"), String(decoding: req.body, as: UTF8.self), status))
            self.lock.unlock()
            return HTTPResponse(status: status)
        }
    }

    var url: String { "http://127.0.0.1:\(server?.port ?? 0)/v1/cmcd" }
    var received: [(type: String?, body: String, status: Int)] { lock.lock(); defer { lock.unlock() }; return bodies }
    deinit { server?.stop() }
}

final class CMCDSenderTests: XCTestCase {
    let fast = CMCDSender.Backoff(initialSeconds: 0.01, maxSeconds: 0.05)

    private func event(_ type: String, _ extra: [String: CMCDItem] = [:]) -> CMCDEvent {
        var k: [String: CMCDItem] = ["e": .token(type), "sid": .string("6f1e0c2a"), "ts": .integer(1_764_000_000_000),
                                     "v": .integer(2), "sf": .token("h")]
        for (a, b) in extra { k[a] = b }
        return CMCDEvent(keys: k)
    }

    func testReportsAreNumberedSortedAndRetriedOn429And5xx() throws {
        let target = try CMCDTarget(answers: [503, 429, 500])
        let sender = CMCDSender(target: target.url, backoff: fast, batchSize: 3)
        defer { sender.stop() }
        sender.send(event("ps", ["sta": .token("s")]))
        sender.send(event("rr", ["url": .string("http://o/a b\"c.ts"), "ot": .token("m"), "rc": .integer(200),
                                 "ttfb": .integer(3), "ttlb": .integer(17)]))
        sender.send(event("e", ["ec": .stringList(["hash_mismatch"])]))
        sender.send(event("t"))
        sender.send(event("ps", ["sta": .token("p"), "msd": .integer(120)]))
        XCTAssertTrue(sender.flush(seconds: 60))
        let got = target.received
        XCTAssertEqual(Array(got.map { $0.status }.prefix(3)), [503, 429, 500])
        XCTAssertTrue(got.dropFirst(3).allSatisfy { $0.status == 204 }, "\(got.map { $0.status })")
        XCTAssertTrue(got.allSatisfy { $0.type == "application/cmcd" })
        // Each refused batch went back to the head of the queue: every attempt starts with sn=0
        // until one is answered; then everything arrives once, in order.
        XCTAssertTrue(got.prefix(4).allSatisfy { $0.body.contains(",sn=0,") && $0.body.hasPrefix("e=ps,") }, "\(got.map { $0.body })")
        let delivered = got.filter { $0.status == 204 }.map { $0.body }.joined()
        let reports = try CMCDParser.parseEventBody(Array(delivered.utf8))
        XCTAssertEqual(reports.map { $0.sequence }, [0, 1, 2, 3, 4])
        XCTAssertEqual(reports.map { $0.sessionID }, Array(repeating: "6f1e0c2a", count: 5))
        let lines = delivered.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[1], #"e=rr,ot=m,rc=200,sf=h,sid="6f1e0c2a",sn=1,ts=1764000000000,ttfb=3,ttlb=17,url="http://o/a b\"c.ts",v=2"#)
        XCTAssertEqual(lines[2], #"e=e,ec=("hash_mismatch"),sf=h,sid="6f1e0c2a",sn=2,ts=1764000000000,v=2"#)
        for l in lines {
            let keys = l.split(separator: ",").map { String($0.split(separator: "=")[0]) }
            XCTAssertEqual(keys, keys.sorted(), l)
        }
    }

    func testGoneStopsTheTargetForGood() throws {
        let target = try CMCDTarget(answers: [410])
        let sender = CMCDSender(target: target.url, backoff: fast)
        defer { sender.stop() }
        sender.send(event("ps", ["sta": .token("s")]))
        XCTAssertTrue(sender.flush(seconds: 60))
        XCTAssertTrue(sender.stoppedByTarget)
        sender.send(event("t"))
        XCTAssertTrue(sender.flush(seconds: 1))
        XCTAssertEqual(target.received.count, 1, "nothing sent after 410")
    }

    func testPlayStatesOnRealChangesAndTimeIntervalReports() throws {
        let lines = Locked<[CMCDEvent]>([])
        let events = CMCDEvents(sessionId: "s1", startMs: AuditChain.nowMs(), intervalSeconds: 0.02) { lines.append($0) }
        events.playState(.starting)
        events.playState(.playing)
        events.playState(.playing)
        var ticks = 0
        for _ in 0..<1000 where ticks < 3 { ticks = lines.value.filter { $0.type == "t" }.count; usleep(10_000) }
        XCTAssertGreaterThanOrEqual(ticks, 3, "t reports at the interval")
        events.playState(.ended)
        let after = lines.value.count
        usleep(100_000)
        XCTAssertEqual(lines.value.count, after, "nothing after ended")
        let ps = lines.value.filter { $0.type == "ps" }
        XCTAssertEqual(ps.map { $0.keys["sta"] }, [.token("s"), .token("p"), .token("e")], "the repeated playing is not a change")
        XCTAssertEqual(lines.value.filter { $0.keys["msd"] != nil }.count, 1)
        let body = lines.value.enumerated().map { $1.line(sn: Int64($0)) }.joined(separator: "\n")
        XCTAssertEqual(try CMCDParser.parseEventBody(Array(body.utf8)).count, lines.value.count)
    }
}
