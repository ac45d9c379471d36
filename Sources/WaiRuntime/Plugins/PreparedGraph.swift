import BackendABI

/// A graph the backend prepared (weights uploaded, kernels compiled) for one unit.
/// One prepared graph is run by one thread at a time (docs/backend-abi.md §8); the lock
/// makes concurrent callers wait instead of breaking that rule.
public final class PreparedGraph: @unchecked Sendable {
    public let plugin: BackendPlugin
    private let handle: OpaquePointer
    private let inputSpecs: [(index: Int, spec: TensorSpec)]
    private let outputSpecs: [(index: Int, spec: TensorSpec)]
    private let lock = Mutex()

    init(plugin: BackendPlugin, handle: OpaquePointer, graph: IntegerGraph) {
        self.plugin = plugin
        self.handle = handle
        inputSpecs = graph.inputs.map { ($0, graph.tensors[$0]) }
        outputSpecs = graph.outputs.map { ($0, graph.tensors[$0]) }
    }

    deinit {
        plugin.table.pointee.graph_release?(handle)
    }

    /// Runs the graph. Inputs must match the graph's inputs in count and shape (the caller
    /// checks the input contract). Output buffers are pre-filled with a value outside each
    /// output's certified interval, so a backend that leaves an element unwritten cannot
    /// pass an equality comparison by luck.
    public func run(_ inputs: [TensorValue]) throws -> [TensorValue] {
        guard inputs.count == inputSpecs.count else {
            throw PluginError.runMismatch(path: plugin.path,
                reason: "graph has \(inputSpecs.count) inputs, run was given \(inputs.count)")
        }
        for (i, (value, input)) in zip(inputs, inputSpecs).enumerated() {
            guard value.shape == input.spec.shape, value.values.count == input.spec.shape.count else {
                throw PluginError.runMismatch(path: plugin.path,
                    reason: "input \(i) (\(input.spec.name)) has shape \(value.shape) with \(value.values.count) values, graph wants \(input.spec.shape)")
            }
        }
        // Host-owned request buffers (the ABI's data pointers are mutable, so the caller's
        // arrays are never handed out).
        var buffers: [UnsafeMutableBufferPointer<Int32>] = []
        defer { for b in buffers { b.deallocate() } }
        var inTensors: [wai_tensor] = []
        for (value, input) in zip(inputs, inputSpecs) {
            let b = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(value.values.count, 1))
            _ = b.initialize(from: value.values)
            buffers.append(b)
            inTensors.append(Self.tensor(index: input.index, buffer: b, count: value.values.count))
        }
        var outTensors: [wai_tensor] = []
        for output in outputSpecs {
            let count = output.spec.shape.count
            let b = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(count, 1))
            b.initialize(repeating: OutputSentinel.value(outside: output.spec.interval))
            buffers.append(b)
            outTensors.append(Self.tensor(index: output.index, buffer: b, count: count))
        }
        _ = try callRun(inTensors, &outTensors)
        let firstOutput = inputs.count
        return outputSpecs.enumerated().map { k, output in
            let b = buffers[firstOutput + k]
            return TensorValue(shape: output.spec.shape, values: Array(b.prefix(output.spec.shape.count)))
        }
    }

    /// Runs on tensors that already hold the inputs and have room for the outputs (the
    /// unit worker's shared memory): no copy in or out. Buffers are in graph order.
    /// Returns when the plugin's `graph_run` started and returned (the unit worker sends it to
    /// the host, docs/probe.md §3).
    @discardableResult
    func runInPlace(inputs: [UnsafeMutableBufferPointer<Int32>], outputs: [UnsafeMutableBufferPointer<Int32>]) throws -> RunInterval {
        guard inputs.count == inputSpecs.count, outputs.count == outputSpecs.count else {
            throw PluginError.runMismatch(path: plugin.path,
                reason: "graph has \(inputSpecs.count) inputs and \(outputSpecs.count) outputs, run was given \(inputs.count) and \(outputs.count)")
        }
        for (b, spec) in zip(inputs + outputs, (inputSpecs + outputSpecs).map(\.spec)) where b.count != spec.shape.count {
            throw PluginError.runMismatch(path: plugin.path, reason: "tensor \(spec.name) has \(b.count) values, graph wants \(spec.shape.count)")
        }
        let ins = zip(inputs, inputSpecs).map { Self.tensor(index: $1.index, buffer: $0, count: $0.count) }
        var outs = zip(outputs, outputSpecs).map { Self.tensor(index: $1.index, buffer: $0, count: $0.count) }
        return try callRun(ins, &outs)
    }

    private func callRun(_ inTensors: [wai_tensor], _ outTensors: inout [wai_tensor]) throws -> RunInterval {
        let run = plugin.table.pointee.graph_run!
        let (status, message, interval) = lock.withLock {
            inTensors.withUnsafeBufferPointer { ins in
                outTensors.withUnsafeMutableBufferPointer { outs in
                    // Stamped right around the plugin call, inside the per-graph lock.
                    let start = monotonicNanoseconds()
                    let (status, message) = BackendPlugin.callWithMessage { err, cap in
                        run(handle, ins.baseAddress, UInt32(ins.count), outs.baseAddress, UInt32(outs.count), err, cap)
                    }
                    return (status, message, RunInterval(start: start, end: monotonicNanoseconds()))
                }
            }
        }
        guard status == WAI_OK else {
            throw PluginError.callFailed(path: plugin.path, call: "graph_run",
                                         status: BackendPlugin.statusName(status), message: message)
        }
        return interval
    }

    private static func tensor(index: Int, buffer: UnsafeMutableBufferPointer<Int32>, count: Int) -> wai_tensor {
        var t = wai_tensor()
        t.struct_size = MemoryLayout<wai_tensor>.size
        t.tensor = UInt32(index)
        t.data = buffer.baseAddress
        t.count = count
        return t
    }
}
