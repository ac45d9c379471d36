/// The `wai.video.int_motion` decode report (docs/capabilities/video_int_motion.md §9): VIH's
/// report with the motion set and each frame's kind.
extension VideoDecodeReport {
    public init(_ opened: VideoIntMotionCodec.Opened, intraSet: IntHyperModelSet, motionSet: MotionModelSet, range: ClosedRange<Int>,
                output: String?, outputFormat: String) {
        self.init(opened, capability: VideoIntMotionCodec.capability, intraSet: intraSet, motionSet: motionSet, condSet: nil,
                  range: range, output: output, outputFormat: outputFormat)
    }
}
