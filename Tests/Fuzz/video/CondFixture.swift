// The wai.video.int_cond side of the video fuzz fixture (scripts/fuzz-video.sh, target cond):
// a tiny seeded conditional set (N = M = 4) beside PayloadFixture's intra set.

@testable import WaiCapabilities

enum CondFixture {
    static func modelSet() throws -> CondModelSet {
        try CondModelGenerator.generate(seed: PayloadFixture.seed, n: 4, m: 4, name: "fuzz-cond")
    }

    /// Made on first use (a Swift global is initialised once, thread-safely).
    static let loaded: CondModelSet = {
        do { return try modelSet() } catch { fatalError("cond fixture: \(error)") }
    }()
}
