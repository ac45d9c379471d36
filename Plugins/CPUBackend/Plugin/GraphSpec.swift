/// A graph descriptor after validation, copied out of the host's memory
/// (docs/backend-abi.md §6: the descriptor is valid only during graph_prepare).

struct TensorSpec {
    let channels: Int
    let height: Int
    let width: Int
    let lo: Int32
    let hi: Int32
    var count: Int { channels * height * width }
    var plane: Int { height * width }
    /// The width this backend stores the tensor in: the certified interval, not the
    /// declared storage, decides (docs/integer-ops.md §2: narrow storage is lossless).
    var bits: Int32 { lo >= -32768 && hi <= 32767 ? 16 : 32 }
    var shapeText: String { "\(channels)×\(height)×\(width)" }
}

struct ConvSpec {
    let transposed: Bool
    let kernelH: Int, kernelW: Int, stride: Int, pad: Int, outputPad: Int
    let weights: [Int16]
    let bias: [Int32]
}

struct RequantizeSpec {
    let multiplier: [Int32]
    let shift: [Int32]
    let lo: Int32
    let hi: Int32
}

struct InverseGDNSpec {
    let beta: [Int32]
    let gamma: [Int32]
    let squareShift: Int
    let outShift: Int
}

enum OpSpec {
    case conv(ConvSpec)
    case requantize(RequantizeSpec)
    case add
    case clamp(lo: Int32, hi: Int32)
    case depthToSpace(block: Int)
    case concat
    case lookup(table: [Int32], offset: Int32)
    case inverseGDN(InverseGDNSpec)

    var name: String {
        switch self {
        case .conv(let c): return c.transposed ? "conv_transpose2d" : "conv2d"
        case .requantize: return "requantize"
        case .add: return "add"
        case .clamp: return "clamp"
        case .depthToSpace: return "depth_to_space"
        case .concat: return "concat"
        case .lookup: return "lookup"
        case .inverseGDN: return "inverse_gdn"
        }
    }
}

struct NodeSpec {
    let op: OpSpec
    let inputs: [Int]
    let output: Int
}

struct GraphSpec {
    let tensors: [TensorSpec]
    let nodes: [NodeSpec]
    let inputs: [Int]
    let outputs: [Int]
}
