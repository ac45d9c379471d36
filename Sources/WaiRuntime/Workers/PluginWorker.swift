/// The worker of one plugin file, for one host: started on first use, the plugin loaded
/// into it and its units listed once per start. A worker that dies is started again on the
/// next request, at most `maxStarts` times in the host's life, so a plugin that crashes on
/// every call costs a bounded number of starts, never a loop.
package final class PluginWorker: @unchecked Sendable {
    struct Listing: Equatable, Sendable {
        var name: String
        var version: String
        var abiMinor: UInt32
        var units: [UnitInfo]
    }

    let path: String
    let executable: String?
    /// The content hash of the file when this worker was made for it, when known.
    let sha256: String?
    static let maxStarts = 4

    private let lock = Mutex()
    private var process: UnitWorkerProcess?
    private var listing: Listing?
    private var starts = 0
    /// The plugin refused to load (not ELF, dlopen, ABI): an answer, not a crash, so the
    /// worker is not started again for it.
    private var refusal: WorkerError?
    private var lastDeath: String = ""

    init(path: String, executable: String?, sha256: String?) {
        self.path = path; self.executable = executable; self.sha256 = sha256
    }

    /// The live worker with the plugin loaded, starting one if there is none.
    func live(timeout: Double) throws -> (UnitWorkerProcess, Listing) {
        try lock.withLock {
            if let refusal { throw refusal }
            if let p = process, let l = listing {
                if p.isAlive { return (p, l) }
                lastDeath = p.deathRecord?.description ?? "died"
                process = nil; listing = nil
            }
            guard let executable else { throw WorkerError.noWorkerExecutable }
            guard starts < Self.maxStarts else {
                throw WorkerError.restartLimit(path: path, starts: starts, last: lastDeath)
            }
            starts += 1
            let p = try UnitWorkerProcess.spawn(executable: executable)
            var w = ByteWriter()
            w.string(path)
            let reply: [UInt8]
            do {
                reply = try p.controlRequest(.load, body: w.bytes, timeout: timeout, what: "loading \(path)")
            } catch let e as WorkerError {
                if case .refused = e { refusal = e; p.terminate(reason: "the plugin did not load") }
                throw e
            }
            let l = try Self.parseListing(reply)
            process = p; listing = l
            return (p, l)
        }
    }

    /// Ends the current worker (the plugin file changed, or the host is done).
    func stop() {
        lock.withLock {
            process?.terminate(reason: "shutting the worker down")
            process = nil; listing = nil
        }
    }

    var startCount: Int { lock.withLock { starts } }
    /// The current worker's log tail (diagnostics and tests).
    var logText: String { lock.withLock { process?.log.text ?? "" } }

    static func encodeListing(_ l: Listing) -> [UInt8] {
        var w = ByteWriter()
        w.string(l.name); w.string(l.version); w.u32(l.abiMinor)
        w.count(l.units.count)
        for u in l.units {
            w.u8(UInt8(UnitKind.allCases.firstIndex(of: u.kind) ?? 0))
            w.string(u.device); w.string(u.driver); w.u8(u.narrowStorage ? 1 : 0)
        }
        return w.bytes
    }

    static func parseListing(_ bytes: [UInt8]) throws -> Listing {
        var r = ByteReader(bytes, source: "unit worker listing", end: bytes.count)
        do {
            let name = try r.wireString("name"), version = try r.wireString("version")
            let minor = try r.u32("abi minor")
            let n = try r.count("unit count", 0...4096)
            var units: [UnitInfo] = []
            for i in 0..<n {
                let k = Int(try r.u8("kind"))
                guard UnitKind.allCases.indices.contains(k) else { throw WorkerError.refused("unit \(i): kind \(k)") }
                units.append(UnitInfo(index: i, kind: UnitKind.allCases[k], device: try r.wireString("device"),
                                      driver: try r.wireString("driver"), narrowStorage: try r.u8("narrow") != 0))
            }
            return Listing(name: name, version: version, abiMinor: minor, units: units)
        } catch {
            throw WorkerError.refused("the unit worker's listing is unreadable: \(error)")
        }
    }
}

/// The workers of one host, one per plugin file.
package final class WorkerPool: @unchecked Sendable {
    let executable: String?
    private let lock = Mutex()
    private var workers: [String: PluginWorker] = [:]

    package init(executable: String?) { self.executable = executable }

    /// The worker of `path`. With `sha256`, a worker made for other content of the file
    /// (it was replaced since) is stopped and a new one made: the code that runs is the
    /// code that was hashed.
    package func worker(for path: String, sha256: String?) -> PluginWorker {
        let (w, old): (PluginWorker, PluginWorker?) = lock.withLock {
            if let w = workers[path], sha256 == nil || w.sha256 == nil || w.sha256 == sha256 { return (w, nil) }
            let w = PluginWorker(path: path, executable: executable, sha256: sha256)
            let old = workers.updateValue(w, forKey: path)
            return (w, old)
        }
        old?.stop()
        return w
    }
}
