import BackendABI
import BackendDescriptor

/// The OpenCL backend's part of the shared planning (KernelPlan): its convolutions — the
/// design of docs/gpu-kernels.md §2 (`ConvPhases`: one dispatch per phase and weight window,
/// tiles of 8 × 64 × 8), its constants as `-D` options (§5) and its weights as short8 in
/// `__constant` memory where a window fits the device's constant buffer — and inverse GDN on
/// the same design (§8, `GDNTiling`).
struct OpenCLLowering: KernelLowering {
    /// Bytes of one `__constant` argument (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE).
    let constantBytes: Int

    /// §2: one tap and input channel of a group, 8 int16 weights.
    static let tapBytes = 16

    func conv(_ n: KernelPlan.ConvNode, into plan: inout KernelPlan) throws {
        let c = n.conv, tx = n.input, ty = n.output, cin = tx.channels, cout = ty.channels
        let phases = ConvPhases(c, cout: cout, outH: ty.height, outW: ty.width)
        // The kernels index weights, inputs and items in 32 bits: a convolution this large is refused, not wrapped.
        let tapsMax = phases.phases.map { $0.nu * $0.nv }.max() ?? 0
        guard phases.groups * 8 * cin * max(1, tapsMax) <= Int(Int32.max), cin * tx.plane <= Int(Int32.max),
              phases.phases.allSatisfy({ phases.groups * $0.tiles <= Int(Int32.max) / ConvPhases.workGroup }) else {
            throw BackendFailure.unsupported("graph_prepare: node \(n.index) (\(c.transposed ? "conv_transpose2d" : "conv2d")): \(cin)→\(cout) channels with a \(c.kernelH)×\(c.kernelW) kernel exceed the opencl backend's 2^31 weight, input and item indices")
        }
        let bias = plan.parameter(ConvTiling.padded(c.bias, cout: cout))
        var buffers: [Int?] = [n.x, n.y, nil, bias, nil, nil]
        var epilogue: [Int32] = [0, 0, 0]
        if let r = n.fused {
            buffers[4] = plan.parameter(r.multiplier)
            buffers[5] = plan.parameter(r.shift)
            epilogue = [1, r.lo, r.hi]
        }
        let types = "-D XT=\(plan.bits[n.x] == 16 ? "short" : "int") -D YT=\(plan.bits[n.y] == 16 ? "short" : "int")"
        for p in phases.phases {
            let unrolled = phases.unrolled(p)
            let groupBytes = p.nu * p.nv * cin * Self.tapBytes
            for window in phases.windows(groupBytes: groupBytes, limit: constantBytes) {
                var d = buffers
                d[2] = plan.parameter(Self.words(phases.weights(c, p, first: window.first, count: window.count, cin: cin, cout: cout)))
                // A run-time-tap program is one whatever the taps.
                let taps = unrolled ? "-D UNROLLED=1 -D NU=\(p.nu) -D NV=\(p.nv) -D CS=\(phases.columnStep)" : "-D UNROLLED=0"
                var dispatch = KernelPlan.Dispatch(
                    kernel: ConvKernelSource.kernel, buffers: d, items: window.count * p.tiles * ConvPhases.workGroup,
                    params: [0, cin, tx.height, tx.width, ty.height, ty.width, p.nu, p.nv, c.stride, c.pad, cout,
                             window.first].map { Int32($0) } + epilogue + [Int32(p.phase)])
                dispatch.options = "-D TRANSPOSED=\(c.transposed ? 1 : 0) \(taps) \(types) -D WSPACE=\(window.fits ? "__constant" : "__global")"
                plan.dispatches.append(dispatch)
            }
        }
    }

    /// int16 values in the int32 words of a parameter buffer, byte for byte as the host
    /// stores them (the device reads them as short8, in the host's byte order like every
    /// buffer); an odd count ends in a zero half.
    static func words(_ values: [Int16]) -> [Int32] {
        var out = [Int32](repeating: 0, count: (values.count + 1) / 2)
        out.withUnsafeMutableBytes { raw in values.withUnsafeBytes { raw.copyMemory(from: $0) } }
        return out
    }

    /// docs/gpu-kernels.md §8: one dispatch per window of `GDNTiling`, each window's gamma
    /// a buffer of its own (int8 rows), in `__constant` memory where it fits.
    func inverseGDN(_ g: InverseGDNSpec, x: Int, y: Int, input tx: TensorSpec, into plan: inout KernelPlan) throws {
        let tiling = GDNTiling(channels: tx.channels, plane: tx.plane)
        let windows = tiling.windows(limit: constantBytes)
        guard tx.count <= Int(Int32.max), windows.allSatisfy({ tiling.items(groups: $0.count) <= Int(Int32.max) }) else {
            throw BackendFailure.unsupported("graph_prepare: inverse_gdn over \(tx.shapeText) exceeds the opencl backend's 2^31 indices")
        }
        let beta = plan.parameter(tiling.beta(g))
        let types = "-D XT=\(plan.bits[x] == 16 ? "short" : "int") -D YT=\(plan.bits[y] == 16 ? "short" : "int")"
        for window in windows {
            let gamma = plan.parameter(tiling.gamma(g, first: window.first, count: window.count))
            var d = KernelPlan.Dispatch(
                kernel: ConvKernelSource.gdnKernel, buffers: [x, y, gamma, beta, nil, nil], items: tiling.items(groups: window.count),
                params: [0, Int32(tx.channels), Int32(tx.plane), Int32(g.squareShift), Int32(g.outShift), Int32(window.first)])
            d.options = "-D GDN=\(tx.channels) \(types) -D WSPACE=\(window.fits ? "__constant" : "__global")"
            plan.dispatches.append(d)
        }
    }

    func warp(_ w: WarpSpec, volume: Int, flow: Int, y: Int, output: TensorSpec, index: Int, into plan: inout KernelPlan) throws {
        plan.warpDispatch(w, volume: volume, flow: flow, y: y, output: output)
    }
}
