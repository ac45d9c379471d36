/// The host: discovers and probes backend units, and runs graphs on the best unit that
/// passed the exactness probe (or the one asked for), with a report naming it.
///
///     let host = BackendHost()
///     let probe = try host.probe()
///     let (outputs, report) = try host.run(graph, inputs: inputs)          // best unit
///     let (same, _) = try host.run(graph, inputs: inputs, on: .kind(.cpu)) // forced
///
/// Every plugin runs in its own worker process (docs/probe.md §3), kept for the host's life
/// and used for probing and real runs alike; prepared graphs are kept for reuse.
/// Thread-safe.
public final class BackendHost: @unchecked Sendable {
    public let configuration: HostConfiguration
    private let lock = Mutex()
    private var probeResult: ProbeResult?
    private let workers: WorkerPool
    /// Plugin files whose content was checked against the probe, path → SHA-256.
    private var checkedFiles: [String: String] = [:]
    /// The last probe's file hashes: a plugin file whose `FileStat` is still the one its hash
    /// was remembered with is not read again (docs/probe.md §5, "Listing").
    private var probeFiles: FileHashes?
    private var prepared: [PreparedEntry] = []
    /// Graphs that passed CertificateVerifier.verify in this host. Array equality is O(1)
    /// for the same storage, so a graph run again and again is not verified again.
    private var verified: [IntegerGraph] = []
    /// Prepared graphs kept per host; the oldest is released beyond this.
    private let preparedLimit = 16
    /// Units whose prepare or run failed in this host (device lost, out of memory, a
    /// graph the unit cannot take): selector → reason. They are treated as `failed` for
    /// the rest of this host's life, until a new probe.
    private var runFailures: [String: String] = [:]
    /// Units that refused a graph as too large for them (`unsupported` or `out_of_memory`
    /// on a graph with a tensor past `sizeRefusalFloor` elements: a buffer limit such as
    /// lavapipe's maxStorageBufferRange): selector → the largest tensor (elements) they are
    /// still given, half the refused graph's largest. Larger graphs go elsewhere; tiled runs plan below it (`maxTensorElements`).
    private var tensorLimits: [String: Int] = [:]
    /// Below this a refusal says nothing about size: the probe ran graphs this large.
    static let sizeRefusalFloor = 1 << 20
    /// Spot-checked runs each unit passed in this host (selector → count), and every run
    /// dispatched to it (for sampling).
    private var checkedRuns: [String: Int] = [:]
    private var dispatchedRuns: [String: Int] = [:]
    /// Draws the random interior windows of spot checks; seeded unpredictably per host, so
    /// a plugin cannot know which windows will be checked.
    private var windowRNG = SplitMix64(seed: UInt64.random(in: 0...UInt64.max))
    /// The region engine's memory of each graph spot-checked lately (as many as prepared graphs).
    private var windowCaches: [(graph: IntegerGraph, cache: WindowCache)] = []
    /// Model qualification verdicts (docs/probe.md §9), kept beside the probe cache.
    private let qualifications: QualificationBook
    /// Units whose concurrent runs the probe did not see overlap (selector → their turn):
    /// their runs take turns, whichever threads of the application issue them.
    private var turns: [String: Mutex] = [:]

    private struct PreparedEntry {
        var path: String
        var unit: Int
        var graph: IntegerGraph
        var prepared: any PreparedGraphRun
    }

    /// The decode stage's codec decodes (WaiCapabilities' `BackendHost(configuration:)`
    /// gives int_hyper's); the host itself knows no codec.
    public let codecProbeVectors: CodecProbeVectors

    public init(configuration: HostConfiguration, codecProbeVectors: CodecProbeVectors) {
        self.configuration = configuration
        self.codecProbeVectors = codecProbeVectors
        self.workers = WorkerPool(executable: configuration.unitWorkerExecutable)
        self.qualifications = QualificationBook(directory: configuration.cacheDirectory)
    }

    /// Probes every unit of every plugin (cached verdicts are reused unless `fresh`).
    /// `progress` receives human-readable lines while units are probed.
    public func probe(fresh: Bool = false, progress: ((String) -> Void)? = nil) throws -> ProbeResult {
        if let e = configuration.configurationError { throw e }
        let (result, files) = ProbeRunner(configuration: configuration, pool: workers, codecVectors: codecProbeVectors,
                                          progress: progress).run(fresh: fresh)
        lock.withLock {
            probeResult = result
            probeFiles = files
            // Verdicts may have changed: drop graphs prepared under the old ones.
            prepared.removeAll()
            runFailures.removeAll()
            checkedRuns.removeAll()
            dispatchedRuns.removeAll()
        }
        return result
    }

    /// Lists every unit of every plugin with its cached verdict, probing nothing: the plugins
    /// are loaded (in their workers) only to list their units.
    public func listUnits() -> UnitListing {
        ProbeRunner(configuration: configuration, pool: workers, codecVectors: codecProbeVectors, progress: nil).list()
    }

    /// The last probe's result, probing first if this host has not probed yet.
    public func currentProbe() throws -> ProbeResult {
        if let r = lock.withLock({ probeResult }) { return r }
        return try probe()
    }

    /// Runs a verified graph. Inputs must meet the graph's input contract. Nothing runs on
    /// a unit that did not pass the probe. No selection: the configuration's default unit.
    /// `model` names the model set's graph this is (docs/probe.md §9): a plugin unit runs
    /// it only once qualified for it.
    public func run(_ graph: IntegerGraph, inputs: [TensorValue], on requested: UnitSelection? = nil,
                    model: ModelGraphID? = nil) throws -> (outputs: [TensorValue], report: RunReport) {
        if let e = configuration.configurationError { throw e }
        let selection = requested ?? configuration.defaultUnit
        try verifyOnce(graph)
        try checkInputContract(graph, inputs)
        if selection == .reference {
            return try runOnReference(graph, inputs, .forced, reason: "the reference interpreter was requested")
        }
        // A unit that fails while preparing or running is marked failed and the choice is
        // made again without it, so the graph still runs — on the next accepted unit, or
        // on the reference interpreter — and the report says which unit failed and why.
        var failedHere: [String] = []
        var demoted = false
        // Units not qualified for this model graph (selector → evidence), and every verdict met.
        var unqualified: [String: String] = [:]
        var notes: [QualificationNote] = []
        while true {
            let choice = try Dispatcher.choose(selection, in: try limitedProbe(excluding: unqualified), graph: graph)
            let fallback = failedHere.isEmpty ? nil : failedHere.joined(separator: "; ")
            let fallbackKind: DispatchKind = demoted ? .unitDemoted : unqualified.isEmpty ? .unitFailed : .unitUnqualified
            switch choice {
            case let .reference(kind, reason):
                var result = try runOnReference(graph, inputs, fallback == nil ? kind : fallbackKind,
                                                reason: fallback.map { "\($0); \(reason)" } ?? reason)
                result.report.qualification = notes.isEmpty ? nil : notes
                return result
            case let .unit(row, kind, reason):
                if let model {
                    switch try qualify(row, graph: graph, model: model) {
                    case .run(let note):
                        notes.append(note)
                    case let .refuse(note, why):
                        notes.append(note)
                        unqualified[row.selector] = why
                        failedHere.append(why)
                        continue
                    case .unitFailed(let why):
                        markFailed(row, why)
                        failedHere.append(why)
                        continue
                    }
                }
                let outputs: [TensorValue]
                // The spot check's windows: computed while a GPU unit runs (the host's cores
                // are idle then); after a CPU unit's run, whose threads have every core and
                // would wait for each other at every layer behind a window. Compared after.
                let overlap = row.unit != .cpu
                var pending: PendingSpotCheck?
                var answered = 0.0
                do {
                    let p = try preparedGraph(for: row, graph: graph, name: model?.description)
                    if overlap { pending = startSpotCheck(row, graph: graph, inputs: inputs, besideRun: true) }
                    do { outputs = try oneAtATime(row) { try p.run(inputs) } } catch where row.coverage != nil && SizeRefusal.applies(error, graph) {
                        throw SizeRefusal(error: error)
                    }
                    answered = Stopwatch.now()
                    if !overlap { pending = startSpotCheck(row, graph: graph, inputs: inputs, besideRun: false) }
                } catch let refusal as SizeRefusal {
                    pending?.cancel()
                    // Too large for this unit, not a fault: it keeps smaller graphs.
                    let largest = ProbeCoverage.largestTensor(graph)
                    lock.withLock {
                        // Half: the real limit is unknown, and a plan just under the refused size
                        // would be refused tile after tile.
                        tensorLimits[row.selector] = min(tensorLimits[row.selector] ?? Int.max, largest / 2)
                        prepared.removeAll { $0.path == row.path && $0.unit == row.index && $0.graph == graph }
                    }
                    failedHere.append("\(row.selector) refused a graph with a tensor of \(largest) elements: \(refusal.error)")
                    continue
                } catch {
                    pending?.cancel()
                    let why = "\(row.selector) failed at run time: \(error)"
                    markFailed(row, why)
                    failedHere.append(why)
                    continue
                }
                // The wrong bytes of a unit that fails its spot check are never returned:
                // the unit is demoted and the graph runs again on the next choice.
                if let pending, let why = try finishSpotCheck(row, graph: graph, pending, outputs: outputs) {
                    failedHere.append(why)
                    demoted = true
                    continue
                }
                guard let ref = row.ref, let unitKind = row.unit.kind else {
                    throw HostError.runFailed(selector: row.selector, reason: "the row names no unit")
                }
                var report = RunReport(unit: unitKind, ref: ref, device: row.device, driver: row.driver,
                                       dispatch: fallback == nil ? kind : fallbackKind,
                                       reason: fallback.map { "\($0); \(reason)" } ?? reason, rank: row.rank)
                report.qualification = notes.isEmpty ? nil : notes
                if let pending {
                    report.spotCheckCPUMilliseconds = pending.cpuMilliseconds
                    report.spotCheckWaitMilliseconds = Stopwatch.now() - answered
                }
                return (outputs, report)
            }
        }
    }

    /// The probe result with this host's run failures and learned tensor limits applied.
    /// `excluding` adds units not to use for this graph (selector → why), e.g. unqualified ones.
    private func limitedProbe(excluding: [String: String] = [:]) throws -> ProbeResult {
        let (failures, limits) = lock.withLock { (runFailures, tensorLimits) }
        var r = try currentProbe().markingFailed(failures.merging(excluding) { run, _ in run })
        guard !limits.isEmpty else { return r }
        for i in r.units.indices {
            guard let limit = limits[r.units[i].selector], var coverage = r.units[i].coverage else { continue }
            coverage.maxElements = min(coverage.maxElements ?? limit, limit)
            r.units[i].coverage = coverage
        }
        return r
    }

    /// The largest tensor (elements) the unit `selection` would run `graph` on takes, when
    /// the probe or a refusal in this host found a limit; nil for the reference interpreter
    /// or a unit with none known. Tiled runs plan their tiles below it.
    public func maxTensorElements(for graph: IntegerGraph, on selection: UnitSelection = .best) -> Int? {
        guard selection != .reference, let probe = try? currentProbe().markingFailed(lock.withLock { runFailures }) else { return nil }
        // The unit chosen when sizes are not considered: the one a tiled run wants to fit.
        var unlimited = probe
        for i in unlimited.units.indices { unlimited.units[i].coverage?.maxElements = nil }
        guard case .unit(let row, _, _)? = try? Dispatcher.choose(selection, in: unlimited, graph: graph) else { return nil }
        let learned = lock.withLock { tensorLimits[row.selector] }
        let probed = probe.units.first { $0.selector == row.selector }?.coverage?.maxElements
        switch (learned, probed) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b?): return b
        case (nil, nil): return nil
        }
    }

    /// Drops what this host prepared and remembered for `graph` (its prepared graphs and
    /// their buffers on every unit, its spot-check cache); a later run prepares it again.
    public func release(_ graph: IntegerGraph) {
        // Released outside the lock: a prepared graph's release is a call to its worker.
        let dropped = lock.withLock { () -> [PreparedEntry] in
            let gone = prepared.filter { $0.graph == graph }
            prepared.removeAll { $0.graph == graph }
            windowCaches.removeAll { $0.graph == graph }
            return gone
        }
        withExtendedLifetime(dropped) {}
    }

    /// Marks the unit failed for the rest of this host's life (until a new probe).
    private func markFailed(_ row: UnitProbeRecord, _ why: String) {
        lock.withLock {
            runFailures[row.selector] = why
            prepared.removeAll { $0.path == row.path && $0.unit == row.index }
        }
    }

    /// Qualification of `row` for a model graph (docs/probe.md §9): the cached verdict, or
    /// one found now by running the graph at the qualification size in the unit's worker.
    private func qualify(_ row: UnitProbeRecord, graph: IntegerGraph, model: ModelGraphID) throws -> QualificationGate.Decision {
        try QualificationGate.decide(row, graph: graph, model: model, book: qualifications) { g, inputs in
            let p = try workerUnit(for: row).prepare(g, name: "\(model.description) at the qualification size")
            return try oneAtATime(row) { try p.run(inputs) }
        }
    }

    /// Runs `body` (a run on `row`'s unit) right away when the probe verified that the
    /// unit's concurrent runs overlapped and stayed exact; otherwise after every other run
    /// on that unit in this host has returned (docs/probe.md §3, "Concurrent runs").
    private func oneAtATime<T>(_ row: UnitProbeRecord, _ body: () throws -> T) throws -> T {
        if row.concurrentRunsVerified { return try body() }
        let turn = lock.withLock { () -> Mutex in
            if let t = turns[row.selector] { return t }
            let t = Mutex()
            turns[row.selector] = t
            return t
        }
        return try turn.withLock(body)
    }

    /// Applies the spot-check policy to a run on `row`: when it is checked, its windows are
    /// drawn now and helper threads start on them (nil when not checked). `besideRun`: the
    /// unit's run is about to start and the caller waits for it.
    private func startSpotCheck(_ row: UnitProbeRecord, graph: IntegerGraph, inputs: [TensorValue],
                                besideRun: Bool) -> PendingSpotCheck? {
        let (check, seed) = lock.withLock { () -> (Bool, UInt64) in
            let n = dispatchedRuns[row.selector, default: 0]
            dispatchedRuns[row.selector] = n + 1
            let draw = windowRNG.next()
            return (configuration.spotCheck.checks(run: n, draw: draw), windowRNG.next())
        }
        guard check else { return nil }
        var rng = SplitMix64(seed: seed)
        let cache = lock.withLock { () -> WindowCache in
            if let hit = windowCaches.first(where: { $0.graph == graph }) { return hit.cache }
            let c = WindowCache()
            windowCaches.append((graph, c))
            if windowCaches.count > preparedLimit { windowCaches.removeFirst() }
            return c
        }
        return SpotCheck.start(graph, inputs: inputs, rng: &rng, cache: cache, besideRun: besideRun)
    }

    /// Compares a checked run's outputs with its windows; on a mismatch demotes the unit
    /// and returns the evidence as a sentence, nil when the run passed.
    private func finishSpotCheck(_ row: UnitProbeRecord, graph: IntegerGraph, _ pending: PendingSpotCheck,
                                 outputs: [TensorValue]) throws -> String? {
        guard var m = try pending.finish(outputs: outputs, graphName: "") else {
            lock.withLock { checkedRuns[row.selector, default: 0] += 1 }
            return nil
        }
        m.runsPassed = lock.withLock { checkedRuns[row.selector, default: 0] }
        m.graph = GraphIdentity.name(graph)   // only now: hashing a model's weights is not free
        let why = "\(row.selector) demoted by a spot check: \(m.description)"
        demote(row, mismatch: m, reason: why)
        return why
    }

    /// Marks the unit rejected at stage runtime in this host's probe result and in the
    /// probe cache, so it stays rejected (and shows so in `waihost probe`) until re-probed.
    private func demote(_ row: UnitProbeRecord, mismatch: ProbeMismatch, reason: String) {
        let outcome = ProbeOutcome(state: .rejected, stage: SpotCheck.stage, reason: reason, mismatch: mismatch,
                                   coverage: row.coverage)
        lock.withLock {
            guard var result = probeResult else { return }
            result = result.demoting(row.selector, outcome)
            probeResult = result
            prepared.removeAll { $0.path == row.path && $0.unit == row.index }
        }
        guard let dir = configuration.cacheDirectory, let sha = row.pluginSHA256, let index = row.index,
              let kind = row.unit.kind else { return }
        let key = ProbeCache.key(pluginSHA256: sha, unit: UnitInfo(index: index, kind: kind, device: row.device,
                                                                    driver: row.driver, narrowStorage: true))
        ProbeCache(directory: dir).store([key: ProbeCache.Entry(outcome: outcome, speed: row.speed, backend: row.backend,
                                                                device: row.device, driver: row.driver)],
                                         warn: { _ in })
    }

    private func runOnReference(_ graph: IntegerGraph, _ inputs: [TensorValue], _ kind: DispatchKind,
                                reason: String) throws -> (outputs: [TensorValue], report: RunReport) {
        let outputs = try ReferenceInterpreter.run(graph, inputs: inputs)
        return (outputs, RunReport(unit: .cpu, ref: .reference,
                                   device: "reference interpreter (host CPU)",
                                   driver: "waihost \(WaiHostVersion.string)",
                                   dispatch: kind, reason: reason, rank: nil))
    }

    private func verifyOnce(_ graph: IntegerGraph) throws {
        if lock.withLock({ verified.contains(graph) }) { return }
        try CertificateVerifier.verify(graph)
        lock.withLock {
            verified.append(graph)
            if verified.count > preparedLimit { verified.removeFirst() }
        }
    }

    private func preparedGraph(for row: UnitProbeRecord, graph: IntegerGraph, name: String?) throws -> any PreparedGraphRun {
        guard let unit = row.index else {
            throw HostError.runFailed(selector: row.selector, reason: "the row names no unit")
        }
        if let hit = lock.withLock({ prepared.first { $0.path == row.path && $0.unit == unit && $0.graph == graph } }) {
            // A graph prepared in a worker that died since is prepared again (in a new one).
            if hit.prepared.isUsable { return hit.prepared }
            lock.withLock { prepared.removeAll { $0.prepared === hit.prepared } }
        }
        let p: any PreparedGraphRun
        do { p = try workerUnit(for: row).prepare(graph, name: name) } catch let e as HostError {
            throw e
        } catch where row.coverage != nil && SizeRefusal.applies(error, graph) {
            throw SizeRefusal(error: error)
        } catch {
            throw HostError.runFailed(selector: row.selector, reason: "\(error)")
        }
        lock.withLock {
            prepared.append(PreparedEntry(path: row.path, unit: unit, graph: graph, prepared: p))
            if prepared.count > preparedLimit { prepared.removeFirst() }
        }
        return p
    }

    /// The unit, in its plugin's worker, after checking that the file is the one that was
    /// probed and that the worker reports the unit that was probed. The file's content is
    /// hashed again unless its `FileStat` is the one the probe's hash was remembered with —
    /// the same identity the probe cache trusts; reading a 22 MB plugin whole was about 15 ms
    /// of every CLI decode.
    private func workerUnit(for row: UnitProbeRecord) throws -> WorkerUnit {
        let (known, files) = lock.withLock { (checkedFiles[row.path], probeFiles) }
        if let sha = row.pluginSHA256, known != sha {
            let now: String
            do { now = try files?.sha256(row.path) ?? SHA256.hexOfFile(path: row.path) } catch {
                throw HostError.pluginChanged(path: row.path)
            }
            guard now == sha else { throw HostError.pluginChanged(path: row.path) }
            lock.withLock { checkedFiles[row.path] = sha }
        }
        let worker = workers.worker(for: row.path, sha256: row.pluginSHA256)
        let listing: PluginWorker.Listing
        do { (_, listing) = try worker.live(timeout: configuration.runTimeout) } catch {
            throw HostError.runFailed(selector: row.selector, reason: "\(error)")
        }
        guard listing.name == row.backend, let index = row.index, listing.units.indices.contains(index) else {
            throw HostError.unitChanged(selector: row.selector, reason: "the plugin no longer offers it")
        }
        let u = listing.units[index]
        guard u.device == row.device, u.driver == row.driver, ProbeRowKind(u.kind) == row.unit else {
            throw HostError.unitChanged(selector: row.selector,
                                        reason: "now \(u.kind.rawValue) \(u.device) / \(u.driver)")
        }
        return WorkerUnit(worker: worker, unit: index, timeout: configuration.runTimeout)
    }
}

/// A unit's `unsupported` or `out_of_memory` answer to a graph larger than any the probe
/// ran: the graph is too large for it (BackendHost.tensorLimits).
/// Only a unit with a coverage record takes a limit (dispatch reads it there); any other
/// refusal marks the unit failed as before.
private struct SizeRefusal: Error {
    var error: Error

    static func applies(_ error: Error, _ graph: IntegerGraph) -> Bool {
        (UnitCallFailure.isUnsupported(error) || UnitCallFailure.isOutOfMemory(error))
            && ProbeCoverage.largestTensor(graph) > BackendHost.sizeRefusalFloor
    }
}
