import BackendABI
import BackendDescriptor
#if WAI_EMULATED_KERNELS
import EmulatedCPUKernels   // Tests/EmulatedCPUBackend: these sources over emulated AVX-512 and AMX
#else
import CPUKernels
#endif

/// One kernel call of a run. Tensor operands are graph tensor indices.
enum Step {
    case conv(ConvKernel, input: Int, output: Int)
    case inverseGDN(InverseGDNKernel, input: Int, output: Int)
    /// A conv whose output only the inverse GDN reads, run as one (cpuk_conv_igdn_run):
    /// `mid` is still written, but each row is finished while it is in cache.
    case convInverseGDN(ConvKernel, InverseGDNKernel, input: Int, mid: Int, output: Int)
    case requantize(RequantizeSpec, input: Int, output: Int)
    case clamp(lo: Int32, hi: Int32, input: Int, output: Int)
    case add(Int, Int, output: Int)
    case lookup(table: [Int32], offset: Int32, input: Int, output: Int)
    case depthToSpace(block: Int, input: Int, output: Int)
    case concat([Int], output: Int)
    case warp(WarpSpec, volume: Int, flow: Int, output: Int)

    var inputs: [Int] {
        switch self {
        case .conv(_, let i, _), .inverseGDN(_, let i, _), .convInverseGDN(_, _, let i, _, _), .requantize(_, let i, _), .clamp(_, _, let i, _),
             .lookup(_, _, let i, _), .depthToSpace(_, let i, _):
            return [i]
        case let .add(a, b, _), let .warp(_, a, b, _): return [a, b]
        case .concat(let xs, _): return xs
        }
    }

    var output: Int {
        switch self {
        case .conv(_, _, let o), .inverseGDN(_, _, let o), .convInverseGDN(_, _, _, _, let o), .requantize(_, _, let o), .clamp(_, _, _, let o),
             .add(_, _, let o), .lookup(_, _, _, let o), .depthToSpace(_, _, let o), .concat(_, let o), .warp(_, _, _, let o):
            return o
        }
    }

    /// Every tensor the step writes: a fused conv and inverse GDN writes two.
    var writes: [Int] {
        if case let .convInverseGDN(_, _, _, mid, output) = self { return [mid, output] }
        return [output]
    }
}

/// Turns a validated graph into kernel calls and buffers:
/// - a conv or inverse GDN whose output feeds exactly one node, a requantize or clamp, and
///   is not a graph output absorbs that node as its epilogue (the wide intermediate is
///   never stored);
/// - a conv whose output only an inverse GDN reads runs fused with it where the kernels
///   say it pays (cpuk_conv_igdn_fusable: on the AMX and AVX-512 paths);
/// - every stored tensor gets a slot in a buffer allocated here, once; tensors whose
///   lifetimes do not overlap share a buffer. Graph inputs stored in 32 bits are read
///   straight from the host's request and need none.
struct ExecutionPlan {
    let steps: [Step]
    /// tensor -> index into `buffers`; nil for 32-bit graph inputs and absorbed tensors.
    let slots: [Int?]
    let buffers: [StorageBuffer]
    /// The path of the kernels that take it at run time (the warp's rows).
    let isa: cpuk_isa

    init(_ spec: GraphSpec, backend: CPUBackendInstance, path: ISAPath) throws {
        isa = path.kernel
        let tensors = spec.tensors
        var reads = [Int](repeating: 0, count: tensors.count)
        for node in spec.nodes { for t in node.inputs { reads[t] += 1 } }
        var isOutput = [Bool](repeating: false, count: tensors.count)
        for t in spec.outputs { isOutput[t] = true }
        var writer = [Int?](repeating: nil, count: tensors.count)
        for (k, node) in spec.nodes.enumerated() { writer[node.output] = k }
        // The single reader of each tensor read exactly once.
        var reader = [Int?](repeating: nil, count: tensors.count)
        for (k, node) in spec.nodes.enumerated() { for t in node.inputs where reads[t] == 1 { reader[t] = k } }

        var absorbed = [Bool](repeating: false, count: spec.nodes.count)
        var steps: [Step] = []
        for (k, node) in spec.nodes.enumerated() where !absorbed[k] {
            let input = node.inputs[0]
            switch node.op {
            case .conv, .inverseGDN:
                var post = FusedPost.none
                var output = node.output
                if !isOutput[node.output], reads[node.output] == 1, let m = reader[node.output] {
                    switch spec.nodes[m].op {
                    case .requantize(let r): post = .requantize(r); absorbed[m] = true; output = spec.nodes[m].output
                    case let .clamp(lo, hi): post = .clamp(lo: lo, hi: hi); absorbed[m] = true; output = spec.nodes[m].output
                    default: break
                    }
                }
                if case .conv(let c) = node.op {
                    let kernel = try Self.makeConv(c, x: tensors[input], y: tensors[node.output],
                                                   outBits: tensors[output].bits, post: post, node: k, backend: backend, path: path)
                    steps.append(.conv(kernel, input: input, output: output))
                } else if case .inverseGDN(let g) = node.op {
                    let kernel = try Self.makeInverseGDN(g, x: tensors[input], outBits: tensors[output].bits,
                                                         post: post, node: k, backend: backend, path: path)
                    if case let .conv(conv, convInput, convOutput)? = steps.last, convOutput == input,
                       reads[input] == 1, !isOutput[input], cpuk_conv_igdn_fusable(conv.handle, kernel.handle) != 0 {
                        steps[steps.count - 1] = .convInverseGDN(conv, kernel, input: convInput, mid: input, output: output)
                    } else {
                        steps.append(.inverseGDN(kernel, input: input, output: output))
                    }
                }
            case .requantize(let r): steps.append(.requantize(r, input: input, output: node.output))
            case let .clamp(lo, hi): steps.append(.clamp(lo: lo, hi: hi, input: input, output: node.output))
            case .add: steps.append(.add(node.inputs[0], node.inputs[1], output: node.output))
            case let .lookup(table, offset): steps.append(.lookup(table: table, offset: offset, input: input, output: node.output))
            case .depthToSpace(let r): steps.append(.depthToSpace(block: r, input: input, output: node.output))
            case .concat: steps.append(.concat(node.inputs, output: node.output))
            case .warp(let p): steps.append(.warp(p, volume: node.inputs[0], flow: node.inputs[1], output: node.output))
            }
        }
        self.steps = steps

        // Lifetimes in step time; graph inputs are written at time -1, before step 0.
        let never = Int.max
        var lastUse = [Int](repeating: -1, count: tensors.count)
        for (s, step) in steps.enumerated() { for t in step.inputs { lastUse[t] = s } }
        for t in spec.outputs { lastUse[t] = never }
        var slots = [Int?](repeating: nil, count: tensors.count)
        var buffers: [StorageBuffer] = []
        var holder: [Int?] = []        // buffer -> the tensor living in it now
        var free: [Int] = []
        func place(_ t: Int) throws {
            let bytes = tensors[t].count * Int(tensors[t].bits / 8)
            if let k = free.indices.filter({ buffers[free[$0]].bytes >= bytes })
                .min(by: { buffers[free[$0]].bytes < buffers[free[$1]].bytes }) {
                slots[t] = free.remove(at: k)
            } else {
                guard let b = StorageBuffer(bytes: bytes) else {
                    throw BackendFailure.outOfMemory("graph_prepare: no memory for tensor \(t) (\(tensors[t].shapeText), \(bytes) bytes)")
                }
                buffers.append(b)
                holder.append(nil)
                slots[t] = buffers.count - 1
            }
            if let slot = slots[t] { holder[slot] = t }
        }
        func release(after time: Int, _ candidates: [Int]) {
            for t in candidates where lastUse[t] <= time {
                if let slot = slots[t], holder[slot] == t {
                    holder[slot] = nil
                    free.append(slot)
                }
            }
        }
        for t in spec.inputs where tensors[t].bits == 16 { try place(t) }
        release(after: -1, spec.inputs)
        for (s, step) in steps.enumerated() {
            // Placed before the inputs are released: a kernel never writes over its input.
            for t in step.writes { try place(t) }
            release(after: s, step.inputs + step.writes)
        }
        self.slots = slots
        self.buffers = buffers
    }

    private static func makeConv(_ c: ConvSpec, x: TensorSpec, y: TensorSpec, outBits: Int32, post: FusedPost,
                                 node: Int, backend: CPUBackendInstance, path: ISAPath) throws -> ConvKernel {
        var message = [CChar](repeating: 0, count: 256)
        let handle: OpaquePointer? = c.weights.withUnsafeBufferPointer { w in
            c.bias.withUnsafeBufferPointer { b in
                post.withC { p in
                    var d = cpuk_conv_desc(
                        transposed: c.transposed ? 1 : 0,
                        cin: Int32(x.channels), h: Int32(x.height), w: Int32(x.width),
                        cout: Int32(y.channels), ho: Int32(y.height), wo: Int32(y.width),
                        kh: Int32(c.kernelH), kw: Int32(c.kernelW), stride: Int32(c.stride),
                        pad: Int32(c.pad), output_pad: Int32(c.outputPad),
                        weights: w.baseAddress, bias: b.baseAddress,
                        in_bits: x.bits, out_bits: outBits, in_lo: x.lo, in_hi: x.hi, post: p)
                    return message.withUnsafeMutableBufferPointer {
                        cpuk_conv_create(&d, path.kernel, Int32(backend.threads), $0.baseAddress, $0.count)
                    }
                }
            }
        }
        guard let handle else {
            throw BackendFailure.outOfMemory("graph_prepare: node \(node): \(String(cString: message))")
        }
        return ConvKernel(handle: handle)
    }

    private static func makeInverseGDN(_ g: InverseGDNSpec, x: TensorSpec, outBits: Int32, post: FusedPost,
                                       node: Int, backend: CPUBackendInstance, path: ISAPath) throws -> InverseGDNKernel {
        var message = [CChar](repeating: 0, count: 256)
        let handle: OpaquePointer? = g.beta.withUnsafeBufferPointer { beta in
            g.gamma.withUnsafeBufferPointer { gamma in
                post.withC { p in
                    var d = cpuk_igdn_desc(
                        c: Int32(x.channels), h: Int32(x.height), w: Int32(x.width),
                        beta: beta.baseAddress, gamma: gamma.baseAddress,
                        square_shift: Int32(g.squareShift), out_shift: Int32(g.outShift),
                        in_lo: x.lo, in_hi: x.hi, in_bits: x.bits, out_bits: outBits, post: p)
                    return message.withUnsafeMutableBufferPointer {
                        cpuk_igdn_create(&d, path.kernel, Int32(backend.threads), $0.baseAddress, $0.count)
                    }
                }
            }
        }
        guard let handle else {
            throw BackendFailure.outOfMemory("graph_prepare: node \(node): \(String(cString: message))")
        }
        return InverseGDNKernel(handle: handle)
    }
}
