/// A unit of a plugin, reached through the plugin's worker process: the GraphUnit every
/// real plugin unit is probed, timed and dispatched through, so plugin code never runs in
/// the host process. Every request has a time limit (`timeout`, seconds).
public struct WorkerUnit: GraphUnit {
    let worker: PluginWorker
    public let unit: Int
    public let timeout: Double

    package init(worker: PluginWorker, unit: Int, timeout: Double) {
        self.worker = worker; self.unit = unit; self.timeout = timeout
    }

    public func prepare(_ graph: IntegerGraph) throws -> any PreparedGraphRun {
        try prepare(graph, name: nil)
    }

    /// `name`: what failure reasons call the graph ("h_s of model set …"), when it has a name.
    public func prepare(_ graph: IntegerGraph, name: String?) throws -> any PreparedGraphRun {
        try prepare(graph, name: name, prepareTimeout: timeout)
    }

    /// `prepareTimeout`: the limit of the graph_prepare request alone (the probe's first
    /// prepare, where drivers build their programs, docs/probe.md §3); its runs keep `timeout`.
    func prepare(_ graph: IntegerGraph, name: String?, prepareTimeout: Double) throws -> any PreparedGraphRun {
        let (process, listing) = try worker.live(timeout: timeout)
        guard listing.units.indices.contains(unit) else {
            throw WorkerError.refused("\(worker.path): unit \(unit): no such unit (the backend offers \(listing.units.count))")
        }
        let counts = graph.inputs.map { graph.tensors[$0].shape.count } + graph.outputs.map { graph.tensors[$0].shape.count }
        let arena = try SharedArena(counts: counts)
        var w = ByteWriter()
        w.u32(UInt32(unit))
        w.count(graph.inputs.count); w.count(graph.outputs.count)
        for r in arena.regions { w.u64(UInt64(r.offset)); w.u64(UInt64(r.count)) }
        w.raw(ModelContainer.encode(graph))
        let what = GraphDescription.of(graph, name: name)
        let reply = try process.request(.prepare, body: w.bytes, fd: arena.fd, timeout: prepareTimeout,
                                        what: "graph_prepare of \(what) on unit \(unit)")
        arena.closeDescriptor()
        var r = ByteReader(reply, source: "unit worker prepare reply", end: reply.count)
        guard let handle = try? r.u32("handle") else {
            throw WorkerError.refused("the unit worker's prepare reply is unreadable")
        }
        return WorkerPreparedGraph(process: process, handle: handle, arena: arena, graph: graph,
                                   what: "graph_run of \(what) on unit \(unit)", timeout: timeout)
    }
}

/// A graph prepared in a worker. Runs of one prepared graph are serialised here (ABI §8);
/// runs of different ones go out on different channels at once.
public final class WorkerPreparedGraph: PreparedGraphRun, @unchecked Sendable {
    let process: UnitWorkerProcess
    private let handle: UInt32
    private let arena: SharedArena
    private let inputShapes: [Shape]
    private let outputShapes: [Shape]
    private let sentinels: [Int32]
    private let what: String
    private let timeout: Double
    private let lock = Mutex()

    init(process: UnitWorkerProcess, handle: UInt32, arena: SharedArena, graph: IntegerGraph,
         what: String, timeout: Double) {
        self.process = process; self.handle = handle; self.arena = arena
        self.what = what; self.timeout = timeout
        inputShapes = graph.inputs.map { graph.tensors[$0].shape }
        outputShapes = graph.outputs.map { graph.tensors[$0].shape }
        sentinels = graph.outputs.map { OutputSentinel.value(outside: graph.tensors[$0].interval) }
    }

    deinit {
        guard process.isAlive else { return }
        var w = ByteWriter()
        w.u32(handle)
        _ = try? process.request(.release, body: w.bytes, timeout: timeout, what: "graph_release")
    }

    /// False once the worker that holds this graph has died: prepare again.
    public var isUsable: Bool { process.isAlive }

    public func run(_ inputs: [TensorValue]) throws -> [TensorValue] {
        try timedRun(inputs).outputs
    }

    /// The interval is the worker's stamps around graph_run, kept only when they lie inside
    /// the host's own stamps around the request (`RunInterval.checked`); nil otherwise.
    public func timedRun(_ inputs: [TensorValue]) throws -> TimedRun {
        guard inputs.count == inputShapes.count else {
            throw WorkerError.refused("graph has \(inputShapes.count) inputs, run was given \(inputs.count)")
        }
        for (i, (value, shape)) in zip(inputs, inputShapes).enumerated() {
            guard value.shape == shape, value.values.count == shape.count else {
                throw WorkerError.refused("input \(i) has shape \(value.shape) with \(value.values.count) values, graph wants \(shape)")
            }
        }
        var w = ByteWriter()
        w.u32(handle)
        let body = w.bytes
        return try lock.withLock {
            for (k, value) in inputs.enumerated() {
                let b = arena.buffer(k)
                value.values.withUnsafeBufferPointer { src in
                    if let s = src.baseAddress, let d = b.baseAddress { d.update(from: s, count: src.count) }
                }
            }
            // Pre-filled outside each output's interval: an element the plugin never wrote
            // cannot equal the reference by luck.
            for k in outputShapes.indices {
                arena.buffer(inputs.count + k).update(repeating: sentinels[k])
            }
            let sent = monotonicNanoseconds()
            let reply = try process.request(.run, body: body, timeout: timeout, what: what)
            let bracket = RunInterval(start: sent, end: monotonicNanoseconds())
            // Fresh storage for each output, tens of MB for a large tile: huge pages (HugePages).
            let outputs = outputShapes.enumerated().map { k, shape in
                TensorValue(shape: shape, values: Array(hugePagesCopying: UnsafeBufferPointer(arena.buffer(inputs.count + k))))
            }
            return TimedRun(outputs: outputs, interval: Self.interval(reply, within: bracket))
        }
    }

    /// The run reply's two stamps (u64 nanoseconds, start then end); nil when the reply is
    /// not exactly that or the stamps fall outside the host's bracket. The outputs are
    /// compared either way: a missing interval only means the run proves no overlap.
    static func interval(_ reply: [UInt8], within bracket: RunInterval) -> RunInterval? {
        guard reply.count == 16 else { return nil }
        var r = ByteReader(reply, source: "unit worker run reply", end: reply.count)
        guard let start = try? r.u64("start"), let end = try? r.u64("end") else { return nil }
        return RunInterval.checked(RunInterval(start: start, end: end), within: bracket)
    }
}

/// A graph as failure reasons name it (docs/probe.md §3): its name when it has one, every
/// node's op in order, and its input and output shapes. The ABI runs a whole graph in one
/// `graph_run` call, so for a graph of several nodes the host cannot know which node the
/// plugin was running when it died, and the description says so instead of guessing.
enum GraphDescription {
    /// Nodes listed one by one up to this many; longer graphs are counted per op after that.
    static let listedNodes = 24

    static func of(_ graph: IntegerGraph, name: String? = nil) -> String {
        let n = graph.nodes.count
        var ops: String
        if n == 1, let only = graph.nodes.first {
            ops = "its only node: \(only.op.name)"
        } else {
            ops = graph.nodes.prefix(listedNodes).enumerated().map { "\($0.offset) \($0.element.op.name)" }
                .joined(separator: ", ")
            if n > listedNodes {
                var counts: [(String, Int)] = []
                for node in graph.nodes.dropFirst(listedNodes) {
                    if let i = counts.firstIndex(where: { $0.0 == node.op.name }) { counts[i].1 += 1 } else { counts.append((node.op.name, 1)) }
                }
                ops += ", then " + counts.map { "\($0.0) ×\($0.1)" }.joined(separator: ", ")
            }
            if n > 1 { ops += "; one graph_run call runs them all, so which was running is not known" }
        }
        func shapes(_ idx: [Int]) -> String {
            idx.prefix(3).map { let s = graph.tensors[$0].shape; return "\(s.channels)×\(s.height)×\(s.width)" }
                .joined(separator: ", ") + (idx.count > 3 ? ", …" : "")
        }
        let outputs = graph.outputs.prefix(3).map { graph.tensors[$0].name }.joined(separator: "+")
            + (graph.outputs.count > 3 ? "+…" : "")
        return "\(name.map { "\($0), " } ?? "")graph of \(n) node\(n == 1 ? "" : "s") writing \(outputs) (\(ops)), "
            + "in \(shapes(graph.inputs)), out \(shapes(graph.outputs))"
    }
}
