import BackendABI
import BackendDescriptor
import OpenCLRuntime
#if canImport(Glibc)
import Glibc
#endif

/// A graph prepared on one OpenCL unit: weights on the device, one buffer per tensor, one
/// kernel object per dispatch, its own queue. Holds its backend so the OpenCL context
/// outlives it.
final class OpenCLPreparedGraph {
    private let backend: OpenCLBackendInstance
    private let tensors: [TensorSpec]
    private let inputs: [Int]
    private let outputs: [Int]
    private let graph: OpaquePointer

    init(spec: GraphSpec, backend: OpenCLBackendInstance, unit: UInt32) throws {
        self.backend = backend
        tensors = spec.tensors
        inputs = spec.inputs
        outputs = spec.outputs
        let info = backend.units[Int(unit)]
        let plan = try KernelPlan(spec, narrow: info.narrow != 0,
                                  lowering: OpenCLLowering(constantBytes: Int(clamping: info.max_constant)))
        graph = try Self.create(plan, spec, backend: backend, unit: unit)
    }

    deinit { oclrt_graph_destroy(graph) }

    /// Hands the plan to the runtime. Everything passed is copied or uploaded before
    /// oclrt_graph_create returns, so the temporary C arrays are freed right after.
    private static func create(_ plan: KernelPlan, _ spec: GraphSpec, backend: OpenCLBackendInstance, unit: UInt32) throws -> OpaquePointer {
        var allocations: [UnsafeMutableRawPointer] = []
        defer { allocations.forEach { free($0) } }
        func copy<T>(_ values: [T]) throws -> UnsafeMutablePointer<T> {
            guard let raw = malloc(max(1, values.count) * MemoryLayout<T>.stride) else {
                throw BackendFailure.outOfMemory("graph_prepare: out of host memory")
            }
            allocations.append(raw)
            let typed = raw.bindMemory(to: T.self, capacity: max(1, values.count))
            for (k, v) in values.enumerated() { (typed + k).initialize(to: v) }
            return typed
        }
        func cString(_ s: String) throws -> UnsafePointer<CChar> {
            guard let c = strdup(s) else { throw BackendFailure.outOfMemory("graph_prepare: out of host memory") }
            allocations.append(UnsafeMutableRawPointer(c))
            return UnsafePointer(c)
        }

        // A tensor no kernel stores (fused away) keeps its index with a token buffer.
        var buffers: [oclrt_buffer] = spec.tensors.enumerated().map { t, tensor in
            oclrt_buffer(bytes: plan.unstored.contains(t) ? 4 : UInt64(tensor.count * plan.bits[t] / 8), initial: nil)
        }
        for values in plan.parameters {
            buffers.append(oclrt_buffer(bytes: UInt64(max(1, values.count) * 4), initial: UnsafeRawPointer(try copy(values))))
        }
        let dispatches: [oclrt_dispatch] = try plan.dispatches.map { d in
            var out = oclrt_dispatch()
            out.kernel = try cString(d.kernel)
            if let options = d.options {
                out.source = try cString(ConvKernelSource.text)
                out.options = try cString(options)
            }
            withUnsafeMutableBytes(of: &out.buffers) { raw in
                for k in 0..<Int(OCLRT_BUFFER_ARGS) {
                    let b = k < d.buffers.count ? d.buffers[k] : nil
                    raw.storeBytes(of: b.map { UInt32($0) } ?? OCLRT_UNUSED, toByteOffset: 4 * k, as: UInt32.self)
                }
            }
            out.items = UInt64(d.items)
            withUnsafeMutableBytes(of: &out.params) { raw in
                for (k, v) in d.params.enumerated() { raw.storeBytes(of: v, toByteOffset: 4 * k, as: Int32.self) }
            }
            return out
        }
        let ins = spec.inputs.map { oclrt_transfer(buffer: UInt32($0), bits: UInt32(plan.bits[$0]), count: UInt64(spec.tensors[$0].count)) }
        let outs = spec.outputs.map { oclrt_transfer(buffer: UInt32($0), bits: UInt32(plan.bits[$0]), count: UInt64(spec.tensors[$0].count)) }

        var graph: OpaquePointer?
        try call("graph_prepare") { err, cap in
            KernelSource.text.withCString { source in
                oclrt_graph_create(backend.context, unit, source, buffers, UInt32(buffers.count),
                                   dispatches, UInt32(dispatches.count), ins, UInt32(ins.count), outs, UInt32(outs.count),
                                   &graph, err, cap)
            }
        }
        guard let graph else { throw BackendFailure(status: WAI_ERR_INTERNAL, message: "graph_prepare: the runtime returned no graph") }
        return graph
    }

    /// docs/backend-abi.md §7: the request is checked in full before the runtime sees it.
    func run(inputs requestIn: UnsafePointer<wai_tensor>?, count nIn: UInt32,
             outputs requestOut: UnsafeMutablePointer<wai_tensor>?, count nOut: UInt32) throws {
        let request = try checkRunRequest(tensors: tensors, inputs: inputs, outputs: outputs,
                                          requestIn, count: nIn, requestOut, count: nOut)
        let inPointers: [UnsafePointer<Int32>?] = request.inputs.map { UnsafePointer($0) }
        let outPointers: [UnsafeMutablePointer<Int32>?] = request.outputs
        try call("graph_run") { err, cap in oclrt_graph_run(graph, inPointers, outPointers, err, cap) }
    }
}
