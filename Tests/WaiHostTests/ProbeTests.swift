import Foundation
import XCTest
@testable import WaiHost

/// The exactness probe: its suite, its comparison, and the parent side of out-of-process
/// probing (workers, time limit, cache, ranking). Deliberately wrong C backends are probed
/// in CPluginProbeTests; here the misbehaving worker is a shell script standing in for
/// `waihost probe-worker`, so every way a worker can end is exercised exactly.
final class ProbeTests: XCTestCase {
    override class func tearDown() { HostTestSupport.removeTemporaryDirectories() }

    // MARK: - the suite

    func testStagesInOrder() {
        XCTAssertEqual(ProbeStage.allCases.map(\.rawValue),
                       ["semantics", "arithmetic", "widths", "parameters", "channels", "decode", "repetition", "scale"])
    }

    func testEveryStageBuildsVerifiesAndIsDeterministic() throws {
        for stage in ProbeStage.allCases {
            let cases = try ProbeSuite.cases(stage)
            XCTAssertFalse(cases.isEmpty, "\(stage)")
            XCTAssertEqual(Set(cases.map(\.name)).count, cases.count, "case names are unique in \(stage)")
            for c in cases {
                XCTAssertNoThrow(try CertificateVerifier.verify(c.graph), c.name)
                XCTAssertNoThrow(try checkInputContract(c.graph, c.inputs), c.name)
            }
            let again = try ProbeSuite.cases(stage)
            XCTAssertEqual(again.map(\.graph), cases.map(\.graph), "\(stage) graphs are the same every time")
            XCTAssertEqual(again.map(\.inputs), cases.map(\.inputs), "\(stage) inputs are the same every time")
        }
    }

    func testSemanticsCoversEveryShiftAndEveryIsqrtTarget() throws {
        let names = Set(try ProbeSuite.cases(.semantics).map(\.name))
        for s in 0...31 { XCTAssertTrue(names.contains("requantize_shift_\(s)"), "shift \(s)") }
        XCTAssertTrue(names.contains("isqrt_squares"))
        XCTAssertTrue(names.contains("isqrt_high"))
        // isqrt_high reaches n = 2^31 − 2, the largest its certificate allows.
        let high = try ProbeSuite.cases(.semantics).first { $0.name == "isqrt_high" }!
        let computed = try CertificateVerifier.computeIntervals(high.graph)
        XCTAssertEqual(computed[high.graph.nodes[0].output].hi, 46340 * 46340)
        let y = try ReferenceInterpreter.run(high.graph, inputs: high.inputs)[0]
        XCTAssertTrue(y.values.contains(46340))
        XCTAssertTrue(y.values.contains(44023), "isqrt(44024² − 1)")
        XCTAssertTrue(y.values.contains(-30000), "−isqrt(30001² − 1)")
    }

    func testEveryOpIsProbedAtBothWidths() throws {
        let ops = ["conv2d", "conv_transpose2d", "requantize", "add", "clamp", "depth_to_space", "concat", "lookup", "inverse_gdn"]
        for stage in [ProbeStage.arithmetic, .widths] {
            let cases = try ProbeSuite.cases(stage)
            for op in ops {
                for storage in [Storage.narrow, .wide] {
                    let found = cases.contains { c in
                        c.graph.nodes.contains { n in
                            n.op.name == op && c.graph.tensors[n.inputs[0]].storage == storage
                        }
                    }
                    XCTAssertTrue(found, "\(stage): \(op) with \(storage) input")
                }
            }
        }
    }

    func testWidthsReachTheNarrowBound() throws {
        var reached: Set<Int32> = []
        for c in try ProbeSuite.cases(.widths) {
            let outputs = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)
            for (k, o) in outputs.enumerated() where c.graph.tensors[c.graph.outputs[k]].storage == .narrow {
                reached.formUnion(o.values.filter { $0 == -32768 || $0 == 32767 })
            }
        }
        XCTAssertEqual(reached, [-32768, 32767])
    }

    func testDecodeVectorIsNotDegenerate() throws {
        let c = try ProbeSuite.cases(.decode)[0]
        XCTAssertEqual(c.graph.nodes.filter { $0.op.name == "conv_transpose2d" }.count, 4)
        XCTAssertEqual(c.graph.nodes.filter { $0.op.name == "inverse_gdn" }.count, 3)
        let rgb = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)[0]
        XCTAssertEqual(rgb.shape, Shape(3, 64, 64))
        XCTAssertGreaterThan(Set(rgb.values).count, 64, "a decode whose pixels take few values tests little")
    }

    /// docs/probe.md `decode`: the stage ends with a whole int_hyper decode, whose two graph
    /// runs reproduce the reference decode of the built-in payload.
    func testDecodeStageEndsWithAWholeIntHyperDecode() throws {
        let cases = try ProbeSuite.cases(.decode)
        XCTAssertEqual(cases.map(\.name).suffix(2), ["int_hyper_h_s", "int_hyper_g_s"])
        let vector = try IntHyperProbeVector.shared()
        let decoded = try IntHyperDecoder(modelSet: vector.modelSet)
            .decode(try IntHyperPayload.parse(vector.payload), runner: HostGraphRunner.reference())
        XCTAssertEqual(decoded.image.sha256, vector.decodeSHA256)
        XCTAssertEqual(cases[1].inputs, [decoded.z])
        XCTAssertEqual(cases[2].inputs, [decoded.y])
    }

    // MARK: - the comparison

    func testReferenceAgainstItselfIsAccepted() throws {
        let outcome = try ExactnessProbe.run { g, inputs in try ReferenceInterpreter.run(g, inputs: inputs) }
        XCTAssertEqual(outcome.state, .accepted, outcome.reason)
        XCTAssertNil(outcome.mismatch)
    }

    func testFirstMismatchNamesStageGraphOpTensorAndPosition() throws {
        // A unit that gets the last element of every inverse_gdn output wrong by one.
        let outcome = try ExactnessProbe.run { g, inputs in
            var out = try ReferenceInterpreter.run(g, inputs: inputs)
            for (k, t) in g.outputs.enumerated() where g.nodes.contains(where: { $0.output == t && $0.op.name == "inverse_gdn" }) {
                out[k].values[out[k].values.count - 1] &+= 1
            }
            return out
        }
        XCTAssertEqual(outcome.state, .rejected)
        let m = try XCTUnwrap(outcome.mismatch)
        XCTAssertEqual(m.stage, "semantics")
        XCTAssertEqual(m.graph, "narrow_sign_extension")
        XCTAssertEqual(m.op, "inverse_gdn")
        XCTAssertEqual(m.tensor, "gdn_narrow")
        let c = try ProbeSuite.cases(.semantics).first { $0.name == "narrow_sign_extension" }!
        let shape = c.graph.tensors[c.graph.nodes[m.node].output].shape
        XCTAssertEqual(m.index, shape.count - 1)
        XCTAssertEqual([m.channel, m.y, m.x], [shape.channels - 1, shape.height - 1, shape.width - 1])
        XCTAssertEqual(m.got, m.expected &+ 1)
        XCTAssertEqual(outcome.stage, "semantics")
        XCTAssertTrue(outcome.reason.contains("inverse_gdn"), outcome.reason)
        XCTAssertTrue(outcome.reason.contains("expected \(m.expected), got \(m.got)"), outcome.reason)
    }

    func testABackendErrorRejectsWithItsMessage() throws {
        struct Refusal: Error, CustomStringConvertible { var description: String { "graph_run failed (unsupported): no lookup here" } }
        var calls = 0
        let outcome = try ExactnessProbe.run { _, _ in calls += 1; throw Refusal() }
        XCTAssertEqual(calls, 1, "the first refusal ends the probe")
        XCTAssertEqual(outcome.state, .rejected)
        XCTAssertEqual(outcome.stage, "semantics")
        XCTAssertTrue(outcome.reason.contains("no lookup here"), outcome.reason)
        XCTAssertTrue(outcome.reason.contains("requantize_shift_0"), outcome.reason)
    }

    func testDecodeDifferenceIsTracedToTheOpThatCausedIt() throws {
        // Exact on every small graph; in a synthesis, the third transposed conv's first
        // bias is off. The decode runs observing only its output, then again to locate.
        let outcome = try ExactnessProbe.run { g, inputs in
            var h = g
            let convs = h.nodes.indices.filter { h.nodes[$0].op.name == "conv_transpose2d" }
            if convs.count == 4, case .convTranspose2d(var p) = h.nodes[convs[2]].op {
                p.bias[0] += 100_000
                h.nodes[convs[2]].op = .convTranspose2d(p)
                let iv = h.tensors[h.nodes[convs[2]].output].interval
                h.tensors[h.nodes[convs[2]].output].interval = Interval(lo: iv.lo, hi: iv.hi + 100_000)
            }
            return try ReferenceInterpreter.run(h, inputs: inputs)
        }
        XCTAssertEqual(outcome.state, .rejected)
        let m = try XCTUnwrap(outcome.mismatch)
        XCTAssertEqual(m.stage, "decode")
        XCTAssertEqual(m.op, "conv_transpose2d")
        XCTAssertEqual(m.tensor, "synthesis_2")
        XCTAssertEqual(m.channel, 0)
        XCTAssertEqual(m.got, m.expected + 100_000)
    }

    // MARK: - workers, stand-ins

    /// A folder with one file named like a plugin (its bytes are hashed, never loaded: the
    /// stand-in worker does the "loading") and a stand-in worker script. `body` is shell
    /// for the `probe-worker PLUGIN UNIT` request; the log records every invocation.
    struct StandIn {
        var plugins: String
        var cache: String
        var log: String
        var script: String

        init(units: Int = 1, probe body: String, list: String? = nil, speed: String? = nil) throws {
            plugins = try HostTestSupport.temporaryDirectory("standin-plugins")
            cache = try HostTestSupport.temporaryDirectory("standin-cache")
            log = cache + "/../" + URL(fileURLWithPath: cache).lastPathComponent + ".log"
            try "fake plugin bytes".write(toFile: plugins + "/libFake.so", atomically: true, encoding: .utf8)
            let unitJSON = (0..<units).map {
                "{\"index\":\($0),\"kind\":\"cpu\",\"device\":\"fake device \($0)\",\"driver\":\"fake 1\",\"narrowStorage\":true}"
            }.joined(separator: ",")
            let listReply = list ?? "echo '{\"protocol\":1,\"name\":\"fake\",\"version\":\"9\",\"units\":[\(unitJSON)]}'"
            script = plugins + "/../" + URL(fileURLWithPath: plugins).lastPathComponent + "-worker.sh"
            let text = """
                #!/bin/sh
                echo "$*" >> '\(log)'
                shift
                if [ "$1" = "--list" ]; then
                \(listReply)
                exit 0
                fi
                if [ "$1" = "--speed" ]; then
                \(speed ?? "echo \"{\\\"protocol\\\":1,\\\"speed\\\":{\\\"runs_per_second\\\":$((10 + 10 * $3)),\\\"median_ms\\\":1,\\\"runs\\\":3,\\\"graph\\\":\\\"g\\\"}}\"")
                exit 0
                fi
                \(body)
                """
            try text.write(toFile: script, atomically: true, encoding: .utf8)
            chmod(script, 0o755)
        }

        func configuration(timeout: Double = 20) -> HostConfiguration {
            HostTestSupport.configuration(plugins: [plugins], cache: cache, prober: script, timeout: timeout)
        }

        func invocations() -> [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        static let accept = "echo '{\"protocol\":1,\"outcome\":{\"state\":\"accepted\",\"reason\":\"exact\"}}'"
    }

    func probe(_ s: StandIn, fresh: Bool = false, timeout: Double = 20) throws -> ProbeResult {
        try BackendHost(configuration: s.configuration(timeout: timeout)).probe(fresh: fresh)
    }

    func testCrashIsRejectedWithSignalAndStage() throws {
        let s = try StandIn(probe: "echo 'stage semantics' >&2\necho 'stage arithmetic' >&2\nkill -SEGV $$")
        let row = try XCTUnwrap(try probe(s).units.first)
        XCTAssertEqual(row.state, .rejected)
        XCTAssertEqual(row.stage, "arithmetic")
        XCTAssertEqual(row.reason, "crashed: signal 11 (SIGSEGV) during stage arithmetic")
        XCTAssertNil(row.rank)
    }

    func testHangIsKilledAtTheTimeLimitAndRejected() throws {
        let s = try StandIn(probe: "echo 'stage widths' >&2\nsleep 60")
        let row = try XCTUnwrap(try probe(s, timeout: 1).units.first)
        XCTAssertEqual(row.state, .rejected)
        XCTAssertEqual(row.stage, "widths")
        XCTAssertEqual(row.reason, "timed out after 1s during stage widths")
    }

    func testGarbageAndExitStatusAreReasonsToo() throws {
        let garbage = try StandIn(probe: "echo 'stage decode' >&2\necho 'hello there'")
        let g = try XCTUnwrap(try probe(garbage).units.first)
        XCTAssertEqual(g.state, .rejected)
        XCTAssertEqual(g.stage, "decode")
        XCTAssertTrue(g.reason.hasPrefix("probe worker gave no valid reply during stage decode"), g.reason)
        XCTAssertTrue(g.reason.contains("hello there"), g.reason)

        let status = try StandIn(probe: "echo 'plugin says goodbye' >&2\nexit 3")
        let e = try XCTUnwrap(try probe(status).units.first)
        XCTAssertEqual(e.state, .rejected)
        XCTAssertTrue(e.reason.hasPrefix("probe worker exited with status 3 while loading"), e.reason)
        XCTAssertTrue(e.reason.contains("plugin says goodbye"), e.reason)
    }

    func testListingFailuresAreFailedRows() throws {
        let crash = try StandIn(probe: StandIn.accept, list: "kill -SEGV $$")
        let row = try XCTUnwrap(try probe(crash).units.first)
        XCTAssertEqual(row.state, .failed)
        XCTAssertEqual(row.backend, "libFake.so")
        XCTAssertEqual(row.unit, "unknown")
        XCTAssertEqual(row.reason, "crashed: signal 11 (SIGSEGV) while loading")

        let refused = try StandIn(probe: StandIn.accept,
                                  list: "echo '{\"protocol\":1,\"error\":\"x.so: refused ABI negotiation (abi_mismatch): speaks 2.0\"}'")
        let r = try XCTUnwrap(try probe(refused).units.first)
        XCTAssertEqual(r.state, .failed)
        XCTAssertTrue(r.reason.contains("abi_mismatch"), r.reason)
    }

    func testMissingProberFailsEveryPluginAndUnreadableFolderIsARow() throws {
        let s = try StandIn(probe: StandIn.accept)
        var c = s.configuration()
        c.proberExecutable = nil
        c.pluginDirectories.append(s.plugins + "/missing")
        let result = try BackendHost(configuration: c).probe()
        XCTAssertEqual(result.units.map(\.state), [.failed, .failed])
        XCTAssertTrue(result.units[0].reason.contains("cannot be read"), result.units[0].reason)
        XCTAssertTrue(result.units[1].reason.contains("no probe worker"), result.units[1].reason)

        c.proberExecutable = s.plugins + "/no-such-worker"
        c.pluginDirectories.removeLast()
        let r = try XCTUnwrap(try BackendHost(configuration: c).probe().units.first)
        XCTAssertEqual(r.state, .failed)
        XCTAssertTrue(r.reason.contains("could not be started"), r.reason)
    }

    func testAcceptedUnitsAreRankedBySpeed() throws {
        let s = try StandIn(units: 3, probe: StandIn.accept)
        let result = try probe(s)
        XCTAssertEqual(result.units.map(\.state), [.accepted, .accepted, .accepted])
        // The stand-in's unit i runs 10 + 10·i times a second.
        XCTAssertEqual(result.units.map(\.rank), [3, 2, 1])
        XCTAssertEqual(result.units.map { $0.speed?.runsPerSecond }, [10, 20, 30])
        XCTAssertEqual(result.accepted.map(\.selector), ["fake:2", "fake:1", "fake:0"])
    }

    func testACrashWhileTimedRejectsAtStageCalibration() throws {
        let s = try StandIn(probe: StandIn.accept, speed: "echo 'stage calibration' >&2\nkill -BUS $$")
        let row = try XCTUnwrap(try probe(s).units.first)
        XCTAssertEqual(row.state, .rejected)
        XCTAssertEqual(row.stage, "calibration")
        XCTAssertEqual(row.reason, "crashed: signal 7 (SIGBUS) during stage calibration")
        XCTAssertNil(row.rank)
        XCTAssertNil(row.speed)

        let refused = try StandIn(probe: StandIn.accept, speed: "echo '{\"protocol\":1,\"error\":\"out of device memory\"}'")
        let r = try XCTUnwrap(try probe(refused).units.first)
        XCTAssertEqual(r.state, .rejected)
        XCTAssertEqual(r.reason, "stage calibration: the calibration graph failed: out of device memory")
    }

    // MARK: - cache

    func testCacheHitSkipsProbeWorkersAndFreshIgnoresIt() throws {
        let s = try StandIn(units: 2, probe: StandIn.accept)
        let cold = try probe(s)
        XCTAssertEqual(cold.units.map(\.cached), [false, false])
        XCTAssertEqual(s.invocations().filter { !$0.contains("--list") }.count, 4, "two probes, two timings")

        let warm = try probe(s)
        XCTAssertEqual(warm.units.map(\.cached), [true, true])
        XCTAssertEqual(warm.units.map(\.rank), cold.units.map(\.rank))
        XCTAssertEqual(warm.units.map(\.speed), cold.units.map(\.speed))
        XCTAssertEqual(s.invocations().count, 6, "a warm probe only lists")
        XCTAssertTrue(s.invocations().last!.contains("--list"))

        let fresh = try probe(s, fresh: true)
        XCTAssertEqual(fresh.units.map(\.cached), [false, false])
        XCTAssertEqual(s.invocations().count, 11)
    }

    func testCacheKeyFollowsPluginContentNotItsTimestamp() throws {
        let s = try StandIn(probe: StandIn.accept)
        _ = try probe(s)
        let plugin = s.plugins + "/libFake.so"
        // Same bytes, new mtime: still a hit.
        try "fake plugin bytes".write(toFile: plugin, atomically: true, encoding: .utf8)
        XCTAssertEqual(try probe(s).units.first?.cached, true)
        // New bytes: a miss.
        try "other plugin bytes".write(toFile: plugin, atomically: true, encoding: .utf8)
        XCTAssertEqual(try probe(s).units.first?.cached, false)
    }

    func testCorruptCacheIsIgnoredWithAWarningAndRewritten() throws {
        let s = try StandIn(probe: StandIn.accept)
        try FileManager.default.createDirectory(atPath: s.cache, withIntermediateDirectories: true)
        try "{ this is not json".write(toFile: s.cache + "/" + ProbeCache.fileName, atomically: true, encoding: .utf8)
        let first = try probe(s)
        XCTAssertEqual(first.units.first?.state, .accepted)
        XCTAssertEqual(first.units.first?.cached, false)
        XCTAssertEqual(first.warnings.count, 1)
        XCTAssertTrue(first.warnings[0].contains("corrupt"), first.warnings[0])
        let second = try probe(s)
        XCTAssertEqual(second.units.first?.cached, true)
        XCTAssertEqual(second.warnings, [])
    }

    func testRejectionsAreCachedToo() throws {
        let s = try StandIn(probe: "echo 'stage semantics' >&2\nkill -SEGV $$")
        XCTAssertEqual(try probe(s).units.first?.cached, false)
        let warm = try XCTUnwrap(try probe(s).units.first)
        XCTAssertEqual(warm.cached, true)
        XCTAssertEqual(warm.state, .rejected)
        XCTAssertEqual(warm.reason, "crashed: signal 11 (SIGSEGV) during stage semantics")
    }

    // MARK: - the real CPU plugin, through the real worker

    func testCPUPluginIsAcceptedRankedAndCached() throws {
        let dir = try HostTestSupport.folderWithCPUPlugin("cpu-probe")
        let cache = try HostTestSupport.temporaryDirectory("cpu-cache")
        let host = BackendHost(configuration: HostTestSupport.configuration(plugins: [dir], cache: cache))
        var stages: [String] = []
        let cold = try host.probe(progress: { line in
            if let r = line.range(of: "stage ") { stages.append(String(line[r.upperBound...])) }
        })
        XCTAssertEqual(cold.units.count, 1)
        let row = cold.units[0]
        XCTAssertEqual(row.state, .accepted, row.reason)
        XCTAssertEqual(row.backend, "cpu")
        XCTAssertEqual(row.unit, "cpu")
        XCTAssertEqual(row.index, 0)
        XCTAssertEqual(row.rank, 1)
        XCTAssertFalse(row.cached)
        let speed = try XCTUnwrap(row.speed)
        XCTAssertGreaterThan(speed.runsPerSecond, 0)
        XCTAssertGreaterThanOrEqual(speed.runs, 3)
        XCTAssertEqual(stages, ProbeStage.allCases.map(\.rawValue))

        let warm = try BackendHost(configuration: HostTestSupport.configuration(plugins: [dir], cache: cache)).probe()
        XCTAssertEqual(warm.units.map(\.cached), [true])
        XCTAssertEqual(warm.units.map(\.rank), [1])
        XCTAssertEqual(warm.units.map(\.speed), [speed])
    }

    func testDroppingAPluginInMakesItAppearAndRemovingItMakesItDisappear() throws {
        let dir = try HostTestSupport.temporaryDirectory("dropin")
        let cache = try HostTestSupport.temporaryDirectory("dropin-cache")
        let config = HostTestSupport.configuration(plugins: [dir], cache: cache)
        XCTAssertEqual(try BackendHost(configuration: config).probe().units.count, 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/libWaiCPUBackend.so",
                                                   withDestinationPath: try HostTestSupport.cpuPlugin())
        XCTAssertEqual(try BackendHost(configuration: config).probe().units.map(\.selector), ["cpu:0"])
        try FileManager.default.removeItem(atPath: dir + "/libWaiCPUBackend.so")
        XCTAssertEqual(try BackendHost(configuration: config).probe().units.count, 0)
    }
}
