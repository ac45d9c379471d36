import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime

/// The overlap logic of the repetition stage's concurrent rounds (docs/probe.md §1
/// `repetition`): which runs count as concurrent, which stamps are believed, and the bound
/// on repeating a round whose runs did not overlap.
final class ConcurrencyOverlapTests: XCTestCase {
    private func i(_ s: UInt64, _ e: UInt64) -> RunInterval { RunInterval(start: s, end: e) }

    func testOnlyIntervalsSharingTimeIntersect() {
        XCTAssertTrue(i(0, 10).intersects(i(5, 15)))
        XCTAssertTrue(i(0, 10).intersects(i(2, 3)), "nested")
        XCTAssertFalse(i(0, 10).intersects(i(10, 20)), "touching ends are one after the other")
        XCTAssertFalse(i(0, 10).intersects(i(11, 20)))
    }

    func testMostAtOnceCountsRunsInFlightAndIgnoresUnknownOnes() {
        XCTAssertEqual(RunOverlap.mostAtOnce([]), 0)
        XCTAssertEqual(RunOverlap.mostAtOnce([nil, nil]), 0)
        XCTAssertEqual(RunOverlap.mostAtOnce([i(0, 10), i(10, 20), i(20, 30)]), 1, "back to back is serial")
        XCTAssertEqual(RunOverlap.mostAtOnce([i(0, 10), nil, i(10, 20)]), 1)
        XCTAssertEqual(RunOverlap.mostAtOnce([i(0, 100), i(10, 20), i(15, 30), i(40, 50)]), 3)
        XCTAssertEqual(RunOverlap.mostAtOnce([i(5, 5), i(0, 10)]), 1, "an empty interval overlaps nothing")
        XCTAssertFalse(RunOverlap.overlapped([i(0, 1), i(2, 3)]))
        XCTAssertTrue(RunOverlap.overlapped([i(2, 3), i(0, 10)]))
    }

    /// The worker's stamps are kept only inside the host's own bracket around the request.
    func testWorkerStampsOutsideTheHostsBracketAreNotBelieved() {
        let bracket = i(100, 200)
        XCTAssertEqual(RunInterval.checked(i(120, 180), within: bracket), i(120, 180))
        XCTAssertEqual(RunInterval.checked(i(100, 200), within: bracket), i(100, 200))
        XCTAssertNil(RunInterval.checked(i(90, 150), within: bracket), "started before the request was sent")
        XCTAssertNil(RunInterval.checked(i(150, 201), within: bracket), "ended after the reply came")
        XCTAssertNil(RunInterval.checked(i(180, 120), within: bracket), "ends before it starts")

        var w = ByteWriter()
        w.u64(120); w.u64(180)
        XCTAssertEqual(WorkerPreparedGraph.interval(w.bytes, within: bracket), i(120, 180))
        XCTAssertNil(WorkerPreparedGraph.interval([], within: bracket), "a reply without stamps proves no overlap")
        XCTAssertNil(WorkerPreparedGraph.interval(Array(w.bytes.prefix(15)), within: bracket))
        XCTAssertNil(WorkerPreparedGraph.interval(w.bytes + [0], within: bracket))
    }

    private let overlapping: [RunInterval?] = [RunInterval(start: 0, end: 10), RunInterval(start: 5, end: 15)]
    private let serial: [RunInterval?] = [RunInterval(start: 0, end: 10), RunInterval(start: 10, end: 15)]

    private func check(_ outcome: ConcurrentRounds.Outcome, file: StaticString = #filePath, line: UInt = #line) -> ConcurrencyCheck? {
        guard case .checked(let c) = outcome else {
            XCTFail("rejected", file: file, line: line)
            return nil
        }
        return c
    }

    func testThreeOverlappingRoundsVerifyWithoutRepeats() {
        var seen: [Int] = []
        let c = check(ConcurrentRounds.run(now: { 0 }) { round in seen.append(round); return .ran(overlapping) })
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertEqual(c, ConcurrencyCheck(state: .verified, rounds: 3, overlappingRounds: 3, mostAtOnce: 2))
    }

    func testARoundThatDidNotOverlapIsRepeated() {
        let c = check(ConcurrentRounds.run(now: { 0 }) { round in .ran(round == 2 ? serial : overlapping) })
        XCTAssertEqual(c, ConcurrencyCheck(state: .verified, rounds: 4, overlappingRounds: 3, mostAtOnce: 2))
    }

    /// Never overlapping: at most `extraRounds` repeats, then unverified, and the verdict says so.
    func testNoOverlapWithinTheBoundIsUnverified() throws {
        var rounds = 0
        let c = try XCTUnwrap(check(ConcurrentRounds.run(now: { 0 }) { _ in rounds += 1; return .ran(serial) }))
        XCTAssertEqual(rounds, ConcurrentRounds.needed + ConcurrentRounds.extraRounds)
        XCTAssertEqual(c, ConcurrencyCheck(state: .unverified, rounds: rounds, overlappingRounds: 0, mostAtOnce: 1))
        XCTAssertTrue(c.description.contains("concurrency unverified: 0 of 9 concurrent rounds overlapped"), c.description)
        XCTAssertTrue(c.description.contains("one at a time"), c.description)
        let unknown = try XCTUnwrap(check(ConcurrentRounds.run(now: { 0 }) { _ in .ran([nil, nil]) }))
        XCTAssertEqual(unknown.state, .unverified, "runs without trusted stamps prove nothing")
    }

    /// Repeats also stop once they have taken `extraSeconds` (a clock the test drives).
    func testRepeatsStopAtTheTimeBound() {
        var clock = 0.0
        let c = check(ConcurrentRounds.run(extraSeconds: 5, now: { clock }) { round in
            if round > 3 { clock += 3 }
            return .ran(round == 1 ? overlapping : serial)
        })
        // Repeats start at 0 s; round 4 ends at 3 s, round 5 at 6 s: no repeat after that.
        XCTAssertEqual(c, ConcurrencyCheck(state: .unverified, rounds: 5, overlappingRounds: 1, mostAtOnce: 2))
    }

    func testAWrongRoundRejectsAtOnce() {
        var rounds = 0
        let outcome = ConcurrentRounds.run(now: { 0 }) { round -> ConcurrentRounds.Round in
            rounds += 1
            return round == 2 ? .rejected(ProbeOutcome(state: .rejected, stage: .repetition, reason: "round 2 differed")) : .ran(serial)
        }
        guard case .rejected(let r) = outcome else { return XCTFail("not rejected") }
        XCTAssertEqual(r.reason, "round 2 differed")
        XCTAssertEqual(rounds, 2)
    }

    /// A thread of a round runs again while another has not finished its first run, within
    /// `limit`; a failed run stops it.
    func testAThreadRepeatsItsRunUntilEveryThreadRan() {
        var runs = 0
        ConcurrentRounds.Progress(threads: 1).repeatUntilEveryThreadRan { runs += 1; return true }
        XCTAssertEqual(runs, 1, "alone: one run")
        runs = 0
        ConcurrentRounds.Progress(threads: 2).repeatUntilEveryThreadRan(limit: 5) { runs += 1; return true }
        XCTAssertEqual(runs, 5, "the other thread never ran: up to the limit")
        runs = 0
        ConcurrentRounds.Progress(threads: 2).repeatUntilEveryThreadRan(limit: 5) { runs += 1; return runs < 2 }
        XCTAssertEqual(runs, 2, "stops at the failed run")
        let shared = ConcurrentRounds.Progress(threads: 2)
        var first = 0, second = 0
        shared.repeatUntilEveryThreadRan(limit: 3) { first += 1; return true }
        shared.repeatUntilEveryThreadRan(limit: 3) { second += 1; return true }
        XCTAssertEqual([first, second], [3, 1], "once both ran, neither repeats")
    }

    func testTheCheckKeepsItsJSONSpelling() throws {
        let c = ConcurrencyCheck(state: .unverified, rounds: 9, overlappingRounds: 0, mostAtOnce: 1)
        let json = try JSONCoding.text(c, pretty: false)
        XCTAssertEqual(json, #"{"most_at_once":1,"overlapping_rounds":0,"rounds":9,"state":"unverified"}"#)
        XCTAssertEqual(try JSONDecoder().decode(ConcurrencyCheck.self, from: Data(json.utf8)), c)
    }
}
