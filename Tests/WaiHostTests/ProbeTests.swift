import Foundation
import XCTest
import TestSupport
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The exactness probe: its suite, its comparison, ranking, timing and the cache.
/// Deliberately wrong C backends are probed in CPluginProbeTests, and the ways a unit
/// worker can end in WorkerIsolationTests.
final class ProbeTests: XCTestCase {
    override class func tearDown() {
        HostTestSupport.removeTemporaryDirectories()
        CPluginBuilder.shared.removeAll()
    }

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
        let ops = ["conv2d", "conv_transpose2d", "requantize", "add", "clamp", "depth_to_space", "concat", "lookup", "inverse_gdn", "warp"]
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
        XCTAssertEqual(cases[cases.count - 2].inputs, [decoded.z])
        XCTAssertEqual(cases[cases.count - 1].inputs, [decoded.y])
    }

    /// docs/probe.md `decode`: a whole int_motion P-frame before int_hyper's decode — both
    /// h_s runs and p_synth, with the inputs the host's own decode of the built-in two-frame
    /// payload gives them, reproducing its P-frame; p_synth is repeated.
    func testDecodeStageHoldsAWholeIntMotionPFrame() throws {
        let cases = try ProbeSuite.cases(.decode)
        let names = cases.map(\.name)
        XCTAssertEqual(Array(names.suffix(5)), ["int_motion_motion_h_s", "int_motion_residual_h_s", "int_motion_p_synth",
                                                "int_hyper_h_s", "int_hyper_g_s"])
        let vector = try IntMotionProbeVector.shared()
        let pSynth = try XCTUnwrap(cases.first { $0.name == "int_motion_p_synth" })
        XCTAssertTrue(pSynth.repeated)
        XCTAssertEqual(pSynth.graph.inputs.count, 3, "ref, y_m, y_r")
        XCTAssertTrue(pSynth.graph.nodes.contains { $0.op.name == "warp" })
        let out = try ReferenceInterpreter.run(pSynth.graph, inputs: pSynth.inputs)
        let frame = try VideoIntMotionCodec.frameImage(out, width: IntMotionProbeVector.width, height: IntMotionProbeVector.height)
        XCTAssertEqual(frame.sha256, vector.pFrameSHA256)
        var shas: [String] = []
        try VideoIntMotionCodec.decode(try VideoIntMotionCodec.open(vector.payload), intraSet: try IntHyperProbeVector.shared().modelSet,
                                       motionSet: vector.motionSet, runner: HostGraphRunner.reference()) { shas.append($0.frame.image.sha256) }
        XCTAssertEqual(shas.count, 2)
        XCTAssertEqual(shas[1], vector.pFrameSHA256)
        XCTAssertNotEqual(shas[0], shas[1], "a P-frame that repeats its reference tests little")
    }

    /// docs/probe.md `decode`: a whole int_cond P-frame before int_motion's — cond_context,
    /// cond_prior and cond_synth with the inputs the host's own decode of the built-in
    /// two-frame payload gives them, reproducing its P-frame; the prior's scales and the
    /// synthesis read the context the first run made.
    func testDecodeStageHoldsAWholeIntCondPFrame() throws {
        let cases = try ProbeSuite.cases(.decode)
        let names = cases.map(\.name)
        let first = try XCTUnwrap(names.firstIndex(of: "int_cond_context"))
        XCTAssertEqual(Array(names[first..<(first + 4)]), ["int_cond_context", "int_cond_prior", "int_cond_synth", "int_motion_motion_h_s"])
        let vector = try IntCondProbeVector.shared()
        let run = { (k: Int) in try ReferenceInterpreter.run(cases[first + k].graph, inputs: cases[first + k].inputs) }
        let context = try run(0)[0]
        XCTAssertEqual(cases[first + 1].inputs[0], context, "cond_prior reads cond_context's output")
        XCTAssertEqual(cases[first + 2].inputs[0], context, "cond_synth reads it too")
        XCTAssertTrue(cases[first + 2].graph.nodes.contains { $0.op.name == "depth_to_space" })
        let frame = try VideoIntMotionCodec.frameImage(try run(2), width: IntCondProbeVector.width, height: IntCondProbeVector.height)
        XCTAssertEqual(frame.sha256, vector.pFrameSHA256)
        var shas: [String] = []
        try VideoIntCondCodec.decode(try VideoIntCondCodec.open(vector.payload), intraSet: try IntHyperProbeVector.shared().modelSet,
                                     condSet: vector.condSet, runner: HostGraphRunner.reference()) { shas.append($0.frame.image.sha256) }
        XCTAssertEqual(shas, [try XCTUnwrap(shas.first), vector.pFrameSHA256])
    }

    /// docs/probe.md `decode`: the scale-space prediction chains the blur convs, requantize,
    /// concat, a conv-made flow, the warp, add and clamp, observes only its frame, and its
    /// flow reaches every clamp of the warp: blends on every axis, both scale ends.
    func testDecodeStageHoldsAScaleSpacePrediction() throws {
        let c = try XCTUnwrap(try ProbeSuite.cases(.decode).first { $0.name == "ssf_prediction_small" })
        XCTAssertEqual(c.graph.nodes.map(\.op.name),
                       ["conv2d", "requantize", "conv2d", "requantize", "concat", "conv2d", "requantize", "warp", "add", "clamp"])
        XCTAssertEqual(c.graph.outputs.count, 1, "compared whole, as a decode")
        XCTAssertTrue(c.repeated)
        var observed = c.graph
        observed.outputs = observed.nodes.map(\.output)
        let all = try ReferenceInterpreter.run(observed, inputs: c.inputs)
        let flow = all[6].values, plane = WarpDecodeVector.height * WarpDecodeVector.width
        let e = Int32(1) << WarpDecodeVector.fracBits
        let ds = flow[(2 * plane)...]
        XCTAssertTrue(ds.contains { $0 < 0 }, "a scale coordinate below scale 0")
        XCTAssertTrue(ds.contains { $0 > 2 * e }, "a scale coordinate past the last scale")
        XCTAssertTrue(ds.contains { $0 > 0 && $0 < 2 * e && $0 % e != 0 }, "a blend of two scales")
        XCTAssertTrue(flow[..<plane].contains { $0 < 0 && $0 % e != 0 }, "a negative fractional dx")
        XCTAssertGreaterThan(Set(all.last?.values ?? []).count, 128, "a frame whose pixels take few values tests little")
    }

    /// docs/probe.md §1: the warp is in every stage but `parameters` (requantize's
    /// multipliers), and repeated in `repetition`.
    func testTheWarpIsInEveryStage() throws {
        for stage in ProbeStage.allCases where stage != .parameters {
            let cases = try ProbeSuite.cases(stage)
            XCTAssertTrue(cases.contains { $0.graph.nodes.contains { $0.op.name == "warp" } }, "\(stage)")
        }
        XCTAssertEqual(Set(try ProbeSuite.cases(.repetition).map(\.name))
                        .intersection(["warp_c33_s4", "warp_wide_strip", "ssf_prediction_small"]).count, 3)
        let channels = try ProbeSuite.cases(.channels).compactMap { c -> (Int, Int)? in
            guard let n = c.graph.nodes.first, case .warp(let p) = n.op else { return nil }
            return (c.graph.tensors[n.output].shape.channels, p.scales)
        }
        XCTAssertTrue(channels.contains { $0.0 % 2 == 1 && $0.1 == 1 } && channels.contains { $0.0 % 2 == 1 && $0.1 > 2 },
                      "odd channel counts with one and several scales")
        let widths = try ProbeSuite.cases(.widths).flatMap { c in c.graph.nodes.compactMap { n -> Int? in
            if case .warp(let p) = n.op { return p.fracBits } else { return nil } } }
        XCTAssertEqual(Set(widths), Set([0, 1, 2, 3, 4, 5, 6, 7, 10]))
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
        XCTAssertEqual(m.stage, .semantics)
        XCTAssertEqual(m.graph, "narrow_sign_extension")
        XCTAssertEqual(m.op, .op(.inverseGDN))
        XCTAssertEqual(m.tensor, "gdn_narrow")
        let c = try ProbeSuite.cases(.semantics).first { $0.name == "narrow_sign_extension" }!
        let shape = c.graph.tensors[c.graph.nodes[m.node].output].shape
        XCTAssertEqual(m.index, shape.count - 1)
        XCTAssertEqual([m.channel, m.y, m.x], [shape.channels - 1, shape.height - 1, shape.width - 1])
        XCTAssertEqual(m.got, m.expected &+ 1)
        XCTAssertEqual(outcome.stage, .semantics)
        XCTAssertTrue(outcome.reason.contains("inverse_gdn"), outcome.reason)
        XCTAssertTrue(outcome.reason.contains("expected \(m.expected), got \(m.got)"), outcome.reason)
    }

    func testABackendErrorRejectsWithItsMessage() throws {
        struct Refusal: Error, CustomStringConvertible { var description: String { "graph_run failed (unsupported): no lookup here" } }
        var calls = 0
        let outcome = try ExactnessProbe.run { _, _ in calls += 1; throw Refusal() }
        XCTAssertEqual(calls, 1, "the first refusal ends the probe")
        XCTAssertEqual(outcome.state, .rejected)
        XCTAssertEqual(outcome.stage, .semantics)
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
        XCTAssertEqual(m.stage, .decode)
        XCTAssertEqual(m.op, .op(.convTranspose2d))
        XCTAssertEqual(m.tensor, "synthesis_2")
        XCTAssertEqual(m.channel, 0)
        XCTAssertEqual(m.got, m.expected + 100_000)
    }

    // MARK: - ranking and timing, in the host

    func testAcceptedUnitsAreRankedBySpeed() {
        func row(_ i: Int, _ state: ProbeState, _ speed: Double?) -> UnitProbeRecord {
            UnitProbeRecord(backend: "fake", path: "/p", device: "d\(i)", unit: .cpu, index: i, driver: "1", state: state,
                            reason: "", speed: speed.map { ProbeSpeed(runsPerSecond: $0, medianMilliseconds: 1000 / $0, runs: 3, graph: "g") })
        }
        var rows = [row(0, .accepted, 10), row(1, .accepted, 20), row(2, .rejected, 1000), row(3, .accepted, 30)]
        ProbeRunner.rank(&rows)
        XCTAssertEqual(rows.map(\.rank), [3, 2, nil, 1])
        XCTAssertEqual(ProbeResult(units: rows).accepted.map(\.selector), ["fake:3", "fake:1", "fake:0"])
    }

    /// Every timed run is compared with the reference: fast and wrong is rejected.
    func testTimingChecksEveryRunAgainstTheReference() throws {
        let c = try ProbeSuite.calibration()
        let expected = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)
        let exact = ClosureUnit { _, _ in expected }
        let speed = try WorkerTiming.measure(exact, c, expected: expected)
        XCTAssertGreaterThanOrEqual(speed.runs, 3)
        XCTAssertEqual(speed.graph, c.name)
        // A unit whose warm-up alone takes the whole budget is timed on one run.
        let slow = ClosureUnit { _, _ in usleep(UInt32(WorkerTiming.budget * 1.2e6)); return expected }
        XCTAssertEqual(try WorkerTiming.measure(slow, c, expected: expected).runs, 1)

        let runs = Locked(0)
        let wrongLater = ClosureUnit { _, _ in
            var out = expected
            if runs.next() >= 3 { out[0].values[5] &+= 1 }   // right while warming up, wrong once timed
            return out
        }
        XCTAssertThrowsError(try WorkerTiming.measure(wrongLater, c, expected: expected)) { error in
            guard let wrong = error as? WorkerTiming.Wrong else { return XCTFail("\(error)") }
            XCTAssertEqual(wrong.mismatch.stage, .calibration)
            XCTAssertEqual(wrong.mismatch.index, 5)
            XCTAssertEqual(wrong.mismatch.got, wrong.mismatch.expected &+ 1)
            XCTAssertTrue(wrong.mismatch.graph.contains("timed run"), wrong.mismatch.graph)
        }
    }

    /// Units are timed in turns (docs/probe.md §4): after every unit's warm-up, one run of
    /// each still timing, round after round, so a passing slowdown of the machine falls on
    /// every unit alike instead of on whichever is timed first. A unit that turns out wrong
    /// is rejected alone; the others keep their turns.
    func testUnitsAreTimedInTurnsAndAWrongOneLeavesTheOthersTimed() throws {
        let c = try ProbeSuite.calibration()
        let expected = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)
        let calls = Locked<[Int]>([])
        let runsOfUnit1 = Locked(0)
        let units: [any GraphUnit] = (0..<3).map { u in
            ClosureUnit { _, _ in
                calls.append(u)
                var out = expected
                if u == 1 && runsOfUnit1.next() == 3 { out[0].values[7] &+= 1 }   // its third timed run
                return out
            }
        }
        let results = WorkerTiming.measure(units, c, expected: expected)
        let order = calls.value
        XCTAssertEqual(Array(order.prefix(9)), [0, 1, 2, 0, 1, 2, 0, 1, 2], "warm-ups, then one run each per round")
        XCTAssertEqual(order.filter { $0 == 1 }.count, 4, "unit 1 stops at its wrong run")
        guard case .failure(let error) = results[1], let wrong = error as? WorkerTiming.Wrong else {
            return XCTFail("unit 1 should be rejected: \(results[1])")
        }
        XCTAssertTrue(wrong.mismatch.graph.contains("timed run 3"), wrong.mismatch.graph)
        for u in [0, 2] {
            let speed = try results[u].get()
            XCTAssertGreaterThanOrEqual(speed.runs, 3)
            XCTAssertEqual(order.filter { $0 == u }.count, speed.runs + 1, "warm-up plus the timed runs")
        }
    }

    /// Units of one plugin share its worker: when one unit's run takes the worker down, the
    /// others' graphs went with it, and that is not their failure. They are prepared again
    /// (in the restarted worker) and timed; the unit that crashed is the one rejected.
    func testAUnitWhoseGraphWentWithASharedWorkerIsPreparedAgain() throws {
        let c = try ProbeSuite.calibration()
        let expected = try ReferenceInterpreter.run(c.graph, inputs: c.inputs)
        let worker = Locked(0)   // the shared worker's generation
        let crashing = SharedWorkerUnit(worker: worker, expected: expected, crashOnRun: 2)
        let bystander = SharedWorkerUnit(worker: worker, expected: expected, crashOnRun: nil)
        let results = WorkerTiming.measure([crashing, bystander], c, expected: expected)
        XCTAssertThrowsError(try results[0].get())
        XCTAssertGreaterThanOrEqual(try results[1].get().runs, 3)
        XCTAssertEqual(bystander.prepares.value.count, 2, "prepared once, then again after the worker died")
    }

    private final class SharedWorkerUnit: GraphUnit, @unchecked Sendable {
        /// The generation of the fake plugin worker the units share: one more each time it
        /// dies; graphs prepared in it are usable while their generation lasts.
        let worker: Locked<Int>
        let expected: [TensorValue]
        let crashOnRun: Int?
        let runs = Locked(0)
        let prepares = Locked<[Int]>([])
        init(worker: Locked<Int>, expected: [TensorValue], crashOnRun: Int?) {
            self.worker = worker; self.expected = expected; self.crashOnRun = crashOnRun
        }
        func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun {
            prepares.append(worker.value)
            return Prepared(unit: self, generation: worker.value)
        }
        final class Prepared: PreparedGraphRun, @unchecked Sendable {
            let unit: SharedWorkerUnit
            let generation: Int
            init(unit: SharedWorkerUnit, generation: Int) { self.unit = unit; self.generation = generation }
            var isUsable: Bool { unit.worker.value == generation }
            func run(_ inputs: [TensorValue]) throws -> [TensorValue] {
                guard isUsable else { throw WorkerError.refused("the worker died") }
                if unit.runs.next() == unit.crashOnRun {
                    unit.worker.update { $0 += 1 }   // the worker dies
                    throw WorkerError.refused("crashed (signal 11)")
                }
                return unit.expected
            }
        }
    }

    // MARK: - cache

    /// The cache, on the plain-C backend through its worker: a corrupt file is ignored
    /// with a warning and rewritten; a warm probe reuses verdict and speed; the key follows
    /// the plugin's content, not its timestamp; `fresh` ignores the cache.
    func testCacheFollowsPluginContentAndFreshIgnoresIt() throws {
        let builder = CPluginBuilder.shared
        let dir = try builder.makeDirectory("cache-plugins")
        let cache = try builder.makeDirectory("cache")
        try builder.install([.good], into: dir)
        let plugin = dir + "/" + CPluginVariant.good.fileName
        try "{ this is not json".write(toFile: cache + "/" + ProbeCache.fileName, atomically: true, encoding: .utf8)
        func probe(fresh: Bool = false) throws -> ProbeResult {
            try BackendHost(configuration: HostTestSupport.configuration(plugins: [dir], cache: cache, timeout: 300)).probe(fresh: fresh)
        }
        let cold = try probe()
        XCTAssertEqual(cold.units.map(\.state), [.accepted])
        XCTAssertEqual(cold.units.map(\.cached), [false])
        XCTAssertEqual(cold.warnings.count, 1)
        XCTAssertTrue(cold.warnings.first?.contains("corrupt") ?? false, "\(cold.warnings)")

        let warm = try probe()
        XCTAssertEqual(warm.units.map(\.cached), [true])
        XCTAssertEqual(warm.warnings, [])
        XCTAssertEqual(warm.units.map(\.speed), cold.units.map(\.speed))
        XCTAssertEqual(warm.units.map(\.rank), [1])

        // Same bytes, new mtime: still a hit.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: plugin))
        try bytes.write(to: URL(fileURLWithPath: plugin))
        XCTAssertEqual(try probe().units.map(\.cached), [true])
        XCTAssertEqual(try probe(fresh: true).units.map(\.cached), [false])
        // New bytes (a trailing byte dlopen ignores): a miss.
        try (bytes + [0]).write(to: URL(fileURLWithPath: plugin))
        let changed = try probe()
        XCTAssertEqual(changed.units.map(\.cached), [false])
        XCTAssertEqual(changed.units.map(\.state), [.accepted])
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
        // One unit per instruction-set path the CPU runs (Plugins/CPUBackend/README.md,
        // "Units"), each probed and ranked on its own.
        let n = cold.units.count
        XCTAssertGreaterThanOrEqual(n, 1)
        XCTAssertEqual(cold.units.map(\.index), Array(0..<n))
        XCTAssertEqual(Set(cold.units.map(\.driver)).count, n, "every path has its own driver string")
        XCTAssertEqual(cold.units.compactMap(\.rank).sorted(), Array(1...n))
        for row in cold.units {
            XCTAssertEqual(row.state, .accepted, row.reason)
            XCTAssertEqual(row.backend, "cpu")
            XCTAssertEqual(row.unit, .cpu)
            XCTAssertFalse(row.cached)
            let speed = try XCTUnwrap(row.speed)
            XCTAssertGreaterThan(speed.runsPerSecond, 0)
            // Three timed runs, or one where the warm-up took the whole budget (a loaded machine).
            XCTAssertGreaterThanOrEqual(speed.runs, 1)
        }
        // Units are probed in parallel, so their stage lines interleave: every stage once per unit.
        XCTAssertEqual(stages.sorted(), ProbeStage.allCases.flatMap { [String](repeating: $0.rawValue, count: n) }.sorted())

        let warm = try BackendHost(configuration: HostTestSupport.configuration(plugins: [dir], cache: cache)).probe()
        XCTAssertEqual(warm.units.map(\.cached), [Bool](repeating: true, count: n))
        XCTAssertEqual(warm.units.map(\.rank), cold.units.map(\.rank))
        XCTAssertEqual(warm.units.map(\.speed), cold.units.map(\.speed))
    }

    func testDroppingAPluginInMakesItAppearAndRemovingItMakesItDisappear() throws {
        let dir = try HostTestSupport.temporaryDirectory("dropin")
        let cache = try HostTestSupport.temporaryDirectory("dropin-cache")
        let config = HostTestSupport.configuration(plugins: [dir], cache: cache)
        XCTAssertEqual(try BackendHost(configuration: config).probe().units.count, 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/libWaiCPUBackend.so",
                                                   withDestinationPath: try HostTestSupport.cpuPlugin())
        let selectors = try BackendHost(configuration: config).probe().units.map(\.selector)
        XCTAssertEqual(selectors, (0..<max(1, selectors.count)).map { "cpu:\($0)" }, "one unit per CPU path")
        try FileManager.default.removeItem(atPath: dir + "/libWaiCPUBackend.so")
        XCTAssertEqual(try BackendHost(configuration: config).probe().units.count, 0)
    }
}
