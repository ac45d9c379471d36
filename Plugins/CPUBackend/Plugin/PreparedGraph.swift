import BackendABI
import BackendDescriptor
#if WAI_EMULATED_KERNELS
import EmulatedCPUKernels   // Tests/EmulatedCPUBackend: these sources over emulated AVX-512 and AMX
#else
import CPUKernels
#endif

/// A graph prepared for the CPU unit: its kernels, its buffers, and the tensor metadata a
/// run request is checked against. Holds its backend so the pool outlives it.
final class CPUPreparedGraph {
    private let backend: CPUBackendInstance
    private let tensors: [TensorSpec]
    private let inputs: [Int]
    private let outputs: [Int]
    private let plan: ExecutionPlan

    init(spec: GraphSpec, backend: CPUBackendInstance, path: ISAPath) throws {
        self.backend = backend
        tensors = spec.tensors
        inputs = spec.inputs
        outputs = spec.outputs
        plan = try ExecutionPlan(spec, backend: backend, path: path)
    }

    /// docs/backend-abi.md §7: the request is checked in full before anything is written.
    func run(inputs requestIn: UnsafePointer<wai_tensor>?, count nIn: UInt32,
             outputs requestOut: UnsafeMutablePointer<wai_tensor>?, count nOut: UInt32) throws {
        let request = try checkRunRequest(tensors: tensors, inputs: inputs, outputs: outputs,
                                          requestIn, count: nIn, requestOut, count: nOut) { values, count, lo, hi in
            cpuk_find_outside_i32(values, count, lo, hi)
        }

        // Where each tensor lives during this run.
        var address = [UnsafeMutableRawPointer?](repeating: nil, count: tensors.count)
        for (t, slot) in plan.slots.enumerated() {
            if let slot { address[t] = plan.buffers[slot].pointer }
        }
        for (k, t) in inputs.enumerated() {
            let spec = tensors[t]
            let data = request.inputs[k]
            if let destination = address[t] {
                cpuk_convert(data, 32, destination, spec.bits, spec.count)
            } else {
                address[t] = UnsafeMutableRawPointer(data)
            }
        }

        for step in plan.steps { execute(step, address) }

        for (k, t) in outputs.enumerated() {
            guard let source = address[t] else {
                throw BackendFailure(status: WAI_ERR_INTERNAL, message: "graph_run: output \(k) (tensor \(t)) has no storage")
            }
            let bits = plan.slots[t] == nil ? 32 : tensors[t].bits
            cpuk_convert(source, bits, request.outputs[k], 32, tensors[t].count)
        }
    }

    private func execute(_ step: Step, _ address: [UnsafeMutableRawPointer?]) {
        let pool = backend.pool
        // Every operand was placed by the plan or bound from the request above.
        func at(_ t: Int) -> UnsafeMutableRawPointer { address[t]! }
        func bits(_ t: Int) -> Int32 { plan.slots[t] == nil ? 32 : tensors[t].bits }
        switch step {
        case let .conv(kernel, input, output):
            cpuk_conv_run(kernel.handle, pool, at(input), at(output))
        case let .inverseGDN(kernel, input, output):
            cpuk_igdn_run(kernel.handle, pool, at(input), at(output))
        case let .convInverseGDN(conv, gdn, input, mid, output):
            cpuk_conv_igdn_run(conv.handle, gdn.handle, pool, at(input), at(mid), at(output))
        case let .requantize(r, input, output):
            let x = tensors[input]
            r.multiplier.withUnsafeBufferPointer { m in
                r.shift.withUnsafeBufferPointer { s in
                    cpuk_requantize(pool, at(input), bits(input), at(output), bits(output), Int32(x.channels), x.plane,
                                    m.baseAddress, s.baseAddress, r.lo, r.hi)
                }
            }
        case let .clamp(lo, hi, input, output):
            cpuk_clamp(pool, at(input), bits(input), at(output), bits(output), tensors[input].count, lo, hi)
        case let .add(a, b, output):
            cpuk_add(pool, at(a), bits(a), at(b), bits(b), at(output), bits(output), tensors[output].count)
        case let .lookup(table, offset, input, output):
            table.withUnsafeBufferPointer { tb in
                cpuk_lookup(pool, at(input), bits(input), at(output), bits(output), tensors[input].count,
                            tb.baseAddress, UInt32(tb.count), offset)
            }
        case let .depthToSpace(block, input, output):
            let y = tensors[output]
            cpuk_depth_to_space(pool, at(input), bits(input), at(output), bits(output),
                                Int32(y.channels), Int32(tensors[input].height), Int32(tensors[input].width), Int32(block))
        case let .warp(p, volume, flow, output):
            let y = tensors[output]
            cpuk_warp(pool, plan.isa, at(volume), bits(volume), at(flow), bits(flow), at(output), bits(output),
                      Int32(y.channels), Int32(p.scales), Int32(y.height), Int32(y.width), Int32(p.fracBits))
        case let .concat(parts, output):
            let outBits = bits(output)
            var offset = 0
            for t in parts {
                let count = tensors[t].count
                cpuk_convert(at(t), bits(t), at(output) + offset * Int(outBits / 8), outBits, count)
                offset += count
            }
        }
    }
}
