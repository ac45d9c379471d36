// The wai.video.int_motion side of the video fuzz fixture (scripts/fuzz-video.sh, target
// motion): a tiny seeded motion set (N = M = 4) beside PayloadFixture's intra set.

@testable import WaiCapabilities

enum MotionFixture {
    static func modelSet() throws -> MotionModelSet {
        try MotionModelGenerator.generate(seed: PayloadFixture.seed, n: 4, m: 4, name: "fuzz-motion")
    }

    /// Made on first use (a Swift global is initialised once, thread-safely).
    static let loaded: MotionModelSet = {
        do { return try modelSet() } catch { fatalError("motion fixture: \(error)") }
    }()
}
