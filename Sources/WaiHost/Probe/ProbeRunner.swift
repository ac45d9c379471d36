/// The parent side of probing: discovers plugins, lists their units and probes each unit
/// in `probe-worker` children with a time limit, consults and fills the cache, and ranks
/// the accepted units by speed (docs/probe.md).
struct ProbeRunner {
    let configuration: HostConfiguration
    let progress: ((String) -> Void)?
    private let progressLock = PluginLock()

    init(configuration: HostConfiguration, progress: ((String) -> Void)?) {
        self.configuration = configuration
        self.progress = progress
    }

    /// What listing one plugin gave.
    enum Listing {
        case failed(String)
        case listed(name: String, version: String, sha256: String, units: [UnitInfo])
    }

    /// A unit waiting for its verdict.
    struct Pending {
        var row: Int
        var path: String
        var unit: Int
        var selector: String
        var key: String?
    }

    func run(fresh: Bool) -> ProbeResult {
        var warnings: [String] = []
        let warn: (String) -> Void = { warnings.append($0) }
        let scan = PluginDiscovery.scan(directories: configuration.pluginDirectories)
        var rows: [UnitProbeRecord] = scan.problems.map {
            UnitProbeRecord(backend: lastComponent($0.path), path: $0.path, device: "", unit: "unknown", index: nil,
                            driver: "", state: .failed, reason: "plugin folder \($0.path) cannot be read: \($0.reason)")
        }
        guard let prober = configuration.proberExecutable else {
            rows += scan.plugins.map {
                failedRow(path: $0, reason: "no probe worker executable (set WAIHOST_PROBER to the waihost binary)")
            }
            return ProbeResult(units: rows, warnings: warnings)
        }

        let listings = parallelMap(scan.plugins, width: configuration.probeParallelism) { list(path: $0, prober: prober) }
        let cache = configuration.cacheDirectory.map { ProbeCache(directory: $0) }
        let cached = fresh ? [:] : (cache?.load(warn: warn) ?? [:])

        var pending: [Pending] = []
        for (path, listing) in zip(scan.plugins, listings) {
            switch listing {
            case .failed(let reason):
                rows.append(failedRow(path: path, reason: reason))
            case let .listed(name, version, sha, units):
                if units.isEmpty {
                    rows.append(UnitProbeRecord(backend: name, path: path, backendVersion: version, device: "",
                                                unit: "unknown", index: nil, driver: "", state: .failed,
                                                reason: "the backend offers no units (no usable device)"))
                }
                for u in units {
                    let key = ProbeCache.key(pluginSHA256: sha, unit: u)
                    var row = UnitProbeRecord(backend: name, path: path, backendVersion: version, device: u.device,
                                              unit: u.kind.rawValue, index: u.index, driver: u.driver,
                                              state: .failed, reason: "not probed")
                    row.pluginSHA256 = sha
                    if let hit = cached[key] {
                        apply(hit.outcome, to: &row)
                        row.speed = hit.speed
                        row.cached = true
                        rows.append(row)
                    } else {
                        rows.append(row)
                        pending.append(Pending(row: rows.count - 1, path: path, unit: u.index, selector: row.selector, key: key))
                    }
                }
            }
        }

        // Exactness in parallel; timing one unit at a time, so units do not slow each other.
        let outcomes = parallelMap(pending, width: configuration.probeParallelism) {
            probe($0, device: rows[$0.row].device, prober: prober)
        }
        var newEntries: [String: ProbeCache.Entry] = [:]
        for (p, outcome) in zip(pending, outcomes) {
            apply(outcome, to: &rows[p.row])
            if rows[p.row].state == .accepted {
                switch time(p, prober: prober) {
                case .success(let speed): rows[p.row].speed = speed
                case .failure(let rejection): apply(rejection.outcome, to: &rows[p.row])
                }
            }
            if let key = p.key, rows[p.row].state != .failed {
                let r = rows[p.row]
                newEntries[key] = ProbeCache.Entry(outcome: ProbeOutcome(state: r.state, stage: r.stage, reason: r.reason,
                                                                    mismatch: r.mismatch, coverage: r.coverage),
                                              speed: r.speed, backend: r.backend, device: r.device, driver: r.driver)
            }
        }
        cache?.store(newEntries, warn: warn)
        rank(&rows)
        return ProbeResult(units: rows, warnings: warnings)
    }

    // MARK: - workers

    private func list(path: String, prober: String) -> Listing {
        let sha: String
        do { sha = try SHA256.hexOfFile(path: path) } catch {
            return .failed("\(error)")
        }
        let out = Subprocess.run(executable: prober, arguments: ["probe-worker", "--list", path],
                                 timeout: configuration.probeTimeout)
        switch out.termination {
        case .spawnFailed(let why):
            return .failed("probe worker could not be started: \(why)")
        case .timedOut:
            return .failed("timed out after \(seconds(configuration.probeTimeout)) while loading")
        case .signaled(let s):
            return .failed("crashed: signal \(s) (\(Subprocess.signalName(s))) while loading")
        case .exited(let code):
            guard code == 0, let reply = WorkerProtocol.decode(WorkerProtocol.ListReply.self, out.stdout),
                  reply.proto == WorkerProtocol.version else {
                return .failed(garbage(stage: nil, out))
            }
            if let error = reply.error { return .failed(error) }
            guard let name = reply.name, let units = reply.units else { return .failed(garbage(stage: nil, out)) }
            return .listed(name: name, version: reply.version ?? "", sha256: sha, units: units)
        }
    }

    private func probe(_ p: Pending, device: String, prober: String) -> ProbeOutcome {
        var stage: String?
        report("probing \(p.selector) (\(device))")
        let out = Subprocess.run(executable: prober, arguments: ["probe-worker", p.path, String(p.unit)],
                                 timeout: configuration.probeTimeout) { line in
            if line.hasPrefix(WorkerProtocol.stagePrefix) {
                stage = String(line.dropFirst(WorkerProtocol.stagePrefix.count))
                report("probing \(p.selector) … stage \(stage!)")
            }
        }
        if let dead = died(out, stage: stage) { return dead }
        guard case .exited(0) = out.termination,
              let reply = WorkerProtocol.decode(WorkerProtocol.ProbeReply.self, out.stdout),
              reply.proto == WorkerProtocol.version else {
            return ProbeOutcome(state: .rejected, stage: stage, reason: garbage(stage: stage, out))
        }
        if let outcome = reply.outcome { return outcome }
        return ProbeOutcome(state: .failed, stage: stage, reason: reply.error ?? "probe worker gave neither outcome nor error")
    }

    private struct Rejection: Error { var outcome: ProbeOutcome }

    private func time(_ p: Pending, prober: String) -> Result<ProbeSpeed, Rejection> {
        report("timing \(p.selector) on the calibration graph")
        let stage = WorkerProtocol.calibrationStage
        let out = Subprocess.run(executable: prober, arguments: ["probe-worker", "--speed", p.path, String(p.unit)],
                                 timeout: configuration.probeTimeout)
        if let dead = died(out, stage: stage) { return .failure(Rejection(outcome: dead)) }
        guard case .exited(0) = out.termination,
              let reply = WorkerProtocol.decode(WorkerProtocol.SpeedReply.self, out.stdout),
              reply.proto == WorkerProtocol.version else {
            return .failure(Rejection(outcome: ProbeOutcome(state: .rejected, stage: stage, reason: garbage(stage: stage, out))))
        }
        if let speed = reply.speed { return .success(speed) }
        return .failure(Rejection(outcome: ProbeOutcome(state: .rejected, stage: stage,
            reason: "stage \(stage): the calibration graph failed: \(reply.error ?? "no reason given")")))
    }

    /// Crash, hang or a worker that could not start, as the unit's verdict.
    private func died(_ out: Subprocess.Outcome, stage: String?) -> ProbeOutcome? {
        let when = stage.map { "during stage \($0)" } ?? "while loading"
        switch out.termination {
        case .spawnFailed(let why):
            return ProbeOutcome(state: .failed, stage: stage, reason: "probe worker could not be started: \(why)")
        case .timedOut:
            return ProbeOutcome(state: .rejected, stage: stage,
                                reason: "timed out after \(seconds(configuration.probeTimeout)) \(when)")
        case .signaled(let s):
            return ProbeOutcome(state: .rejected, stage: stage,
                                reason: "crashed: signal \(s) (\(Subprocess.signalName(s))) \(when)")
        case .exited:
            return nil
        }
    }

    /// A worker that ended normally without a reply: its exit status, what it printed.
    private func garbage(stage: String?, _ out: Subprocess.Outcome) -> String {
        let when = stage.map { "during stage \($0)" } ?? "while loading"
        var reason: String
        if case .exited(let code) = out.termination, code != 0 {
            reason = "probe worker exited with status \(code) \(when)"
        } else {
            reason = "probe worker gave no valid reply \(when)"
        }
        if !out.stdout.isEmpty {
            reason += " (stdout: \(String(decoding: out.stdout.prefix(80), as: UTF8.self).debugDescription))"
        }
        let lastLine = String(decoding: out.stderr.suffix(200), as: UTF8.self).split(separator: "\n")
            .last { !$0.hasPrefix(WorkerProtocol.stagePrefix) }
        if let lastLine, !lastLine.isEmpty { reason += "; stderr: \(lastLine)" }
        return reason
    }

    // MARK: - rows

    private func apply(_ outcome: ProbeOutcome, to row: inout UnitProbeRecord) {
        row.state = outcome.state
        row.stage = outcome.stage
        row.reason = outcome.reason
        row.mismatch = outcome.mismatch
        row.coverage = outcome.coverage
    }

    private func failedRow(path: String, reason: String) -> UnitProbeRecord {
        UnitProbeRecord(backend: lastComponent(path), path: path, device: "", unit: "unknown", index: nil,
                        driver: "", state: .failed, reason: reason)
    }

    /// 1 = most runs per second; ties by selector so the order is stable.
    private func rank(_ rows: inout [UnitProbeRecord]) {
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

    private func seconds(_ t: Double) -> String {
        t == t.rounded() ? "\(Int(t))s" : "\(t)s"
    }
}
