/// What `wai.video.int_motion` and `wai.video.int_cond` share (each spec's §5, §6 and §9):
/// int_hyper intra frames every G frames, P-frames coded with a second model set, the shared
/// sequence header. Each capability names its P-frame set; the rest is done here once.
public protocol PredictiveVideoPayload: Sendable {
    var chroma: VideoChroma { get }
    var width: Int { get }
    var height: Int { get }
    var frameRate: Rational { get }
    var aspect: Rational { get }
    var gop: Int { get }
    var intraModelSetID: [UInt8] { get }
    /// The P-frame model set's id (int_motion's motion set, int_cond's conditional set).
    var predictedModelSetID: [UInt8] { get }
    var frameCount: Int { get }
}

/// The identity of a P-frame model set, as reports and messages name it.
public protocol PredictiveModelSet: Sendable {
    var name: String { get }
    var version: String { get }
    var id: [UInt8] { get }
    var idHex: String { get }
}

extension MotionModelSet: PredictiveModelSet {}
extension CondModelSet: PredictiveModelSet {}

/// A predictive sequence as opened from its bytes (envelope or bare payload).
public struct PredictiveVideoOpened<Payload: PredictiveVideoPayload>: Sendable {
    public var payload: Payload
    public var enveloped: Bool
    public var inputBytes: Int
}

/// One decoded frame of a predictive sequence: VIH's frame and its kind.
public struct PredictiveVideoFrame: Sendable {
    public var frame: VideoIntHyperCodec.Frame
    public var kind: VideoIntMotionPayload.Kind
}

/// An encoded predictive sequence.
public struct PredictiveVideoEncoded: Sendable {
    public var bytes: [UInt8]
    public var frameBytes: [Int]
    /// Each frame's reconstruction: what the decoder gives (RGB8).
    public var reconstructions: [RGB8Image]
    /// The last graph run of each frame (g_s of an intra frame, the synthesis of a P-frame).
    public var reports: [RunReport]
}

extension ModelGraphID {
    public init(_ set: some PredictiveModelSet, graph: String) {
        self.init(modelSet: set.idHex, modelSetLabel: "\(set.name) \(set.version)", graph: graph)
    }
}
