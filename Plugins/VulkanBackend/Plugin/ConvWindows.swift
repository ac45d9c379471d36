import BackendDescriptor

/// The host side of the Vulkan convolution (docs/gpu-kernels.md §1–§3): the phases and weight
/// windows of the shared design (`ConvPhases`), each window one dispatch, its weights packed
/// two int16 per int32 word into one buffer at offsets one uniform-buffer binding can take.
struct ConvWindows {
    /// conv_tiled.glsl's `WUniform` block: 4096 ivec4.
    static let uniformBlock = 65536
    /// Window offsets are multiples of this (the largest minOffsetAlignment Vulkan allows).
    static let windowAlign = 256

    struct Window {
        let phase: Int                 // pr · stride + pc (0 for conv2d)
        let nu: Int, nv: Int           // the phase's taps
        let firstGroup: Int
        let items: Int
        let offset: Int, range: Int    // bytes into the weight buffer; range 0: no uniform view
        let constants: [Int32]         // NU, NV, CS, MODE of conv_tiled.glsl
    }

    /// The packed weights of every window, each window starting at a multiple of 256 bytes.
    private(set) var words: [Int32] = []
    private(set) var windows: [Window] = []

    init(_ c: ConvSpec, cin: Int, cout: Int, outH: Int, outW: Int, uniformRange: Int) {
        let plan = ConvPhases(c, cout: cout, outH: outH, outW: outW)
        for p in plan.phases {
            // One ivec4 (8 int16 weights) per tap and input channel.
            let groupBytes = p.nu * p.nv * cin * 16
            let unrolled = plan.unrolled(p)
            // As many groups as the uniform range holds; a group larger than it is read from
            // the storage view of the same words (MODE bit 0 clear).
            for window in plan.windows(groupBytes: groupBytes, limit: uniformRange) {
                while words.count % (Self.windowAlign / 4) != 0 { words.append(0) }
                let offset = groupBytes == 0 ? 0 : words.count * 4
                let w = plan.weights(c, p, first: window.first, count: window.count, cin: cin, cout: cout)
                // Channel 2k in the low, 2k + 1 in the high half of word k.
                for k in stride(from: 0, to: w.count, by: 2) {
                    words.append(Int32(bitPattern: UInt32(UInt16(bitPattern: w[k])) | UInt32(UInt16(bitPattern: w[k + 1])) << 16))
                }
                let mode = Int32((window.fits ? 1 : 0) | (unrolled ? 0 : 2))
                windows.append(Window(
                    phase: p.phase, nu: p.nu, nv: p.nv, firstGroup: window.first,
                    items: window.count * p.tiles * ConvPhases.workGroup,
                    offset: offset, range: window.fits ? window.count * groupBytes : 0,
                    // A run-time-loop kernel is one pipeline whatever the taps.
                    constants: unrolled ? [Int32(p.nu), Int32(p.nv), Int32(plan.columnStep), mode] : [1, 1, Int32(plan.columnStep), mode]))
            }
        }
    }
}
