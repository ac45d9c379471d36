/// A graph descriptor after validation, copied out of the host's memory
/// (docs/backend-abi.md §6: the descriptor is valid only during graph_prepare).

import WaiOps

package struct TensorSpec {
    package let channels: Int
    package let height: Int
    package let width: Int
    package let lo: Int32
    package let hi: Int32
    package var count: Int { channels * height * width }
    package var plane: Int { height * width }
    /// The width this backend stores the tensor in: the certified interval, not the
    /// declared storage, decides (docs/integer-ops.md §2: narrow storage is lossless).
    package var bits: Int32 { lo >= -32768 && hi <= 32767 ? 16 : 32 }
    package var shapeText: String { "\(channels)×\(height)×\(width)" }
}

package struct ConvSpec {
    package let transposed: Bool
    package let kernelH: Int, kernelW: Int, stride: Int, pad: Int, outputPad: Int
    package let weights: [Int16]
    package let bias: [Int32]
}

package struct RequantizeSpec {
    package let multiplier: [Int32]
    package let shift: [Int32]
    package let lo: Int32
    package let hi: Int32
}

package struct InverseGDNSpec {
    package let beta: [Int32]
    package let gamma: [Int32]
    package let squareShift: Int
    package let outShift: Int
}

/// docs/integer-ops.md §4.10; inputs are the volume, then the flow.
package struct WarpSpec {
    package let scales: Int
    package let fracBits: Int
}

package enum OpSpec {
    case conv(ConvSpec)
    case requantize(RequantizeSpec)
    case add
    case clamp(lo: Int32, hi: Int32)
    case depthToSpace(block: Int)
    case concat
    case lookup(table: [Int32], offset: Int32)
    case inverseGDN(InverseGDNSpec)
    case warp(WarpSpec)

    /// Its row of the op table.
    package var kind: OpKind {
        switch self {
        case .conv(let c): return c.transposed ? .convTranspose2d : .conv2d
        case .requantize: return .requantize
        case .add: return .add
        case .clamp: return .clamp
        case .depthToSpace: return .depthToSpace
        case .concat: return .concat
        case .lookup: return .lookup
        case .inverseGDN: return .inverseGDN
        case .warp: return .warp
        }
    }

    package var name: String { kind.name }
}

package struct NodeSpec {
    package let op: OpSpec
    package let inputs: [Int]
    package let output: Int
}

package struct GraphSpec {
    package let tensors: [TensorSpec]
    package let nodes: [NodeSpec]
    package let inputs: [Int]
    package let outputs: [Int]
}
