/// The `wai.video.int_cond` decode report (docs/capabilities/video_int_cond.md §9): VIH's
/// report with the conditional set and each frame's kind.
extension VideoDecodeReport {
    public init(_ opened: VideoIntCondCodec.Opened, intraSet: IntHyperModelSet, condSet: CondModelSet, range: ClosedRange<Int>,
                output: String?, outputFormat: String) {
        self.init(opened, capability: VideoIntCondCodec.capability, intraSet: intraSet, motionSet: nil, condSet: condSet,
                  range: range, output: output, outputFormat: outputFormat)
    }
}
