import BackendABI
import BackendDescriptor

/// The OpenCL backend's part of the shared planning (KernelPlan): its convolutions — the
/// tiled kernel of docs/gpu-kernels.md with bias, multipliers and shifts as three arguments
/// — and inverse GDN over groups of 8 channels.
struct OpenCLLowering: KernelLowering {
    func conv(_ n: KernelPlan.ConvNode, into plan: inout KernelPlan) throws {
        let c = n.conv, tx = n.input, ty = n.output
        // docs/gpu-kernels.md §5 (OpenCL): a tile of 64 items × 4 (phase) positions × 8 channels per work group.
        let tiling = ConvTiling(c, cin: tx.channels, cout: ty.channels, outH: ty.height, outW: ty.width)
        let items = tiling.workGroups * ConvTiling.workGroup
        // The kernels index weights and items in 32 bits: a convolution this large is refused, not wrapped.
        guard tiling.groups * 8 * tx.channels * c.kernelH * c.kernelW <= Int(Int32.max),
              tiling.workGroups <= Int(Int32.max) / ConvTiling.workGroup else {
            throw BackendFailure.unsupported("graph_prepare: node \(n.index) (\(c.transposed ? "conv_transpose2d" : "conv2d")): \(tx.channels)→\(ty.channels) channels with a \(c.kernelH)×\(c.kernelW) kernel exceed the opencl backend's 2^31 weight and item indices")
        }
        let w = plan.parameter(ConvTiling.packedWeights(c, cin: tx.channels, cout: ty.channels))
        let b = plan.parameter(ConvTiling.padded(c.bias, cout: ty.channels))
        var buffers: [Int?] = [n.x, n.y, w, b, nil, nil]
        var epilogue: [Int32] = [0, 0, 0]
        if let r = n.fused {
            buffers[4] = plan.parameter(r.multiplier)
            buffers[5] = plan.parameter(r.shift)
            epilogue = [1, r.lo, r.hi]
        }
        let name = c.transposed ? "conv_transpose2d" : tiling.direct ? "conv2d_d1" : "conv2d_d0"
        plan.dispatches.append(KernelPlan.Dispatch(
            kernel: plan.variant(name, x: n.x, y: n.y), buffers: buffers, items: items,
            params: [0, tx.channels, tx.height, tx.width, ty.height, ty.width, c.kernelH, c.kernelW, c.stride, c.pad,
                     ty.channels].map { Int32($0) } + epilogue + [Int32(tiling.chunk), Int32(tiling.blocks)]))
    }

    func inverseGDN(_ g: InverseGDNSpec, x: Int, y: Int, input tx: TensorSpec, into plan: inout KernelPlan) throws {
        let c = tx.channels, groups = (c + 7) / 8
        var gamma = [Int32](repeating: 0, count: groups * c * 8)
        for o in 0..<c {
            for k in 0..<c { gamma[((o / 8) * c + k) * 8 + o % 8] = g.gamma[o * c + k] }
        }
        let beta = plan.parameter(g.beta + [Int32](repeating: 0, count: groups * 8 - c)), packed = plan.parameter(gamma)
        plan.dispatches.append(KernelPlan.Dispatch(
            kernel: plan.variant("inverse_gdn", x: x, y: y), buffers: [x, y, beta, packed],
            items: groups * ((tx.plane + 3) / 4),
            params: [0, Int32(c), Int32(tx.plane), Int32(g.squareShift), Int32(g.outShift)]))
    }

    func warp(_ w: WarpSpec, volume: Int, flow: Int, y: Int, output: TensorSpec, index: Int, into plan: inout KernelPlan) throws {
        plan.warpDispatch(w, volume: volume, flow: flow, y: y, output: output)
    }
}
