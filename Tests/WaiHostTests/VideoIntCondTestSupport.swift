import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiCapabilities

/// Shared by the VideoIntCond*Tests (docs/capabilities/video_int_cond.md §10): the seeded
/// conditional set of the golden clip, the intra set and source frames (int_motion's), the
/// clip's golden hashes.
enum VideoIntCondTestSupport {
    static let seed: UInt64 = 7, n = 8, m = 12
    /// Generated once per test process (the golden clip's set, §10).
    static let condModel: Result<CondModelSet, Error> = Result { try CondModelGenerator.generate(seed: seed, n: n, m: m) }
    static func cond() throws -> CondModelSet { try condModel.get() }
    static func intra() throws -> IntHyperModelSet { try VideoIntMotionTestSupport.intra() }
    static func panFrames(_ count: Int = 6) throws -> [RGB8Image] { try VideoIntMotionTestSupport.panFrames(count) }

    static var fixtures: String { TestPaths.repositoryRoot + "/Tests/Fixtures/int_cond" }
    static var clip: String { fixtures + "/clip.wai" }

    struct Golden: Decodable {
        struct Frame: Decodable { var index: Int; var kind: String; var sha256: String; var rgb_sha256: String }
        var capability: String; var width: Int; var height: Int; var intra_period: Int; var frame_count: Int
        var cond_model_set_id: String
        var frames: [Frame]
    }

    static func golden() throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(try IntHyperTestSupport.read(fixtures + "/clip.json")))
    }

    /// Every frame of `opened`'s frames `range`, decoded by `runner`.
    static func decode(_ opened: VideoIntCondCodec.Opened, runner: GraphRunner, frames range: ClosedRange<Int>? = nil) throws
        -> [VideoIntCondCodec.Frame] {
        var out: [VideoIntCondCodec.Frame] = []
        try VideoIntCondCodec.decode(opened, intraSet: try intra(), condSet: try cond(), runner: runner, frames: range) { out.append($0) }
        return out
    }

    static func psnr(_ a: RGB8Image, _ b: RGB8Image) -> Double { VideoIntMotionTestSupport.psnr(a, b) }
}
