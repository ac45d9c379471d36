/// Why a `wai.video.int_cond` payload was refused (docs/capabilities/video_int_cond.md
/// §5–§6): the predictive payloads' error, worded for int_cond.
public typealias VideoIntCondPayloadError = PredictiveVideoPayloadError<VideoIntCondPayload>

extension VideoIntCondPayload: PredictiveVideoFormat {
    public static let formatName = "int_cond"
}
