/// The convolution design both GPU backends run (docs/gpu-kernels.md §1–§2): a transposed
/// convolution as its stride² phases (a conv2d as one), each phase dispatched per weight
/// window — a run of whole 8-channel groups whose weights one constant / uniform view spans —
/// over tiles of 8 rows × 64 columns × 8 channels, 64 invocations per work group. Only the
/// weight encoding and the binding differ per backend (Vulkan's `ConvWindows`, OpenCL's
/// `OpenCLLowering`).
package struct ConvPhases {
    /// §2: a work group is 8 rows × 64 columns of one phase, 8 channels; 64 invocations,
    /// each one row, 8 columns, 8 channels.
    package static let tileRows = 8, tileCols = 64, channels = 8, workGroup = 64
    /// §2: the unrolled kernel takes up to 5 taps per axis and window rows of 21 values
    /// (an invocation's 8 columns at the column step, and the taps beside them).
    package static let maxTaps = 5, maxWindow = 21

    package struct Phase {
        package let phase: Int                 // pr · stride + pc (0 for conv2d)
        package let u0: Int, v0: Int           // the phase's first row and column tap
        package let nu: Int, nv: Int           // the phase's taps
        package let tiles: Int                 // tiles of 8 × 64 (phase coordinates)
    }

    package let phases: [Phase]
    package let groups: Int
    /// Input column step of an invocation's 8 columns: the conv2d stride, 1 for a phase.
    package let columnStep: Int

    package init(_ c: ConvSpec, cout: Int, outH: Int, outW: Int) {
        let s = c.stride
        groups = (cout + Self.channels - 1) / Self.channels
        columnStep = c.transposed ? 1 : s
        var phases: [Phase] = []
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
            phases.append(Phase(phase: c.transposed ? phase : 0, u0: u0, v0: v0, nu: nu, nv: nv, tiles: tiles))
        }
        self.phases = phases
    }

    /// §2: taps and window small enough to unroll through compile-time constants.
    package func unrolled(_ p: Phase) -> Bool {
        p.nu <= Self.maxTaps && p.nv <= Self.maxTaps && 7 * columnStep + p.nv <= Self.maxWindow
    }

    /// A phase's windows: as many groups as `limit` bytes hold at `groupBytes` each; a group
    /// larger than the limit is a window of its own that does not fit (`fits` false: read
    /// through the storage / global view).
    package func windows(groupBytes: Int, limit: Int) -> [(first: Int, count: Int, fits: Bool)] {
        Self.windows(groups: groups, groupBytes: groupBytes, limit: limit)
    }

    /// `groups` groups of `groupBytes` each split into windows of at most `limit` bytes
    /// (the convolutions' phases, and inverse GDN's `GDNTiling`).
    package static func windows(groups: Int, groupBytes: Int, limit: Int) -> [(first: Int, count: Int, fits: Bool)] {
        let perWindow = groupBytes == 0 ? groups : max(1, min(groups, limit / groupBytes))
        var result: [(first: Int, count: Int, fits: Bool)] = []
        var g0 = 0
        while g0 < groups {
            let count = min(perWindow, groups - g0)
            result.append((g0, count, groupBytes <= limit))
            g0 += count
        }
        return result
    }

    /// w[o][ci][u][v] (conv2d) or w[ci][o][u][v] (conv_transpose2d); 0 past cout.
    package static func weight(_ c: ConvSpec, _ o: Int, _ ci: Int, _ u: Int, _ v: Int, cin: Int, cout: Int) -> Int16 {
        guard o < cout else { return 0 }
        let plane = c.transposed ? ci * cout + o : o * cin + ci
        return c.weights[(plane * c.kernelH + u) * c.kernelW + v]
    }

    /// A window's weights as [group − first][a][b][cin][8 channels] int16: tap (a, b) of the
    /// phase is kernel position (u0 + s·a, v0 + s·b) of a transposed convolution, (a, b) of
    /// a conv2d.
    package func weights(_ c: ConvSpec, _ p: Phase, first: Int, count: Int, cin: Int, cout: Int) -> [Int16] {
        let s = c.stride
        var out: [Int16] = []
        out.reserveCapacity(count * p.nu * p.nv * cin * Self.channels)
        for g in first..<(first + count) {
            for a in 0..<p.nu {
                for b in 0..<p.nv {
                    let u = c.transposed ? p.u0 + s * a : a, v = c.transposed ? p.v0 + s * b : b
                    for ci in 0..<cin {
                        for l in 0..<Self.channels {
                            out.append(Self.weight(c, g * Self.channels + l, ci, u, v, cin: cin, cout: cout))
                        }
                    }
                }
            }
        }
        return out
    }
}
