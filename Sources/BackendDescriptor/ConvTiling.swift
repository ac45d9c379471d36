/// The host side of the tiled convolution both GPU backends run (docs/gpu-kernels.md): the
/// tile geometry, the weight packing and the convolution → requantize fusion. The kernels
/// (Plugins/VulkanBackend/Shaders/conv_tiled.glsl, Plugins/OpenCLBackend's CONV_TILED) read
/// what this computes, so the two backends cannot drift apart.
package struct ConvTiling {
    /// §2: a work group of 64 invocations, 4 tile rows × 16 column blocks of 4 columns.
    package static let workGroup = 64, tileRows = 4, tileColumns = 64, channels = 8
    /// §3: ints of shared (local) memory a work group stages its input window in: 16 KiB,
    /// the least any Vulkan device offers (maxComputeSharedMemorySize) and within OpenCL's.
    package static let capacity = 4096

    package let groups: Int, phases: Int, tilesR: Int, tilesC: Int
    /// Input channels staged per step; `direct`: the window does not fit, the kernel reads
    /// the input buffer instead (conv2d with stride and kernel large, §3).
    package let chunk: Int, direct: Bool

    package var workGroups: Int { groups * phases * tilesR * tilesC }

    package init(_ c: ConvSpec, cin: Int, cout: Int, outH: Int, outW: Int) {
        let s = c.stride
        groups = (cout + Self.channels - 1) / Self.channels
        let rows: Int, columns: Int
        if c.transposed {
            phases = s * s
            tilesR = ((outH + s - 1) / s + Self.tileRows - 1) / Self.tileRows
            tilesC = ((outW + s - 1) / s + Self.tileColumns - 1) / Self.tileColumns
            // The phase with the most taps has ⌈k / s⌉ of them.
            rows = Self.tileRows - 1 + (c.kernelH + s - 1) / s
            columns = Self.tileColumns - 1 + (c.kernelW + s - 1) / s
        } else {
            phases = 1
            tilesR = (outH + Self.tileRows - 1) / Self.tileRows
            tilesC = (outW + Self.tileColumns - 1) / Self.tileColumns
            rows = (Self.tileRows - 1) * s + c.kernelH
            columns = (Self.tileColumns - 1) * s + c.kernelW
        }
        // §3: window rows are stored as whole groups of 4 values plus one spare group.
        let window = rows * ((columns + 3) / 4 + 1) * 4
        let fits = Self.capacity / window
        direct = fits == 0
        chunk = direct ? cin : min(cin, fits)
    }

    /// Both convolutions' weights as [group][kh][kw][cin][8]: per tap and input channel the 8
    /// output channels' weights side by side (two int4 / one int8 load). Channels past cout
    /// are zero (computed, never stored). conv2d's source is w[o][c][u][v], conv_transpose2d's
    /// w[c][o][u][v].
    package static func packedWeights(_ c: ConvSpec, cin: Int, cout: Int) -> [Int32] {
        let kernel = c.kernelH * c.kernelW
        let groups = (cout + channels - 1) / channels
        var out = [Int32](repeating: 0, count: groups * kernel * cin * channels)
        for o in 0..<cout {
            let g = o / channels, lane = o % channels
            for ci in 0..<cin {
                let source = c.transposed ? (ci * cout + o) * kernel : (o * cin + ci) * kernel
                for t in 0..<kernel { out[((g * kernel + t) * cin + ci) * channels + lane] = Int32(c.weights[source + t]) }
            }
        }
        return out
    }

    /// `values` padded with zeros to whole groups of 8 channels.
    package static func padded(_ values: [Int32], cout: Int) -> [Int32] {
        values + [Int32](repeating: 0, count: (cout + channels - 1) / channels * channels - cout)
    }

    /// conv → requantize pairs that run as one kernel (the requantize as the convolution's
    /// epilogue, the same integers, §4.3 of docs/integer-ops.md): the requantize reads only the
    /// convolution's output and nothing else sees it. Keys: conv node index; values: the
    /// requantize node index (always the next node).
    package static func fusions(_ spec: GraphSpec) -> [Int: Int] {
        var readers = [Int](repeating: 0, count: spec.tensors.count)
        for node in spec.nodes { for t in node.inputs { readers[t] += 1 } }
        let outputs = Set(spec.outputs)
        var result: [Int: Int] = [:]
        for (k, node) in spec.nodes.enumerated() where k + 1 < spec.nodes.count {
            guard case .conv = node.op, case .requantize = spec.nodes[k + 1].op else { continue }
            if spec.nodes[k + 1].inputs == [node.output], readers[node.output] == 1, !outputs.contains(node.output) {
                result[k] = k + 1
            }
        }
        return result
    }
}
