/// The `wai.video.int_cond` decode report (docs/capabilities/video_int_cond.md §9): VIH's
/// report with the conditional set and each frame's kind.
extension VideoDecodeReport {
    public init(_ opened: VideoIntCondCodec.Opened, intraSet: IntHyperModelSet, condSet: CondModelSet, range: ClosedRange<Int>,
                output: String?, outputFormat: String) {
        let p = opened.payload
        capability = VideoIntCondCodec.capability
        enveloped = opened.enveloped
        width = p.width; height = p.height; chroma = p.chroma
        frameRate = p.frameRate; fps = p.frameRate.value; intraPeriod = p.gop
        frameCount = p.frames.count; firstFrame = range.lowerBound; lastFrame = range.upperBound
        modelSet = .init(name: intraSet.name, version: intraSet.version, id: intraSet.idHex)
        motionModelSet = nil
        condModelSet = .init(name: condSet.name, version: condSet.version, id: condSet.idHex)
        unit = nil; backend = ""; device = ""; driver = ""; dispatch = nil; reason = ""; rank = nil
        units = []
        inputBytes = opened.inputBytes
        self.output = output
        self.outputFormat = outputFormat
        y4mChroma = "C" + p.chroma.y4m.rawValue
        frames = []
        timings = Timings(entropyMs: 0, graphMs: 0, colorMs: 0, totalMs: 0, framesPerSecond: 0)
    }

    public mutating func add(_ f: VideoIntCondCodec.Frame) {
        add(f.frame)
        frames[frames.count - 1].kind = f.kind
    }
}
