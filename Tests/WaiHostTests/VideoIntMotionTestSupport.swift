import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiCapabilities

/// Shared by the VideoIntMotion*Tests (docs/capabilities/video_int_motion.md §10): the seeded
/// motion set of the golden clip, the intra set, the clip's source frames and its golden hashes.
enum VideoIntMotionTestSupport {
    static let seed: UInt64 = 7, n = 8, m = 12
    /// Generated once per test process (the golden clip's set, §10).
    static let motionModel: Result<MotionModelSet, Error> = Result { try MotionModelGenerator.generate(seed: seed, n: n, m: m) }
    static func motion() throws -> MotionModelSet { try motionModel.get() }
    static let intraModel: Result<IntHyperModelSet, Error> = Result {
        try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/models/q2", needsAnalysis: true)
    }
    static func intra() throws -> IntHyperModelSet { try intraModel.get() }

    static var fixtures: String { TestPaths.repositoryRoot + "/Tests/Fixtures/int_motion" }
    static var clip: String { fixtures + "/clip.wai" }

    /// Frame n of the clip's source: the 64×48 window of the photograph at (200 + 6n, 150 + 2n),
    /// as scripts/make-motion-clip.sh crops it (VIH §10's pan).
    static func panFrames(_ count: Int = 6) throws -> [RGB8Image] {
        let photo = try PictureFile.read(path: IntHyperTestSupport.samples + "/photo.png")
        return try (0..<count).map { n -> RGB8Image in
            let x0 = 200 + 6 * n, y0 = 150 + 2 * n
            var rows: [UInt8] = []
            for i in 0..<48 {
                let start = ((y0 + i) * photo.width + x0) * 3
                rows += photo.pixels[start..<(start + 64 * 3)]
            }
            return try RGB8Image(width: 64, height: 48, pixels: rows)
        }
    }

    struct Golden: Decodable {
        struct Frame: Decodable { var index: Int; var kind: String; var sha256: String; var rgb_sha256: String }
        var capability: String; var width: Int; var height: Int; var intra_period: Int; var frame_count: Int
        var motion_model_set_id: String
        var frames: [Frame]
    }

    static func golden() throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(try IntHyperTestSupport.read(fixtures + "/clip.json")))
    }

    /// Every frame of `opened`'s frames `range`, decoded by `runner`.
    static func decode(_ opened: VideoIntMotionCodec.Opened, runner: GraphRunner, frames range: ClosedRange<Int>? = nil) throws
        -> [VideoIntMotionCodec.Frame] {
        var out: [VideoIntMotionCodec.Frame] = []
        try VideoIntMotionCodec.decode(opened, intraSet: try intra(), motionSet: try motion(), runner: runner, frames: range) { out.append($0) }
        return out
    }

    static func psnr(_ a: RGB8Image, _ b: RGB8Image) -> Double {
        let se = zip(a.pixels, b.pixels).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
        return 10 * log10(255 * 255 / max(se / Double(a.pixels.count), 1e-9))
    }
}
