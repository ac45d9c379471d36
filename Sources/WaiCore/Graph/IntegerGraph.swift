// The integer graph IR: what a model container holds and what the ABI hands a backend.
// Semantics of every op: docs/integer-ops.md. Container encoding: docs/model-container.md.

/// Storage width of a tensor inside a backend (docs/integer-ops.md §2).
public enum Storage: UInt8, Sendable, Codable {
    case narrow = 16
    case wide = 32

    public var range: Interval {
        switch self {
        case .narrow: return Interval(lo: Int64(Int16.min), hi: Int64(Int16.max))
        case .wide: return Interval(lo: Int64(Int32.min), hi: Int64(Int32.max))
        }
    }
}

/// A closed integer interval. Int64 so interval arithmetic on int32 bounds cannot overflow
/// before it is checked against int32 (docs/integer-ops.md §3).
public struct Interval: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var lo: Int64
    public var hi: Int64
    public init(lo: Int64, hi: Int64) { self.lo = lo; self.hi = hi }
    public var description: String { "[\(lo), \(hi)]" }
    public func contains(_ other: Interval) -> Bool { lo <= other.lo && other.hi <= hi }
    public func contains(_ v: Int64) -> Bool { lo <= v && v <= hi }
    public func hull(_ other: Interval) -> Interval { Interval(lo: min(lo, other.lo), hi: max(hi, other.hi)) }
}

/// Shape of a tensor: channels × height × width, batch 1, stored CHW.
public struct Shape: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var channels: Int
    public var height: Int
    public var width: Int
    public init(_ c: Int, _ h: Int, _ w: Int) { channels = c; height = h; width = w }
    public var count: Int { channels * height * width }
    public var description: String { "\(channels)×\(height)×\(width)" }
}

/// A tensor of the graph with its certificate entry (verified interval and storage).
public struct TensorSpec: Equatable, Sendable {
    public var name: String
    public var shape: Shape
    public var storage: Storage
    /// The certificate's claim: every value the tensor can hold lies in it.
    public var interval: Interval
    public init(name: String, shape: Shape, storage: Storage, interval: Interval) {
        self.name = name; self.shape = shape; self.storage = storage; self.interval = interval
    }
}

/// Parameters of conv2d and transposed conv2d (docs/integer-ops.md §4.1, §4.2).
public struct ConvParams: Equatable, Sendable {
    public var kernelH: Int
    public var kernelW: Int
    public var stride: Int
    public var pad: Int
    /// Transposed only: extra rows/columns at the bottom/right of the output.
    public var outputPad: Int
    /// conv2d: [cout][cin][kh][kw]; transposed: [cin][cout][kh][kw].
    public var weights: [Int16]
    /// [cout]
    public var bias: [Int32]
    public init(kernelH: Int, kernelW: Int, stride: Int, pad: Int, outputPad: Int = 0,
                weights: [Int16], bias: [Int32]) {
        self.kernelH = kernelH; self.kernelW = kernelW; self.stride = stride; self.pad = pad
        self.outputPad = outputPad; self.weights = weights; self.bias = bias
    }
}

/// docs/integer-ops.md §4.3: y = clamp((x·m[c] + 2^(s[c]−1)) >> s[c], lo, hi).
public struct RequantizeParams: Equatable, Sendable {
    public var multiplier: [Int32]
    public var shift: [Int32]
    public var lo: Int32
    public var hi: Int32
    public init(multiplier: [Int32], shift: [Int32], lo: Int32, hi: Int32) {
        self.multiplier = multiplier; self.shift = shift; self.lo = lo; self.hi = hi
    }
}

/// docs/integer-ops.md §4.8: y = table[clamp(x − offset, 0, len−1)].
public struct LookupParams: Equatable, Sendable {
    public var table: [Int32]
    public var offset: Int32
    public init(table: [Int32], offset: Int32) { self.table = table; self.offset = offset }
}

/// docs/integer-ops.md §4.9: integer inverse GDN with an exact integer square root.
public struct InverseGDNParams: Equatable, Sendable {
    public var beta: [Int32]        // [c]
    public var gamma: [Int32]       // [c][c], row = output channel
    public var squareShift: Int32   // q
    public var outShift: Int32      // s
    public init(beta: [Int32], gamma: [Int32], squareShift: Int32, outShift: Int32) {
        self.beta = beta; self.gamma = gamma; self.squareShift = squareShift; self.outShift = outShift
    }
}

/// docs/integer-ops.md §4.10: trilinear warp of a (S·C)×H×W scale-space volume (scale-major:
/// channel s·C + c) by a 3×H×W flow (dx, dy, ds) with `fracBits` fractional bits.
public struct WarpParams: Equatable, Sendable {
    public var scales: Int      // S, 1…64
    public var fracBits: Int    // F, 0…10
    public init(scales: Int, fracBits: Int) { self.scales = scales; self.fracBits = fracBits }
}

public enum Op: Equatable, Sendable {
    case conv2d(ConvParams)
    case convTranspose2d(ConvParams)
    case requantize(RequantizeParams)
    case add
    case clamp(lo: Int32, hi: Int32)
    case depthToSpace(block: Int)
    case concat
    case lookup(LookupParams)
    case inverseGDN(InverseGDNParams)
    case warp(WarpParams)

    /// Its row of the op table: `wai_op` value, name, inputs.
    public var kind: OpKind {
        switch self {
        case .conv2d: return .conv2d
        case .convTranspose2d: return .convTranspose2d
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

    /// The name used in docs, errors and probe reports.
    public var name: String { kind.name }
}

public struct Node: Equatable, Sendable {
    public var op: Op
    public var inputs: [Int]
    public var output: Int
    public init(op: Op, inputs: [Int], output: Int) { self.op = op; self.inputs = inputs; self.output = output }
}

/// A whole integer graph. Nodes are in topological order and each tensor is written by
/// exactly one node or is a graph input (docs/integer-ops.md §1). Only a graph that passed
/// `CertificateVerifier.verify` may be run or handed to a backend.
public struct IntegerGraph: Equatable, Sendable {
    public var tensors: [TensorSpec]
    public var nodes: [Node]
    public var inputs: [Int]
    public var outputs: [Int]
    public init(tensors: [TensorSpec], nodes: [Node], inputs: [Int], outputs: [Int]) {
        self.tensors = tensors; self.nodes = nodes; self.inputs = inputs; self.outputs = outputs
    }
}

/// A host-side tensor value: int32, CHW, dense, whatever its storage width in a backend.
public struct TensorValue: Equatable, Sendable {
    public var shape: Shape
    public var values: [Int32]
    public init(shape: Shape, values: [Int32]) { self.shape = shape; self.values = values }
    public init(zeros shape: Shape) { self.shape = shape; self.values = Array(repeating: 0, count: shape.count) }
}
