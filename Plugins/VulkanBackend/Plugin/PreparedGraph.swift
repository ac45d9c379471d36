import BackendABI
import BackendDescriptor
import VulkanRuntime
#if canImport(Glibc)
import Glibc
#endif

/// A graph prepared on one Vulkan unit: weights on the device, one buffer per tensor, one
/// recorded command buffer. Holds its backend so the Vulkan context outlives it.
final class VulkanPreparedGraph {
    private let backend: VulkanBackendInstance
    private let tensors: [TensorSpec]
    private let inputs: [Int]
    private let outputs: [Int]
    private let graph: OpaquePointer

    init(spec: GraphSpec, backend: VulkanBackendInstance, unit: UInt32) throws {
        self.backend = backend
        tensors = spec.tensors
        inputs = spec.inputs
        outputs = spec.outputs
        let info = backend.units[Int(unit)]
        let plan = try KernelPlan(spec, narrow: info.narrow != 0, lowering: VulkanLowering(uniformRange: info.uniform_range))
        graph = try Self.create(plan, spec, backend: backend, unit: unit)
    }

    deinit { vkrt_graph_destroy(graph) }

    /// Hands the plan to the runtime. Everything passed is copied or uploaded before
    /// vkrt_graph_create returns, so the temporary C arrays are freed right after.
    private static func create(_ plan: KernelPlan, _ spec: GraphSpec, backend: VulkanBackendInstance, unit: UInt32) throws -> OpaquePointer {
        var kernelNames: [String] = []
        var kernelIndex: [String: Int] = [:]
        for d in plan.dispatches where kernelIndex[d.kernel] == nil {
            kernelIndex[d.kernel] = kernelNames.count
            kernelNames.append(d.kernel)
        }
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

        var kernels: [vkrt_kernel] = []
        for name in kernelNames {
            guard let words = Shaders.words(name) else {
                throw BackendFailure(status: WAI_ERR_INTERNAL, message: "graph_prepare: kernel \(name) is not among the compiled shaders")
            }
            guard let cName = strdup(name) else { throw BackendFailure.outOfMemory("graph_prepare: out of host memory") }
            allocations.append(UnsafeMutableRawPointer(cName))
            kernels.append(vkrt_kernel(name: UnsafePointer(cName), code: UnsafePointer(try copy(words)), words: words.count))
        }
        var buffers: [vkrt_buffer] = spec.tensors.enumerated().map { t, tensor in
            vkrt_buffer(bytes: plan.unstored.contains(t) ? 4 : UInt64(tensor.count * plan.bits[t] / 8), initial: nil)
        }
        for values in plan.parameters {
            buffers.append(vkrt_buffer(bytes: UInt64(values.count * 4), initial: UnsafeRawPointer(try copy(values))))
        }
        let dispatches: [vkrt_dispatch] = plan.dispatches.map { d in
            var out = vkrt_dispatch()
            out.kernel = UInt32(kernelIndex[d.kernel] ?? 0)
            withUnsafeMutableBytes(of: &out.bindings) { raw in
                for (k, b) in d.buffers.enumerated() { raw.storeBytes(of: b.map { UInt32($0) } ?? VKRT_UNUSED, toByteOffset: 4 * k, as: UInt32.self) }
            }
            out.invocations = UInt32(d.items)
            withUnsafeMutableBytes(of: &out.push) { raw in
                for (k, v) in d.params.enumerated() { raw.storeBytes(of: v, toByteOffset: 4 * k, as: Int32.self) }
            }
            withUnsafeMutableBytes(of: &out.spec) { raw in
                for (k, v) in d.constants.enumerated() { raw.storeBytes(of: v, toByteOffset: 4 * k, as: Int32.self) }
            }
            out.window_offset = UInt64(d.windowOffset)
            out.window_range = UInt64(d.windowRange)
            return out
        }
        let ins = spec.inputs.map { vkrt_transfer(buffer: UInt32($0), bits: UInt32(plan.bits[$0]), count: UInt64(spec.tensors[$0].count)) }
        let outs = spec.outputs.map { vkrt_transfer(buffer: UInt32($0), bits: UInt32(plan.bits[$0]), count: UInt64(spec.tensors[$0].count)) }

        var graph: OpaquePointer?
        try call("graph_prepare") { err, cap in
            vkrt_graph_create(backend.context, unit, kernels, UInt32(kernels.count), buffers, UInt32(buffers.count),
                              dispatches, UInt32(dispatches.count), ins, UInt32(ins.count), outs, UInt32(outs.count),
                              &graph, err, cap)
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
        try call("graph_run") { err, cap in vkrt_graph_run(graph, inPointers, outPointers, err, cap) }
    }
}
