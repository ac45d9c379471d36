import WaiSupport
import WaiHost

/// The `wai.video.int_cond` side of `waihost encode` and `waihost decode`
/// (docs/capabilities/video_int_cond.md §9): VIH's inputs, outputs, frame sink and report,
/// with the conditional set and the GOP added (the GOP option is int_motion's `--gop`).
enum CondVideoOptions {
    static let condModel = OptionSpec.value("cond-model", "DIR", help: "a wai.video.int_cond model set: encode a conditionally coded sequence with it (its encoder files needed) / decode one",
                                            completion: .directory)
}

/// int_cond's names and entry points; its shipped conditional set is found by id when
/// `--cond-model` is absent.
enum IntCondCLI: PredictiveVideoCLI {
    static let capability = VideoIntCondCodec.capability
    static let option = "cond-model"
    static let summaryKey = "cond_model_set_id"
    static let encodeLabel = "conditional model set"
    static let decodeLabel = "conditional set"

    static func load(_ folder: String, needsAnalysis: Bool) throws -> CondModelSet {
        try CondModelSet.load(directory: folder, needsAnalysis: needsAnalysis)
    }

    static func encode(count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int, frameRate: Rational,
                       aspect: Rational, gop: Int, intraSet: IntHyperModelSet, set: CondModelSet, runner: GraphRunner,
                       envelope: Bool) throws -> PredictiveVideoEncoded {
        try VideoIntCondCodec.encode(count: count, frame: frame, chroma: chroma, width: width, height: height, frameRate: frameRate,
                                         aspect: aspect, gop: gop, intraSet: intraSet, condSet: set, runner: runner, envelope: envelope)
    }

    static func open(_ bytes: [UInt8]) throws -> VideoIntCondCodec.Opened { try VideoIntCondCodec.open(bytes) }
    static func shippedFolder(forID id: [UInt8]) throws -> String? { try ShippedModelSets.condFolder(forID: id) }
    static func notShipped() throws -> String { ", not the shipped \(try ShippedModelSets.condFolder())" }

    static func report(_ opened: VideoIntCondCodec.Opened, intraSet: IntHyperModelSet, set: CondModelSet, range: ClosedRange<Int>,
                       output: String?, outputFormat: String) -> VideoDecodeReport {
        VideoDecodeReport(opened, intraSet: intraSet, condSet: set, range: range, output: output, outputFormat: outputFormat)
    }

    static func decode(_ opened: VideoIntCondCodec.Opened, intraSet: IntHyperModelSet, set: CondModelSet, runner: GraphRunner,
                       frames: ClosedRange<Int>, each: (PredictiveVideoFrame) throws -> Void) throws {
        try VideoIntCondCodec.decode(opened, intraSet: intraSet, condSet: set, runner: runner, frames: frames, each: each)
    }
}
