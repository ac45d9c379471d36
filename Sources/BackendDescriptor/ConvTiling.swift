/// The host side of the OpenCL backend's shared-memory tiled convolution (docs/gpu-kernels.md
/// §5): the tile geometry and the weight packing its CONV_TILED reads; and the convolution →
/// requantize fusion both GPU backends plan with (§4, §6).
package struct ConvTiling {
    /// §5: a work group of 64 items, each 4 adjacent columns × 8 channels.
    package static let workGroup = 64, channels = 8
    /// §5: the tile shapes a work group may take, as column blocks (rows = 64 / blocks).
    package static let columnBlocks = [16, 8, 4]
    /// §5: ints of local memory a work group stages its input window in: 16 KiB, within
    /// OpenCL's minimum.
    package static let capacity = 4096

    package let groups: Int, phases: Int, tilesR: Int, tilesC: Int
    /// Column blocks of the tile (4 · blocks columns, 64 / blocks rows).
    package let blocks: Int
    /// Input channels staged per step; `direct`: the window does not fit, the kernel reads
    /// the input buffer instead (conv2d with stride and kernel large, §5).
    package let chunk: Int, direct: Bool

    package var workGroups: Int { groups * phases * tilesR * tilesC }

    package init(_ c: ConvSpec, cin: Int, cout: Int, outH: Int, outW: Int) {
        let s = c.stride
        groups = (cout + Self.channels - 1) / Self.channels
        phases = c.transposed ? s * s : 1
        // Tile space: phase coordinates (the largest phase) or output coordinates.
        let height = c.transposed ? (outH + s - 1) / s : outH, width = c.transposed ? (outW + s - 1) / s : outW
        func window(_ blocks: Int) -> Int {
            let rows = Self.workGroup / blocks, cols = 4 * blocks
            let wh, ww: Int
            if c.transposed {
                // The phase with the most taps has ⌈k / s⌉ of them.
                wh = rows - 1 + (c.kernelH + s - 1) / s
                ww = cols - 1 + (c.kernelW + s - 1) / s
            } else {
                wh = (rows - 1) * s + c.kernelH
                ww = (cols - 1) * s + c.kernelW
            }
            // §5: window rows are stored as whole groups of 4 values plus one spare group.
            return wh * ((ww + 3) / 4 + 1) * 4
        }
        func tiles(_ blocks: Int) -> Int {
            let rows = Self.workGroup / blocks, cols = 4 * blocks
            return ((height + rows - 1) / rows) * ((width + cols - 1) / cols)
        }
        // §5: the fewest work groups (the least computed past the output's edge); among equals
        // the widest tile. Shapes whose window does not fit are not candidates.
        let fitting = Self.columnBlocks.filter { window($0) <= Self.capacity }
        let best = fitting.min { tiles($0) < tiles($1) || (tiles($0) == tiles($1) && $0 > $1) }
        blocks = best ?? Self.columnBlocks[0]
        tilesR = (height + Self.workGroup / blocks - 1) / (Self.workGroup / blocks)
        tilesC = (width + 4 * blocks - 1) / (4 * blocks)
        direct = best == nil
        chunk = direct ? cin : min(cin, Self.capacity / window(blocks))
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
