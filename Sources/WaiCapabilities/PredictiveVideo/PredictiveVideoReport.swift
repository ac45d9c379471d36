/// The decode report of a predictive sequence (int_motion's and int_cond's §9): VIH's report
/// with the P-frame set (under the capability's own key) and each frame's kind.
extension VideoDecodeReport {
    init<P: PredictiveVideoPayload>(_ opened: PredictiveVideoOpened<P>, capability: String, intraSet: IntHyperModelSet,
                                    motionSet: (any PredictiveModelSet)?, condSet: (any PredictiveModelSet)?, range: ClosedRange<Int>,
                                    output: String?, outputFormat: String) {
        let p = opened.payload
        self.capability = capability
        enveloped = opened.enveloped
        width = p.width; height = p.height; chroma = p.chroma
        frameRate = p.frameRate; fps = p.frameRate.value; intraPeriod = p.gop
        frameCount = p.frameCount; firstFrame = range.lowerBound; lastFrame = range.upperBound
        modelSet = .init(name: intraSet.name, version: intraSet.version, id: intraSet.idHex)
        motionModelSet = motionSet.map { .init(name: $0.name, version: $0.version, id: $0.idHex) }
        condModelSet = condSet.map { .init(name: $0.name, version: $0.version, id: $0.idHex) }
        unit = nil; backend = ""; device = ""; driver = ""; dispatch = nil; reason = ""; rank = nil
        units = []
        inputBytes = opened.inputBytes
        self.output = output
        self.outputFormat = outputFormat
        y4mChroma = "C" + p.chroma.y4m.rawValue
        frames = []
        timings = Timings(entropyMs: 0, graphMs: 0, colorMs: 0, totalMs: 0, framesPerSecond: 0)
    }

    public mutating func add(_ f: PredictiveVideoFrame) {
        add(f.frame)
        frames[frames.count - 1].kind = f.kind
    }
}
