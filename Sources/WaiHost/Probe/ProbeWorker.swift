#if canImport(Glibc)
import Glibc
#endif

/// The child side of out-of-process probing: `waihost probe-worker …` calls `main`.
/// Everything here runs plugin code, which is why it runs in its own process.
public enum ProbeWorker {
    public static let usage = """
        usage: waihost probe-worker --list PLUGIN
               waihost probe-worker PLUGIN UNIT
               waihost probe-worker --speed PLUGIN UNIT
        """

    /// Runs one worker request; returns the exit status (0 when a reply was printed).
    public static func main(_ arguments: [String]) -> Int32 {
        switch arguments.count {
        case 2 where arguments[0] == "--list":
            emit(list(path: arguments[1]))
            return 0
        case 3 where arguments[0] == "--speed":
            guard let unit = Int(arguments[2]), unit >= 0 else { return usageError() }
            emit(speed(path: arguments[1], unit: unit))
            return 0
        case 2 where !arguments[0].hasPrefix("-"):
            guard let unit = Int(arguments[1]), unit >= 0 else { return usageError() }
            emit(probe(path: arguments[0], unit: unit))
            return 0
        default:
            return usageError()
        }
    }

    static func list(path: String) -> WorkerProtocol.ListReply {
        do {
            let plugin = try BackendPlugin.load(path: path)
            let units = try plugin.units()
            return .init(proto: WorkerProtocol.version, name: plugin.name, version: plugin.version, units: units)
        } catch {
            return .init(proto: WorkerProtocol.version, error: "\(error)")
        }
    }

    static func probe(path: String, unit: Int) -> WorkerProtocol.ProbeReply {
        let plugin: BackendPlugin
        do { plugin = try BackendPlugin.load(path: path) } catch {
            return .init(proto: WorkerProtocol.version, error: "\(error)")
        }
        do {
            let outcome = try ExactnessProbe.run(progress: { stage in announce(stage.rawValue) },
                                                 unit: InProcessUnit(plugin: plugin, unit: unit))
            return .init(proto: WorkerProtocol.version, outcome: outcome)
        } catch {
            return .init(proto: WorkerProtocol.version, error: "\(error)")
        }
    }

    /// Times the calibration graph: one warm-up run, then at least 3 timed runs and until
    /// 0.25 s have passed (at most 50); the median is what ranks units.
    static func speed(path: String, unit: Int) -> WorkerProtocol.SpeedReply {
        announce(WorkerProtocol.calibrationStage)
        do {
            let plugin = try BackendPlugin.load(path: path)
            let c = try ProbeSuite.calibration()
            let prepared = try plugin.prepare(unit: unit, graph: c.graph)
            _ = try prepared.run(c.inputs)
            var times: [Double] = []
            let start = Subprocess.monotonicSeconds()
            while times.count < 3 || (times.count < 50 && Subprocess.monotonicSeconds() - start < 0.25) {
                let t0 = Subprocess.monotonicSeconds()
                _ = try prepared.run(c.inputs)
                times.append(Subprocess.monotonicSeconds() - t0)
            }
            times.sort()
            let median = times.count % 2 == 1 ? times[times.count / 2]
                                              : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            let safe = max(median, 1e-9)
            return .init(proto: WorkerProtocol.version,
                         speed: ProbeSpeed(runsPerSecond: 1 / safe, medianMilliseconds: median * 1000,
                                           runs: times.count, graph: c.name))
        } catch {
            return .init(proto: WorkerProtocol.version, error: "\(error)")
        }
    }

    static func announce(_ stage: String) {
        let line = WorkerProtocol.stagePrefix + stage + "\n"
        _ = line.withCString { fputs($0, stderr) }
        fflush(stderr)
    }

    static func emit<T: Encodable>(_ reply: T) {
        let bytes = WorkerProtocol.encode(reply) + [UInt8(ascii: "\n")]
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    static func usageError() -> Int32 {
        _ = (usage + "\n").withCString { fputs($0, stderr) }
        return 2
    }
}
