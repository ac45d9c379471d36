/// Why a `wai.video.int_motion` payload was refused (docs/capabilities/video_int_motion.md
/// §5–§6): the predictive payloads' error, worded for int_motion.
public typealias VideoIntMotionPayloadError = PredictiveVideoPayloadError<VideoIntMotionPayload>

extension VideoIntMotionPayload: PredictiveVideoFormat {
    public static let formatName = "int_motion"
}
