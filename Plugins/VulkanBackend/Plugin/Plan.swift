import BackendABI
import BackendDescriptor

/// The Vulkan backend's part of the shared planning (KernelPlan): its convolutions as one
/// dispatch per phase and weight window (docs/gpu-kernels.md §1–§3), and inverse GDN.
struct VulkanLowering: KernelLowering {
    /// The most one uniform weight window may span: the unit's maxUniformBufferRange, at
    /// most the 64 KiB the shader declares (conv_tiled.glsl, `WUniform`).
    let uniformRange: Int

    init(uniformRange: UInt32) { self.uniformRange = min(Int(uniformRange), ConvWindows.uniformBlock) }

    func conv(_ n: KernelPlan.ConvNode, into plan: inout KernelPlan) throws {
        let c = n.conv, tx = n.input, ty = n.output
        let windows = ConvWindows(c, cin: tx.channels, cout: ty.channels, outH: ty.height, outW: ty.width, uniformRange: uniformRange)
        guard windows.words.count <= Int(Int32.max), windows.windows.allSatisfy({ $0.items <= Int(Int32.max) }) else {
            throw BackendFailure.unsupported("graph_prepare: node \(n.index) (\(c.transposed ? "conv_transpose2d" : "conv2d")): \(tx.channels)→\(ty.channels) channels with a \(c.kernelH)×\(c.kernelW) kernel exceed the vulkan backend's 2^31 weight and invocation indices")
        }
        let w = plan.parameter(windows.words)
        // Binding 3: bias, then the fused requantize's multipliers and shifts.
        var epilogue = ConvTiling.padded(c.bias, cout: ty.channels)
        var fusedPush: [Int32] = [0, 0, 0]
        if let r = n.fused {
            epilogue += ConvTiling.padded(r.multiplier, cout: ty.channels) + ConvTiling.padded(r.shift, cout: ty.channels)
            fusedPush = [1, r.lo, r.hi]
        }
        let b = plan.parameter(epilogue)
        let name = plan.variant(c.transposed ? "conv_transpose2d" : "conv2d", x: n.x, y: n.y)
        for window in windows.windows {
            var d = KernelPlan.Dispatch(
                kernel: name, buffers: [n.x, n.y, w, b], items: window.items,
                params: [0, tx.channels, tx.height, tx.width, ty.height, ty.width, window.nu, window.nv, c.stride, c.pad,
                         ty.channels, window.firstGroup].map { Int32($0) } + fusedPush + [Int32(window.phase)])
            d.constants = window.constants
            d.windowOffset = window.offset
            d.windowRange = window.range
            plan.dispatches.append(d)
        }
    }

    /// Shaders/inverse_gdn.comp (docs/gpu-kernels.md §8): one dispatch per window of
    /// `GDNTiling`, gamma's windows in one buffer at 256-byte offsets like the convolutions'.
    func inverseGDN(_ g: InverseGDNSpec, x: Int, y: Int, input tx: TensorSpec, into plan: inout KernelPlan) throws {
        let tiling = GDNTiling(channels: tx.channels, plane: tx.plane)
        let windows = tiling.windows(limit: uniformRange)
        guard tx.count <= Int(Int32.max), windows.allSatisfy({ tiling.items(groups: $0.count) <= Int(Int32.max) }) else {
            throw BackendFailure.unsupported("graph_prepare: inverse_gdn over \(tx.shapeText) exceeds the vulkan backend's 2^31 indices")
        }
        var words: [Int32] = []
        var placed: [(first: Int, count: Int, fits: Bool, offset: Int)] = []
        for window in windows {
            while words.count % (ConvWindows.windowAlign / 4) != 0 { words.append(0) }
            placed.append((window.first, window.count, window.fits, words.count * 4))
            words += tiling.gamma(g, first: window.first, count: window.count)
        }
        let gamma = plan.parameter(words), beta = plan.parameter(tiling.beta(g))
        let name = plan.variant("inverse_gdn", x: x, y: y)
        for window in placed {
            var d = KernelPlan.Dispatch(
                kernel: name, buffers: [x, y, gamma, beta], items: tiling.items(groups: window.count),
                params: [0, Int32(tx.channels), Int32(tx.plane), Int32(g.squareShift), Int32(g.outShift), Int32(window.first)])
            // CH and MODE (constant ids 0 and 3; 1 and 2 are unused by this shader).
            d.constants = [Int32(tx.channels), 1, 1, window.fits ? 1 : 0]
            d.windowOffset = window.offset
            d.windowRange = window.fits ? window.count * tiling.groupBytes : 0
            plan.dispatches.append(d)
        }
    }

    /// Shaders/warp.comp: the same dispatch as OpenCL's, the flow at binding 2.
    func warp(_ w: WarpSpec, volume: Int, flow: Int, y: Int, output: TensorSpec, index: Int, into plan: inout KernelPlan) throws {
        plan.warpDispatch(w, volume: volume, flow: flow, y: y, output: output)
    }
}
