import WorkerIPC
#if canImport(Glibc)
import Glibc
#endif

/// The worker side (`waihost-unit-worker`, docs/probe.md §3): loads one plugin and serves
/// the host's requests — load and list, prepare, run, release — on fd 3 and on every
/// channel the host opens. It computes nothing about the plugin: no verdict, no speed, no
/// comparison; those are the host's, from what comes back. Probe runs and real runs are the
/// same requests, so the plugin cannot tell them apart.
public enum UnitWorkerServer {
    /// Serves until the host closes the control channel; returns the exit status.
    public static func main() -> Int32 {
        wipc_install_crash_log()
        signal(SIGPIPE, SIG_IGN)
        // Line-buffered: the plugin's printf lines reach the host's log before a crash.
        setvbuf(stdout, nil, _IOLBF, 0)
        let state = State()
        serve(channel: 3, control: true, state: state)
        return 0
    }

    final class State: @unchecked Sendable {
        let lock = Mutex()
        var plugin: BackendPlugin?
        var prepared: [UInt32: Prepared] = [:]
        var nextHandle: UInt32 = 1
    }

    final class Prepared: @unchecked Sendable {
        let graph: PreparedGraph
        let arena: SharedArena
        let inputs: Int
        init(graph: PreparedGraph, arena: SharedArena, inputs: Int) {
            self.graph = graph; self.arena = arena; self.inputs = inputs
        }
    }

    static func serve(channel: Int32, control: Bool, state: State) {
        while true {
            guard case .success(let (headerBytes, headerFD)) = WorkerWire.readExactly(channel, WorkerWire.headerSize) else { break }
            guard let header = WorkerWire.Header(headerBytes), Int(header.length) <= WorkerWire.maxRequestBody else {
                if headerFD >= 0 { close(headerFD) }
                break   // not the host speaking: stop serving this channel
            }
            var fd = headerFD
            var body: [UInt8] = []
            if header.length > 0 {
                guard case .success(let (b, bodyFD)) = WorkerWire.readExactly(channel, Int(header.length)) else { break }
                body = b
                if fd < 0 { fd = bodyFD } else if bodyFD >= 0 { close(bodyFD) }
            }
            let reply: Result<[UInt8], WorkerError>
            // A plugin call's failure also travels as its call and ABI status, so the host
            // can tell `unsupported` and `out_of_memory` from other refusals (per-op
            // acceptance, docs/probe.md §2) without parsing text.
            var failedCall: (path: String, call: String, status: String, message: String)?
            do {
                reply = .success(try handle(WorkerWire.Kind(rawValue: header.kind), body, fd: fd, control: control, state: state))
            } catch let e as WorkerError {
                reply = .failure(e)
            } catch let PluginError.callFailed(path, call, status, message) {
                failedCall = (path, call, status, message)
                reply = .failure(.refused("\(PluginError.callFailed(path: path, call: call, status: status, message: message))"))
            } catch {
                reply = .failure(.refused("\(error)"))
            }
            let sent: Int32
            switch reply {
            case .success(let b):
                sent = WorkerWire.send(channel, kind: .ok, tag: header.tag, body: b)
            case .failure(let e):
                var w = ByteWriter()
                w.string(e.description)
                if let f = failedCall {
                    w.u8(1)
                    w.string(f.path)
                    w.string(f.call)
                    w.string(f.status)
                    w.string(f.message)
                }
                sent = WorkerWire.send(channel, kind: .error, tag: header.tag, body: w.bytes)
            }
            if sent != 0 { break }
        }
        close(channel)
        if control { exit(0) }
    }

    private static func handle(_ kind: WorkerWire.Kind?, _ body: [UInt8], fd: Int32, control: Bool,
                               state: State) throws -> [UInt8] {
        var r = ByteReader(body, source: "unit worker request", end: body.count)
        switch kind {
        case .load?:
            if fd >= 0 { close(fd) }
            let path = try r.wireString("plugin path")
            return try state.lock.withLock {
                guard state.plugin == nil else { throw WorkerError.refused("a plugin is already loaded in this worker") }
                let plugin = try BackendPlugin.load(path: path)
                let units = try plugin.units()
                state.plugin = plugin
                return PluginWorker.encodeListing(.init(name: plugin.name, version: plugin.version,
                                                        abiMinor: plugin.abiMinor, units: units))
            }
        case .openChannel?:
            guard control, fd >= 0 else {
                if fd >= 0 { close(fd) }
                throw WorkerError.refused("openChannel without a descriptor, or not on the control channel")
            }
            try startThread(channel: fd, state: state)
            return []
        case .prepare?:
            guard fd >= 0 else { throw WorkerError.refused("prepare without tensor memory") }
            defer { close(fd) }
            let unit = Int(try r.u32("unit"))
            let nIn = try r.count("input count", 0...65536), nOut = try r.count("output count", 0...65536)
            var regions: [SharedArena.Region] = []
            for _ in 0..<(nIn + nOut) {
                let o = try r.u64("offset"), c = try r.u64("count")
                guard let oi = Int(exactly: o), let ci = Int(exactly: c) else { throw WorkerError.refused("region out of range") }
                regions.append(.init(offset: oi, count: ci))
            }
            let container = Array(try r.raw(r.remaining, "graph container"))
            let graph = try ModelContainer.parse(container, source: "graph from the host")
            guard graph.inputs.count == nIn, graph.outputs.count == nOut else {
                throw WorkerError.refused("the graph has \(graph.inputs.count) inputs and \(graph.outputs.count) outputs, the request \(nIn) and \(nOut)")
            }
            let arena = try SharedArena(mapping: dup(fd), regions: regions)
            arena.closeDescriptor()
            guard let plugin = state.lock.withLock({ state.plugin }) else { throw WorkerError.refused("no plugin loaded") }
            let prepared = try plugin.prepare(unit: unit, graph: graph)
            let handle: UInt32 = state.lock.withLock {
                let h = state.nextHandle
                state.nextHandle &+= 1
                state.prepared[h] = Prepared(graph: prepared, arena: arena, inputs: nIn)
                return h
            }
            var w = ByteWriter()
            w.u32(handle)
            return w.bytes
        case .run?:
            if fd >= 0 { close(fd) }
            let h = try r.u32("handle")
            guard let p = state.lock.withLock({ state.prepared[h] }) else { throw WorkerError.refused("no prepared graph \(h)") }
            let buffers = p.arena.regions.indices.map { p.arena.buffer($0) }
            let interval = try p.graph.runInPlace(inputs: Array(buffers[..<p.inputs]), outputs: Array(buffers[p.inputs...]))
            // When graph_run was running: the host checks it against its own stamps and uses
            // it only to tell whether concurrent runs overlapped (docs/probe.md §3).
            var w = ByteWriter()
            w.u64(interval.start); w.u64(interval.end)
            return w.bytes
        case .release?:
            if fd >= 0 { close(fd) }
            let h = try r.u32("handle")
            let p = state.lock.withLock { state.prepared.removeValue(forKey: h) }
            withExtendedLifetime(p) {}
            return []
        default:
            if fd >= 0 { close(fd) }
            throw WorkerError.refused("unknown request kind")
        }
    }

    private static func startThread(channel: Int32, state: State) throws {
        final class Job { let channel: Int32; let state: State; init(_ c: Int32, _ s: State) { channel = c; state = s } }
        let box = Unmanaged.passRetained(Job(channel, state)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            UnitWorkerServer.serve(channel: job.channel, control: false, state: job.state)
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Job>.fromOpaque(box).release()
            close(channel)
            throw WorkerError.refused("cannot start a channel thread: \(String(cString: strerror(rc)))")
        }
        pthread_detach(thread)
    }
}
