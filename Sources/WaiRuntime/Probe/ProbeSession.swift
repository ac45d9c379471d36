/// One probe of one unit: runs each stage's graphs, remembers which ops the unit refused as
/// `unsupported` and which it was exact on, and runs the repetition stage on graphs prepared
/// once (docs/probe.md §1 `repetition`, §2 "Per-op acceptance").
struct ProbeSession {
    let unit: any GraphUnit
    /// Ops the unit answered `unsupported` for: graphs containing them are skipped.
    private(set) var unsupported: [OpKind] = []
    /// The element count of the smallest largest-tensor among graphs the unit refused for
    /// lack of memory: graphs with a tensor this large are skipped (and never dispatched).
    private(set) var memoryLimit: Int?
    /// op → storage widths of its first input on graphs the unit was exact on.
    private(set) var exact: [OpKind: Set<Int>] = [:]
    /// Cases built in this session, by stage (the repetition stage reuses them).
    private var built: [ProbeStage: [ProbeCase]] = [:]
    /// Reference outputs of the cases the repetition stage runs again.
    private var expectedMemo: [String: [TensorValue]] = [:]
    /// What the repetition stage's concurrent rounds saw (nil until it ran).
    private(set) var concurrency: ConcurrencyCheck?

    /// Cases and reference outputs shared with the other units of this probe run.
    private let references: ProbeReferences

    init(unit: any GraphUnit, references: ProbeReferences = ProbeReferences(sessions: 1)) {
        self.unit = unit
        self.references = references
    }

    /// Runs one stage; a rejection, or nil when the unit matched on every graph of it.
    mutating func run(_ stage: ProbeStage) throws -> ProbeOutcome? {
        if stage == .repetition { return try repetition() }
        for c in try cases(stage) {
            if let rejection = try check(c, stage: stage) { return rejection }
        }
        return nil
    }

    func verdict(stages: [ProbeStage]) -> ProbeOutcome {
        let coverage = ProbeCoverage(
            exact: exact.keys.sorted(by: Self.byName).map { ProbeCoverage.OpWidths(op: $0, widths: exact[$0, default: []].sorted()) },
            unsupported: unsupported.sorted(by: Self.byName), maxElements: memoryLimit.map { $0 - 1 })
        guard !exact.isEmpty else {
            return ProbeOutcome(state: .rejected, stage: stages.first.map(VerdictStage.init),
                                reason: "the unit refused every op as unsupported (\(Self.names(unsupported)))",
                                coverage: coverage, concurrency: concurrency)
        }
        var reason = "exact on every stage (\(stages.map(\.rawValue).joined(separator: ", ")))"
        if !unsupported.isEmpty {
            reason += "; unsupported: \(Self.names(unsupported)) (accepted for every other op)"
        }
        if let limit = memoryLimit {
            reason += "; out of memory on graphs with a tensor of \(limit) elements (accepted for graphs below that)"
        }
        if let concurrency { reason += "; \(concurrency)" }
        return ProbeOutcome(state: .accepted, reason: reason, coverage: coverage, concurrency: concurrency)
    }

    // MARK: - one graph

    private mutating func cases(_ stage: ProbeStage) throws -> [ProbeCase] {
        if let c = built[stage] { return c }
        let c: [ProbeCase]
        do { c = try references.cases(stage) { try ProbeSuite.cases(stage, codecVectors: references.codecVectors) } } catch {
            throw ProbeSuiteError(stage: VerdictStage(stage), graph: "(building)", underlying: "\(error)")
        }
        // Only what the repetition stage reuses is kept; the rest is built once.
        if ProbeStage.repeatedFrom.contains(stage) { built[stage] = c }
        return c
    }

    private mutating func expected(_ c: ProbeCase, _ graph: IntegerGraph, stage: ProbeStage) throws -> [TensorValue] {
        // Keyed by the observed outputs too: a whole decode is compared observing only its
        // picture, and again observing every tensor.
        let key = "\(c.name)/\(graph.outputs)"
        if let e = expectedMemo[key] { return e }
        let e: [TensorValue]
        do { e = try references.expected(key) { try ReferenceInterpreter.run(graph, inputs: c.inputs) } } catch {
            throw ProbeSuiteError(stage: VerdictStage(stage), graph: c.name, underlying: "reference interpreter: \(error)")
        }
        if c.repeated { expectedMemo[key] = e }
        return e
    }

    /// nil when the unit matched the reference on every observed tensor (or the graph holds
    /// an op the unit does not support).
    private mutating func check(_ c: ProbeCase, stage: ProbeStage) throws -> ProbeOutcome? {
        if skipped(c.graph) { return nil }
        switch try compareOnce(c.graph, c, stage) {
        case .skipped:
            return nil
        case .matched:
            record(c.graph)
            return nil
        case .rejected(let r):
            // A whole decode observes only its final output, as a real decode would; on a
            // difference it runs again observing every tensor, to name the op at fault.
            if c.graph.outputs != c.everyTensorObserved.outputs,
               case .rejected(let located) = try compareOnce(c.everyTensorObserved, c, stage) {
                return located
            }
            return r
        }
    }

    private enum Comparison { case matched, skipped, rejected(ProbeOutcome) }

    private mutating func compareOnce(_ graph: IntegerGraph, _ c: ProbeCase, _ stage: ProbeStage) throws -> Comparison {
        let expected = try expected(c, graph, stage: stage)
        let got: [TensorValue]
        do { got = try unit.prepare(graph).run(c.inputs) } catch {
            if UnitCallFailure.isUnsupported(error), try attributeUnsupported(graph, stage: stage) { return .skipped }
            if UnitCallFailure.isOutOfMemory(error) {
                let size = ProbeCoverage.largestTensor(graph)
                memoryLimit = min(memoryLimit ?? size, size)
                return .skipped
            }
            return .rejected(ProbeOutcome(state: .rejected, stage: VerdictStage(stage),
                                          reason: "stage \(stage.rawValue), graph \(c.name): \(error)"))
        }
        if let r = ExactnessProbe.compare(graph: graph, caseName: c.name, stage: VerdictStage(stage),
                                          expected: expected, got: got) {
            return .rejected(r)
        }
        return .matched
    }

    /// The unit refused `graph` as unsupported: finds which of its ops it refuses by running
    /// each op alone on a small sample graph. True when at least one op was refused alone
    /// (the graph is then skipped); false when every op runs alone, so the refusal of the
    /// combination is a rejection.
    private mutating func attributeUnsupported(_ graph: IntegerGraph, stage: ProbeStage) throws -> Bool {
        var ops: [OpKind] = []
        for n in graph.nodes where !ops.contains(n.op.kind) { ops.append(n.op.kind) }
        if ops.count == 1 {
            unsupported.append(ops[0])
            return true
        }
        var found = false
        for op in ops {
            guard let sample = try ProbeSuite.opSample(op.name) else { continue }
            do { _ = try unit.prepare(sample.graph).run(sample.inputs) } catch {
                if UnitCallFailure.isUnsupported(error) {
                    unsupported.append(op)
                    found = true
                }
            }
        }
        return found
    }

    private func skipped(_ graph: IntegerGraph) -> Bool {
        if graph.nodes.contains(where: { unsupported.contains($0.op.kind) }) { return true }
        if let limit = memoryLimit, ProbeCoverage.largestTensor(graph) >= limit { return true }
        return false
    }

    private mutating func record(_ graph: IntegerGraph) {
        for n in graph.nodes {
            exact[n.op.kind, default: []].insert(Int(graph.tensors[n.inputs[0]].storage.rawValue))
        }
    }

    // MARK: - repetition and concurrency

    /// Every repeated graph prepared once, run `rounds` times interleaved with the others,
    /// then all of them at once on separate threads (ABI §8 allows that), until
    /// `concurrentRounds` rounds overlapped or the bound of `ConcurrentRounds` is reached;
    /// every run must equal the reference.
    private mutating func repetition() throws -> ProbeOutcome? {
        let stage = VerdictStage.repetition
        var items: [(ProbeCase, any PreparedGraphRun, [TensorValue])] = []
        for source in ProbeStage.repeatedFrom {
            for var c in try cases(source) where c.repeated {
                if skipped(c.graph) { continue }
                // Every tensor observed, so a difference names the op even in a whole decode.
                c.graph = c.everyTensorObserved
                let e = try expected(c, c.graph, stage: .repetition)
                let p: any PreparedGraphRun
                do { p = try unit.prepare(c.graph) } catch {
                    return ProbeOutcome(state: .rejected, stage: stage, reason: "stage \(stage), graph \(c.name): \(error)")
                }
                items.append((c, p, e))
            }
        }
        for round in 1...ProbeSuite.repetitionRounds {
            for (c, p, e) in items {
                let got: [TensorValue]
                do { got = try p.run(c.inputs) } catch {
                    return ProbeOutcome(state: .rejected, stage: stage,
                                        reason: "stage \(stage), graph \(c.name), run \(round) of one prepared graph: \(error)")
                }
                if let r = ExactnessProbe.compare(graph: c.graph, caseName: c.name, stage: stage, expected: e,
                                                  got: got, run: round) {
                    return r
                }
            }
        }
        // A second prepared graph of each, so two preparations of the same graph also run
        // at the same time: shared state between prepared graphs shows at once.
        var concurrent = items.map { ($0.0, $0.1, $0.2) }
        for (c, _, e) in items {
            do { concurrent.append((c, try unit.prepare(c.graph), e)) } catch {
                return ProbeOutcome(state: .rejected, stage: stage, reason: "stage \(stage), graph \(c.name): \(error)")
            }
        }
        let others = concurrent.count - 1
        guard others > 0 else {
            concurrency = ConcurrencyCheck(state: .unverified, rounds: 0, overlappingRounds: 0, mostAtOnce: 0)
            return nil
        }
        // A round proves something only when runs really overlapped inside the plugin (each
        // run's interval is stamped by host code: the worker around graph_run, checked
        // against the host's own stamps); one that did not is run again, within a bound.
        let outcome = ConcurrentRounds.run { round -> ConcurrentRounds.Round in
            let run = ProbeSuite.repetitionRounds + round
            // Each thread runs its graph again until every thread has finished one run, so
            // the short graphs keep running beside the long ones instead of being done
            // before those start; every run is compared.
            let progress = ConcurrentRounds.Progress(threads: concurrent.count)
            let perThread = runConcurrently(concurrent.map { item in { () -> ([RunInterval?], ProbeOutcome?) in
                let (c, p, e) = item
                var intervals: [RunInterval?] = []
                var rejection: ProbeOutcome?
                progress.repeatUntilEveryThreadRan {
                    switch Result(catching: { try p.timedRun(c.inputs) }) {
                    case .failure(let error):
                        rejection = ProbeOutcome(state: .rejected, stage: stage,
                                                 reason: "stage \(stage), graph \(c.name), run \(run), concurrently with \(others) other prepared graphs: \(error)")
                        return false
                    case .success(let timed):
                        intervals.append(timed.interval)
                        rejection = ExactnessProbe.compare(graph: c.graph, caseName: c.name, stage: stage, expected: e,
                                                           got: timed.outputs, run: run)
                        return rejection == nil
                    }
                }
                return (intervals, rejection)
            } })
            let intervals = perThread.flatMap(\.0)
            // The first wrong graph in the fixed order, whichever thread finished first.
            if var r = perThread.lazy.compactMap(\.1).first {
                if r.mismatch != nil {
                    r.reason += " (run concurrently with \(others) other prepared graphs on separate threads; "
                        + "at most \(RunOverlap.mostAtOnce(intervals)) inside the plugin at once)"
                }
                return .rejected(r)
            }
            return .ran(intervals)
        }
        switch outcome {
        case .rejected(let r): return r
        case .checked(let check): concurrency = check
        }
        return nil
    }

    /// Coverage lists ops in their names' order, as the JSON always has.
    private static func byName(_ a: OpKind, _ b: OpKind) -> Bool { a.name < b.name }
    private static func names(_ ops: [OpKind]) -> String { ops.sorted(by: byName).map(\.name).joined(separator: ", ") }
}

/// How the host tells an `unsupported` refusal from any other failure of a unit call.
/// Unit implementations report plugin call failures as `PluginError.callFailed` with the
/// ABI status name.
public enum UnitCallFailure {
    public static func isUnsupported(_ error: Error) -> Bool {
        if case let PluginError.callFailed(_, _, status, _) = error { return status == "unsupported" }
        return false
    }

    /// `out_of_memory` from prepare or run: the unit cannot take a graph this large, which
    /// says nothing about its exactness on smaller ones.
    public static func isOutOfMemory(_ error: Error) -> Bool {
        if case let PluginError.callFailed(_, _, status, _) = error { return status == "out_of_memory" }
        return false
    }
}
