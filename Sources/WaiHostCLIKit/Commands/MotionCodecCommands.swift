import WaiSupport
import WaiHost

/// The `wai.video.int_motion` side of `waihost encode` and `waihost decode`
/// (docs/capabilities/video_int_motion.md §9): VIH's inputs, outputs, frame sink and report,
/// with the motion set and the GOP added.
enum MotionVideoOptions {
    static let motionModel = OptionSpec.value("motion-model", "DIR", help: "a wai.video.int_motion model set: encode a motion-compensated sequence with it (its encoder files needed) / decode one",
                                              completion: .directory)
    static let gop = OptionSpec.value("gop", "G", help: "wai.video.int_motion: frames from one intra frame to the next, 1…65535 (default \(VideoIntMotionCodec.defaultGOP))")

    static func gop(_ p: ParsedArguments) throws(UsageError) -> Int? {
        try p.int("gop", in: VideoIntMotionPayload.gopRange)
    }
}

/// int_motion's names and entry points; its shipped motion set is found by id when
/// `--motion-model` is absent.
enum IntMotionCLI: PredictiveVideoCLI {
    static let capability = VideoIntMotionCodec.capability
    static let option = "motion-model"
    static let summaryKey = "motion_model_set_id"
    static let encodeLabel = "motion model set"
    static let decodeLabel = "motion set"

    static func load(_ folder: String, needsAnalysis: Bool) throws -> MotionModelSet {
        try MotionModelSet.load(directory: folder, needsAnalysis: needsAnalysis)
    }

    static func encode(count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int, frameRate: Rational,
                       aspect: Rational, gop: Int, intraSet: IntHyperModelSet, set: MotionModelSet, runner: GraphRunner,
                       envelope: Bool) throws -> PredictiveVideoEncoded {
        try VideoIntMotionCodec.encode(count: count, frame: frame, chroma: chroma, width: width, height: height, frameRate: frameRate,
                                           aspect: aspect, gop: gop, intraSet: intraSet, motionSet: set, runner: runner, envelope: envelope)
    }

    static func open(_ bytes: [UInt8]) throws -> VideoIntMotionCodec.Opened { try VideoIntMotionCodec.open(bytes) }
    static func shippedFolder(forID id: [UInt8]) throws -> String? { try ShippedModelSets.motionFolder(forID: id) }
    static func notShipped() throws -> String { ", not the shipped \(try ShippedModelSets.motionFolder())" }

    static func report(_ opened: VideoIntMotionCodec.Opened, intraSet: IntHyperModelSet, set: MotionModelSet, range: ClosedRange<Int>,
                       output: String?, outputFormat: String) -> VideoDecodeReport {
        VideoDecodeReport(opened, intraSet: intraSet, motionSet: set, range: range, output: output, outputFormat: outputFormat)
    }

    static func decode(_ opened: VideoIntMotionCodec.Opened, intraSet: IntHyperModelSet, set: MotionModelSet, runner: GraphRunner,
                       frames: ClosedRange<Int>, each: (PredictiveVideoFrame) throws -> Void) throws {
        try VideoIntMotionCodec.decode(opened, intraSet: intraSet, motionSet: set, runner: runner, frames: frames, each: each)
    }
}
