import Foundation
import XCTest
import TestSupport
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The unit worker's channel (docs/probe.md §3): concurrent runs of distinct prepared graphs
/// through one worker, message headers, and the bounded log.
final class WorkerChannelTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeAll()
        super.tearDown()
    }

    /// ABI §8: distinct prepared graphs may run at once; each goes out on its own channel.
    func testDistinctPreparedGraphsRunConcurrentlyThroughOneWorker() throws {
        let path = try CPluginBuilder.shared.plugin(.good)
        let worker = WorkerPool(executable: HostTestSupport.unitWorker).worker(for: path, sha256: nil)
        let unit = WorkerUnit(worker: worker, unit: 0, timeout: 300)
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let cases: [[TensorValue]] = (0..<3).map { k in
            [TensorValue(shape: inputs[0].shape, values: inputs[0].values.map { ($0 + Int32(17 * k)) % 300 })]
        }
        let expected = try cases.map { try ReferenceInterpreter.run(graph, inputs: $0) }
        let prepared = try cases.map { _ in try unit.prepare(graph) }
        let results = Locked([[Result<[TensorValue], Error>]](repeating: [], count: cases.count))
        DispatchQueue.concurrentPerform(iterations: cases.count) { k in
            for _ in 0..<5 {
                let r = Result { try prepared[k].run(cases[k]) }
                results.update { $0[k].append(r) }
            }
        }
        for k in cases.indices {
            XCTAssertEqual(results.value[k].count, 5)
            for r in results.value[k] { XCTAssertEqual(try r.get(), expected[k], "graph \(k)") }
        }
        XCTAssertEqual(worker.startCount, 1, "one worker served them all")
    }

    /// A run's reply carries when graph_run ran, inside the host's own bracket of the request
    /// (what the probe's concurrent rounds compare, docs/probe.md §3 "Concurrent runs").
    func testARunThroughTheWorkerSaysWhenThePluginRanIt() throws {
        let path = try CPluginBuilder.shared.plugin(.good)
        let unit = WorkerUnit(worker: WorkerPool(executable: HostTestSupport.unitWorker).worker(for: path, sha256: nil),
                              unit: 0, timeout: 300)
        let (graph, inputs) = try HostTestSupport.smallGraph()
        let prepared = try unit.prepare(graph)
        let before = monotonicNanoseconds()
        let timed = try prepared.timedRun(inputs)
        let after = monotonicNanoseconds()
        XCTAssertEqual(timed.outputs, try ReferenceInterpreter.run(graph, inputs: inputs))
        let interval = try XCTUnwrap(timed.interval, "the worker's stamps were refused")
        XCTAssertLessThanOrEqual(before, interval.start)
        XCTAssertLessThanOrEqual(interval.start, interval.end)
        XCTAssertLessThanOrEqual(interval.end, after)
    }

    func testHeadersRoundTripAndAnythingElseIsRefused() {
        let h = WorkerWire.Header(kind: .run, length: 4, tag: 77)
        XCTAssertEqual(WorkerWire.Header(h.bytes), h)
        var wrongMagic = h.bytes
        wrongMagic[0] ^= 1
        XCTAssertNil(WorkerWire.Header(wrongMagic))
        var wrongVersion = h.bytes
        wrongVersion[4] = 9
        XCTAssertNil(WorkerWire.Header(wrongVersion))
        XCTAssertNil(WorkerWire.Header(Array("{\"protocol\":1,\"outcome\"".utf8.prefix(16))))
        XCTAssertNil(WorkerWire.Header(Array(h.bytes.prefix(15))))
    }

    /// A plugin that prints megabytes keeps only the last 64 KiB in the host.
    func testTheLogKeepsOnlyItsTail() {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        let log = WorkerLog(fd: fds[0])
        let line = Array(String(repeating: "x", count: 99).utf8) + [10]
        for _ in 0..<3000 { line.withUnsafeBytes { _ = write(fds[1], $0.baseAddress, $0.count) } }
        let last = Array("the last line\n".utf8)
        last.withUnsafeBytes { _ = write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        log.waitForEnd(seconds: 30)
        XCTAssertLessThanOrEqual(log.text.utf8.count, 64 << 10)
        XCTAssertEqual(log.lastLines(1), ["the last line"])
    }
}
