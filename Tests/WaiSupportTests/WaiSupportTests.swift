import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import WaiSupport

/// The support module every other module relies on: the lock excludes, hex keeps its one
/// spelling, JSON is written one way.
final class WaiSupportTests: XCTestCase {
    func testMutexExcludesConcurrentWriters() {
        final class Counter: @unchecked Sendable { let lock = Mutex(); var n = 0 }
        let c = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { c.lock.withLock { c.n += 1 } }
        }
        XCTAssertEqual(c.lock.withLock { c.n }, 80_000)
    }

    func testMutexRethrowsAndUnlocks() {
        struct Boom: Error {}
        let lock = Mutex()
        XCTAssertThrowsError(try lock.withLock { throw Boom() })
        XCTAssertEqual(lock.withLock { 7 }, 7, "the lock was left held after the throw")
    }

    func testMedianIsTheMiddleOrTheMeanOfTheTwoMiddle() {
        XCTAssertEqual([3.0, 1.0, 2.0].median, 2.0)
        XCTAssertEqual([4.0, 1.0, 3.0, 2.0].median, 2.5, "an even count takes the mean of the two middle values")
        XCTAssertEqual([9.0, 1.0, 1.0, 1.0, 100.0].median, 1.0, "one slow run does not move it")
        XCTAssertNil([Double]().median)
    }

    func testParallelMapKeepsItemOrderAndRunsEveryItemOnce() {
        let items = Array(0..<1000)
        final class Seen: @unchecked Sendable { let lock = Mutex(); var calls = 0 }
        let seen = Seen()
        let out = parallelMap(items, width: 4) { i -> Int in
            seen.lock.withLock { seen.calls += 1 }
            if i % 97 == 0 { usleep(200) }  // uneven items: later ones finish first
            return i * i
        }
        XCTAssertEqual(out, items.map { $0 * $0 })
        XCTAssertEqual(seen.lock.withLock { seen.calls }, items.count)
        XCTAssertEqual(parallelMap([5], width: 4) { $0 + 1 }, [6])
        XCTAssertEqual(parallelMap([Int](), width: 4) { $0 + 1 }, [])
        XCTAssertEqual(parallelMap(items, width: 1) { $0 }, items)
        XCTAssertGreaterThanOrEqual(onlineCoreCount(), 1)
    }

    func testHexIsLowercaseAndRefusesAnythingElse() {
        XCTAssertEqual(Hex.encode([0x00, 0x0f, 0xa5, 0xff]), "000fa5ff")
        XCTAssertEqual(Hex.decode("000fa5ff"), [0x00, 0x0f, 0xa5, 0xff])
        XCTAssertNil(Hex.decode("ABCD"), "uppercase is not the canonical spelling")
        XCTAssertNil(Hex.decode("abc"), "odd length")
        XCTAssertNil(Hex.decode("zz"))
        XCTAssertEqual(Hex.spaced([0x57, 0x41, 0x49, 0x31, 0x07]), "57 41 49 31 07")
        XCTAssertEqual(Hex.spaced([]), "")
    }

    func testJSONIsSortedWithSlashesAsThemselves() throws {
        struct V: Encodable { var zeta = 1; var alpha = "a/b" }
        XCTAssertEqual(try JSONCoding.text(V(), pretty: false), #"{"alpha":"a/b","zeta":1}"#)
        XCTAssertEqual(try JSONCoding.text(V()), "{\n  \"alpha\" : \"a/b\",\n  \"zeta\" : 1\n}")
    }

    func testQuotedEscapesQuotesBackslashesAndControls() {
        XCTAssertEqual(JSONCoding.quoted("plain é"), "\"plain é\"")
        XCTAssertEqual(JSONCoding.quoted("a\"b\\c"), #""a\"b\\c""#)
        XCTAssertEqual(JSONCoding.quoted("\n\r\t\u{01}\u{1f}"), #""\n\r\t\u0001\u001f""#)
    }

    func testStopwatchReturnsTheValueAndAnElapsedTime() {
        let before = monotonicSeconds()
        let (v, ms) = Stopwatch.time { 41 + 1 }
        XCTAssertEqual(v, 42)
        XCTAssertGreaterThanOrEqual(ms, 0)
        XCTAssertGreaterThanOrEqual(monotonicSeconds(), before, "the monotonic clock went back")
        XCTAssertGreaterThan(wallClockMilliseconds(), 1_600_000_000_000, "wall clock before 2020")
        XCTAssertEqual(wallClockNanoseconds() / 1_000_000_000, Int64(wallClockSeconds()), accuracy: 2)
        // The nanosecond monotonic clock is the same clock as the seconds one.
        let ns = monotonicNanoseconds()
        XCTAssertEqual(Double(ns) / 1e9, monotonicSeconds(), accuracy: 2)
        XCTAssertGreaterThanOrEqual(monotonicNanoseconds(), ns, "the monotonic clock went back")
    }
}
