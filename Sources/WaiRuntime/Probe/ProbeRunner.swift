import Dispatch

/// The host side of probing: discovers plugins, lists their units and probes each unit
/// through its plugin's worker (docs/probe.md §3) — the exactness probe and the timing run
/// here, in the host, on what the worker returns — consults and fills the cache, and ranks
/// the accepted units by speed (docs/probe.md).
struct ProbeRunner {
    let configuration: HostConfiguration
    let progress: ((String) -> Void)?
    let pool: WorkerPool
    private let progressLock = Mutex()
    let codecVectors: CodecProbeVectors

    init(configuration: HostConfiguration, pool: WorkerPool, codecVectors: CodecProbeVectors,
         progress: ((String) -> Void)?) {
        self.configuration = configuration
        self.codecVectors = codecVectors
        self.pool = pool
        self.progress = progress
    }

    /// What listing one plugin gave: from its worker (with the entry to cache, when its
    /// identity could be taken) or from the cache (`cached`).
    enum Listing {
        case failed(String)
        case listed(name: String, version: String, sha256: String, units: [UnitInfo], cached: Bool,
                    entry: ProbeCache.Listing?)
    }

    /// A unit waiting for its verdict.
    struct Pending {
        var row: Int
        var path: String
        var unit: Int
        var selector: String
        var key: String?
        /// The cached time-out this probe retries (docs/probe.md §5, "Time-outs"), if any.
        var retrying: ProbeTimeout? = nil
    }

    /// The rows before any probing: one per unit (its cached verdict applied, else "not
    /// probed"), one per plugin or folder that gave none; `pending` are the units with no
    /// cached verdict, `keys` each unit row's cache key; `listings` and `hashes` what the
    /// cache is to remember of the listing (docs/probe.md §5, "Listing").
    private func listRows(fresh: Bool, warn: (String) -> Void)
        -> (rows: [UnitProbeRecord], pending: [Pending], keys: [Int: String], cache: ProbeCache?,
            listings: [String: ProbeCache.Listing], hashes: FileHashes?) {
        let scan = PluginDiscovery.scan(directories: configuration.pluginDirectories)
        var rows: [UnitProbeRecord] = scan.problems.map {
            UnitProbeRecord(backend: lastComponent($0.path), path: $0.path, device: "", unit: .unknown, index: nil,
                            driver: "", state: .failed, reason: "plugin folder \($0.path) cannot be read: \($0.reason)")
        }
        let cache = configuration.cacheDirectory.map { ProbeCache(directory: $0) }
        guard configuration.unitWorkerExecutable != nil else {
            rows += scan.plugins.map { failedRow(path: $0, reason: WorkerError.noWorkerExecutable.description) }
            return (rows, [], [:], cache, [:], nil)
        }

        let contents = fresh ? ProbeCache.Contents() : (cache?.loadAll(warn: warn) ?? ProbeCache.Contents())
        let cached = contents.entries
        // The cheap identity of what listings depend on (docs/probe.md §5, "Listing"), taken
        // before and after listing: a listing is cached only when nothing moved meanwhile.
        let hashes = FileHashes(contents.files)
        let environment = Environment.current
        let worker = configuration.unitWorkerExecutable
        let machine = ListingIdentity.machine(hashes: hashes, worker: worker, environment: environment)
        let listings = parallelMap(scan.plugins, width: configuration.probeParallelism) {
            list(path: $0, machine: machine, hashes: hashes, cached: fresh ? nil : contents.listings[$0])
        }
        var newListings: [String: ProbeCache.Listing] = [:]
        for (path, listing) in zip(scan.plugins, listings) {
            if case let .listed(_, _, _, _, _, entry?) = listing { newListings[path] = entry }
        }
        if !newListings.isEmpty,
           ListingIdentity.machine(hashes: hashes, worker: worker, environment: environment) != machine {
            newListings = [:]
        }

        var pending: [Pending] = []
        var keys: [Int: String] = [:]
        for (path, listing) in zip(scan.plugins, listings) {
            switch listing {
            case .failed(let reason):
                rows.append(failedRow(path: path, reason: reason))
            case let .listed(name, version, sha, units, listingCached, _):
                if units.isEmpty {
                    rows.append(UnitProbeRecord(backend: name, path: path, backendVersion: version, device: "",
                                                unit: .unknown, index: nil, driver: "", state: .failed,
                                                reason: "the backend offers no units (no usable device)"))
                }
                // A hidden unit is left out as if the backend did not offer it (docs/configuration.md §4).
                for u in units where configuration.unitFilter.admits(backend: name, index: u.index, kind: u.kind) {
                    let key = ProbeCache.key(pluginSHA256: sha, unit: u)
                    var row = UnitProbeRecord(backend: name, path: path, backendVersion: version, device: u.device,
                                              unit: ProbeRowKind(u.kind), index: u.index, driver: u.driver,
                                              state: .failed, reason: "not probed")
                    row.pluginSHA256 = sha
                    row.listingCached = listingCached
                    keys[rows.count] = key
                    if let hit = cached[key] {
                        apply(hit.outcome, to: &row)
                        row.speed = hit.speed
                        row.cached = true
                        rows.append(row)
                        // A time-out below its bound is probed again; the cached row stands
                        // until then (and in `--list`).
                        if let t = hit.outcome.timeout, t.retry == .nextProbe {
                            pending.append(Pending(row: rows.count - 1, path: path, unit: u.index, selector: row.selector,
                                                   key: key, retrying: t))
                        }
                    } else {
                        rows.append(row)
                        pending.append(Pending(row: rows.count - 1, path: path, unit: u.index, selector: row.selector, key: key))
                    }
                }
            }
        }
        return (rows, pending, keys, cache, newListings, hashes)
    }

    /// The units and their cached verdicts, probing nothing (`waihost probe --list`).
    func list() -> UnitListing {
        var warnings: [String] = []
        let listed = listRows(fresh: false, warn: { warnings.append($0) })
        var rows = listed.rows
        let (pending, keys, cache) = (listed.pending, listed.keys, listed.cache)
        Self.rank(&rows)
        let unprobed = Set(pending.filter { $0.retrying == nil }.map(\.row))
        let entries = rows.enumerated().map { i, r in
            UnitListing.Entry(record: r, probed: !unprobed.contains(i), cacheKey: keys[i])
        }
        return UnitListing(entries: entries, cacheFile: cache?.path, warnings: warnings)
    }

    /// The result, and the plugin files' hashes as the probe established them (their
    /// `FileStat`s remembered), for checking later that a file is still the one probed.
    func run(fresh: Bool) -> (result: ProbeResult, files: FileHashes?) {
        var warnings: [String] = []
        let warn: (String) -> Void = { warnings.append($0) }
        let listed = listRows(fresh: fresh, warn: warn)
        var rows = listed.rows
        let (pending, cache) = (listed.pending, listed.cache)
        guard let hashes = listed.hashes else { return (ProbeResult(units: rows, warnings: warnings), nil) }
        let newListings = listed.listings

        // Exactness: plugins in parallel, the units of one plugin one after another in its
        // one worker, so a crash is the crash of the unit being probed. Timing one run at a
        // time, the units in turns, so units neither slow each other nor get a different
        // share of a passing slowdown.
        var byPlugin: [[Pending]] = []
        for p in pending {
            if let i = byPlugin.firstIndex(where: { $0[0].path == p.path }) { byPlugin[i].append(p) } else { byPlugin.append([p]) }
        }
        // The calibration graph's reference outputs, which every timed run is compared with,
        // are computed while the units are probed.
        let calibration = CalibrationReference()
        if !pending.isEmpty { calibration.start() }
        // Every case is built once and run once on the reference, for all units.
        let references = ProbeReferences(sessions: pending.count, codecVectors: codecVectors)
        let grouped = parallelMap(byPlugin, width: configuration.probeParallelism) { group in
            group.map { probe($0, device: rows[$0.row].device, references: references) }
        }
        let outcomes = Dictionary(uniqueKeysWithValues: zip(byPlugin.flatMap { $0 }, grouped.flatMap { $0 }).map { ($0.0.row, $0.1) })
        for p in pending {
            guard let outcome = outcomes[p.row] else { continue }
            rows[p.row].cached = false
            apply(outcome, to: &rows[p.row])
        }
        // The accepted units are timed together, in turns (WorkerTiming).
        let timed = pending.filter { outcomes[$0.row] != nil && rows[$0.row].state == .accepted }
        let speeds = Dictionary(uniqueKeysWithValues: zip(timed.map(\.row), time(timed, reference: calibration)))
        var newEntries: [String: ProbeCache.Entry] = [:]
        for p in pending {
            guard var outcome = outcomes[p.row] else { continue }
            switch speeds[p.row] {
            case .success(let speed)?: rows[p.row].speed = speed
            case .failure(let rejection)?:
                outcome = rejection.outcome
                apply(outcome, to: &rows[p.row])
            case nil: break
            }
            if let t = outcome.timeout {
                // Counted across probes under this key: one more in a row.
                outcome.timeout = ProbeTimeout(seconds: t.seconds, attempt: (p.retrying?.attempt ?? 0) + 1)
                outcome.reason += " (\(outcome.timeout?.summary ?? ""))"
                apply(outcome, to: &rows[p.row])
            }
            if let key = p.key, rows[p.row].state != .failed {
                // The outcome as the probe gave it (every field it has), not rebuilt from the row.
                let r = rows[p.row]
                newEntries[key] = ProbeCache.Entry(outcome: outcome, speed: r.speed, backend: r.backend,
                                                   device: r.device, driver: r.driver)
            }
        }
        cache?.store(ProbeCache.Contents(entries: newEntries, listings: newListings, files: hashes.updated ?? [:]),
                     warn: warn)
        Self.rank(&rows)
        return (ProbeResult(units: rows, warnings: warnings), hashes)
    }

    // MARK: - through the workers

    /// The plugin's units: from the cache when the plugin's content and the listing
    /// identity are those it was listed under, else from its worker (started now).
    private func list(path: String, machine: [String], hashes: FileHashes, cached: ProbeCache.Listing?) -> Listing {
        let sha: String
        do { sha = try hashes.sha256(path) } catch {
            return .failed("\(error)")
        }
        if let c = cached, c.pluginSHA256 == sha,
           let mapped = ListingIdentity.mappedLines(c.mapped.map { ($0, nil) }),
           ListingIdentity.key(pluginSHA256: sha, machine: machine, mapped: mapped) == c.identity {
            return .listed(name: c.name, version: c.version, sha256: sha, units: c.units, cached: true, entry: nil)
        }
        do {
            let (process, l) = try pool.worker(for: path, sha256: sha).live(timeout: configuration.probeTimeout)
            var entry: ProbeCache.Listing?
            // What the worker mapped, each still the file the kernel mapped.
            if let files = ListingIdentity.mappedFiles(pid: process.pid),
               let mapped = ListingIdentity.mappedLines(files.map { ($0.path, $0.inode) }) {
                entry = ProbeCache.Listing(identity: ListingIdentity.key(pluginSHA256: sha, machine: machine, mapped: mapped),
                                           pluginSHA256: sha, name: l.name, version: l.version, abiMinor: l.abiMinor,
                                           units: l.units, mapped: files.map(\.path))
            }
            return .listed(name: l.name, version: l.version, sha256: sha, units: l.units, cached: false, entry: entry)
        } catch {
            return .failed("\(error)")
        }
    }

    private func unit(_ p: Pending) -> WorkerUnit {
        WorkerUnit(worker: pool.worker(for: p.path, sha256: nil), unit: p.unit, timeout: configuration.probeTimeout)
    }

    /// The exactness probe, run here on what the worker returns.
    private func probe(_ p: Pending, device: String, references: ProbeReferences) -> ProbeOutcome {
        report("probing \(p.selector) (\(device))" + (p.retrying.map { " again after time-out \($0.attempt) of \($0.attempts)" } ?? ""))
        let u = unit(p)
        // A worker that cannot be reached at all (not startable, restart limit) makes the
        // unit failed, not rejected: nothing of it was compared.
        do { _ = try u.worker.live(timeout: configuration.probeTimeout) } catch {
            return ProbeOutcome(state: .failed, reason: "\(error)")
        }
        do {
            // Through the unit itself, so the repetition stage prepares once and runs many
            // times, and runs prepared graphs concurrently, in the worker (docs/probe.md §2).
            let watch = TimeoutWatch(FirstPrepareAllowance(u, allowance: configuration.probePrepareTimeout))
            var outcome = try ExactnessProbe.run(progress: { stage in report("probing \(p.selector) … stage \(stage.rawValue)") },
                                                 unit: watch, references: references)
            // The probe stops at the first failing call, so a rejection after a time-out is the time-out's.
            if outcome.state == .rejected, let s = watch.timedOut {
                outcome.timeout = ProbeTimeout(seconds: s, attempt: 1)
            }
            return outcome
        } catch {
            return ProbeOutcome(state: .failed, reason: "\(error)")
        }
    }

    private struct Rejection: Error { var outcome: ProbeOutcome }

    /// The calibration graph and its reference outputs, computed once per probe run, on a
    /// thread of its own from `start()`.
    final class CalibrationReference: @unchecked Sendable {
        typealias Value = Result<(ProbeCase, [TensorValue]), ProbeSuiteError>
        private let done = DispatchSemaphore(value: 0)
        private let lock = Mutex()
        private var value: Value?
        private var started = false

        func start() {
            lock.withLock { started = true }
            DispatchQueue.global().async { [self] in
                let v = Self.compute()
                lock.withLock { value = v }
                done.signal()
            }
        }

        func get() -> Value {
            if !lock.withLock({ started }) { start() }
            if let v = lock.withLock({ value }) { return v }
            done.wait()
            done.signal()
            return lock.withLock { value } ?? .failure(ProbeSuiteError(stage: WorkerTiming.stage, graph: "calibration",
                                                                       underlying: "the reference run did not finish"))
        }

        private static func compute() -> Value {
            do {
                let c = try ProbeSuite.calibration()
                return .success((c, try ReferenceInterpreter.run(c.graph, inputs: c.inputs)))
            } catch {
                return .failure(ProbeSuiteError(stage: WorkerTiming.stage, graph: "calibration", underlying: "\(error)"))
            }
        }
    }

    private func time(_ units: [Pending], reference: CalibrationReference) -> [Result<ProbeSpeed, Rejection>] {
        guard !units.isEmpty else { return [] }
        report("timing " + units.map(\.selector).joined(separator: ", ") + " on the calibration graph")
        let stage = WorkerTiming.stage
        switch reference.get() {
        case .failure(let e):
            return units.map { _ in .failure(Rejection(outcome: ProbeOutcome(state: .failed, stage: stage, reason: e.description))) }
        case .success(let (c, expected)):
            return WorkerTiming.measure(units.map { unit($0) }, c, expected: expected).map { result in
                result.mapError { error in
                    if let r = error as? WorkerTiming.Wrong {
                        return Rejection(outcome: ProbeOutcome(state: .rejected, stage: stage, reason: r.mismatch.description,
                                                               mismatch: r.mismatch))
                    }
                    return Rejection(outcome: ProbeOutcome(state: .rejected, stage: stage,
                        reason: "stage \(stage), graph \(c.name): \(error)",
                        timeout: ProbeTimeout.seconds(of: error).map { ProbeTimeout(seconds: $0, attempt: 1) }))
                }
            }
        }
    }

    // MARK: - rows

    private func apply(_ outcome: ProbeOutcome, to row: inout UnitProbeRecord) {
        row.state = outcome.state
        row.stage = outcome.stage
        row.reason = outcome.reason
        row.mismatch = outcome.mismatch
        row.coverage = outcome.coverage
        row.concurrency = outcome.concurrency
        row.timeout = outcome.timeout
    }

    private func failedRow(path: String, reason: String) -> UnitProbeRecord {
        UnitProbeRecord(backend: lastComponent(path), path: path, device: "", unit: .unknown, index: nil,
                        driver: "", state: .failed, reason: reason)
    }

    /// 1 = most runs per second; ties by selector so the order is stable.
    static func rank(_ rows: inout [UnitProbeRecord]) {
        let order = rows.indices.filter { rows[$0].state == .accepted }.sorted { a, b in
            let sa = rows[a].speed?.runsPerSecond ?? 0, sb = rows[b].speed?.runsPerSecond ?? 0
            return sa != sb ? sa > sb : rows[a].selector < rows[b].selector
        }
        for (k, i) in order.enumerated() { rows[i].rank = k + 1 }
        for i in rows.indices where rows[i].state != .accepted { rows[i].rank = nil }
    }

    private func report(_ line: String) {
        guard let progress else { return }
        progressLock.withLock { progress(line) }
    }

    private func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
