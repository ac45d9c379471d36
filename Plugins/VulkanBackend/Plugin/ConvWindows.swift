import BackendDescriptor

/// The host side of the Vulkan convolution (docs/gpu-kernels.md §1–§3): the phases of a
/// transposed convolution (one for conv2d), and per phase the weight windows — runs of whole
/// 8-channel groups whose packed weights one uniform-buffer binding spans — each one dispatch.
struct ConvWindows {
    /// conv_tiled.glsl's `WUniform` block: 4096 ivec4.
    static let uniformBlock = 65536
    /// §2: a work group is 8 rows × 64 columns of one phase, 8 channels.
    static let tileRows = 8, tileCols = 64
    /// §2: the unrolled kernel takes up to 5 taps per axis and window rows of 21 values
    /// (an invocation's 8 columns at the column step, and the taps beside them).
    static let maxTaps = 5, maxWindow = 21

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
        let s = c.stride, groups = (cout + 7) / 8
        let columnStep = c.transposed ? 1 : s
        for phase in 0..<(c.transposed ? s * s : 1) {
            let pr = phase / s, pc = phase % s
            // §1: the phase's first taps u0, v0 and tap counts; conv2d: every tap.
            let u0 = c.transposed ? (pr + c.pad) % s : 0, v0 = c.transposed ? (pc + c.pad) % s : 0
            let nu = c.transposed ? (c.kernelH > u0 ? (c.kernelH - u0 + s - 1) / s : 0) : c.kernelH
            let nv = c.transposed ? (c.kernelW > v0 ? (c.kernelW - v0 + s - 1) / s : 0) : c.kernelW
            let rows = c.transposed ? (outH > pr ? (outH - pr + s - 1) / s : 0) : outH
            let cols = c.transposed ? (outW > pc ? (outW - pc + s - 1) / s : 0) : outW
            guard rows > 0, cols > 0 else { continue }    // an empty phase: no output to write
            let tiles = ((rows + Self.tileRows - 1) / Self.tileRows) * ((cols + Self.tileCols - 1) / Self.tileCols)
            let groupBytes = nu * nv * cin * 16
            // As many groups as the uniform range holds; a group larger than it is read from
            // the storage view of the same words (MODE bit 0 clear).
            let perWindow = groupBytes == 0 ? groups : max(1, min(groups, uniformRange / groupBytes))
            let uniform = groupBytes <= uniformRange
            let unrolled = nu <= Self.maxTaps && nv <= Self.maxTaps && 7 * columnStep + nv <= Self.maxWindow
            var g0 = 0
            while g0 < groups {
                let count = min(perWindow, groups - g0)
                while words.count % 64 != 0 { words.append(0) }
                let offset = groupBytes == 0 ? 0 : words.count * 4
                for g in g0..<(g0 + count) {
                    for a in 0..<nu {
                        for b in 0..<nv {
                            let u = c.transposed ? u0 + s * a : a, v = c.transposed ? v0 + s * b : b
                            for ci in 0..<cin {
                                for k in 0..<4 {
                                    let lo = Self.weight(c, g * 8 + 2 * k, ci, u, v, cin: cin, cout: cout)
                                    let hi = Self.weight(c, g * 8 + 2 * k + 1, ci, u, v, cin: cin, cout: cout)
                                    words.append(Int32(bitPattern: UInt32(UInt16(bitPattern: lo)) | UInt32(UInt16(bitPattern: hi)) << 16))
                                }
                            }
                        }
                    }
                }
                let mode = Int32((uniform ? 1 : 0) | (unrolled ? 0 : 2))
                windows.append(Window(
                    phase: c.transposed ? phase : 0, nu: nu, nv: nv, firstGroup: g0, items: count * tiles * 64,
                    offset: offset, range: uniform ? count * groupBytes : 0,
                    // A run-time-loop kernel is one pipeline whatever the taps.
                    constants: unrolled ? [Int32(nu), Int32(nv), Int32(columnStep), mode] : [1, 1, Int32(columnStep), mode]))
                g0 += count
            }
        }
    }

    /// w[o][ci][u][v] (conv2d) or w[ci][o][u][v] (conv_transpose2d); 0 past cout.
    private static func weight(_ c: ConvSpec, _ o: Int, _ ci: Int, _ u: Int, _ v: Int, cin: Int, cout: Int) -> Int16 {
        guard o < cout else { return 0 }
        let plane = c.transposed ? ci * cout + o : o * cin + ci
        return c.weights[(plane * c.kernelH + u) * c.kernelW + v]
    }
}
