import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime
@testable import WaiCapabilities

/// `analysis_shift` (docs/capabilities/int_hyper.md §2.1, §6): h_a reads g_a's output as it is
/// and the coded y is its rounding shift; the manifest key round-trips and is refused out of range.
final class IntHyperAnalysisShiftTests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    private func shifted(_ set: IntHyperModelSet, _ k: Int) throws -> IntHyperModelSet {
        let a = try XCTUnwrap(set.analysis)
        return try IntHyperModelSet(name: set.name, version: set.version, entropy: set.entropy,
                                    hyperSynthesis: set.hyperSynthesis, synthesis: set.synthesis,
                                    analysis: .init(latent: a.latent, hyper: a.hyper, latentShift: k))
    }

    func testRoundingShiftRoundsHalvesUp() {
        let t = TensorValue(shape: Shape(1, 1, 9), values: [-25, -24, -9, -8, -7, 7, 8, 23, 24])
        XCTAssertEqual(IntHyperEncoder.codedLatent(t, shift: 4).values, [-2, -1, -1, 0, 0, 0, 1, 1, 2])
        XCTAssertEqual(IntHyperEncoder.codedLatent(t, shift: 0).values, t.values)
        XCTAssertEqual(IntHyperEncoder.codedLatentInterval(Interval(lo: -1008, hi: 1008), shift: 4), Interval(lo: -63, hi: 63))
    }

    /// The same g_a and h_a with shift 3: z (h_a on g_a's output) is unchanged, y is g_a's
    /// output shifted, and the payload decodes with the decoder that knows nothing of the shift.
    func testEncoderFeedsHyperAnalysisTheUnshiftedOutputAndCodesTheShiftedOne() throws {
        let set = try IntHyperTestSupport.small()
        let three = try shifted(set, 3)
        XCTAssertEqual(three.id, set.id, "the shift is the encoder's: the model-set id does not change")
        let picture = try SamplePicture.make(width: 40, height: 24)
        let reference = HostGraphRunner.reference()
        let plain = try IntHyperEncoder(modelSet: set).encode(picture, runner: reference)
        let coded = try IntHyperEncoder(modelSet: three).encode(picture, runner: reference)
        XCTAssertEqual(coded.z.values, plain.z.values)
        XCTAssertEqual(coded.y.values, plain.y.values.map { ($0 + 4) >> 3 })
        XCTAssertTrue(plain.y.values.contains { ($0 + 4) >> 3 != $0 }, "the picture must give y the shift changes")
        let decoded = try IntHyperCodec.decode(coded.bytes, modelSet: three, runner: reference)
        XCTAssertEqual(decoded.image.width, 40)
    }

    func testManifestKeyRoundTripsAndIsRefusedOutOfRange() throws {
        let set = try shifted(try IntHyperTestSupport.small(), 4)
        let dir = try IntHyperTestSupport.temporaryDirectory("shift")
        try set.write(to: dir)
        let text = String(decoding: try IntHyperTestSupport.read(dir + "/manifest.json"), as: UTF8.self)
        XCTAssertTrue(text.contains("\"analysis_shift\": 4,"), text)
        XCTAssertEqual(try IntHyperModelSet.load(directory: dir, needsAnalysis: true).analysis?.latentShift, 4)
        let plain = String(decoding: IntHyperManifest(name: "a", version: "1", files: set.fileSHA256).serialized(), as: UTF8.self)
        XCTAssertFalse(plain.contains("analysis_shift"), "a set without a shift keeps the manifest it always had")

        for (bad, problem) in [(text.replacingOccurrences(of: "\"analysis_shift\": 4", with: "\"analysis_shift\": 16"), "outside 0…15"),
                               (text.replacingOccurrences(of: "\"analysis_shift\": 4", with: "\"analysis_shift\": -1"), "outside 0…15")] {
            try IntHyperTestSupport.write(Array(bad.utf8), dir + "/manifest.json")
            XCTAssertThrowsError(try IntHyperModelSet.load(directory: dir)) { e in
                guard let m = e as? ModelSetError else { return XCTFail("\(e)") }
                XCTAssertEqual(m.file, "manifest.json")
                XCTAssertEqual(m.location, "$.analysis_shift")
                XCTAssertTrue("\(m)".contains(problem), "\(m)")
            }
        }
        let decoderOnly = IntHyperManifest(name: "a", version: "1", files: set.fileSHA256.filter { !$0.key.hasPrefix("g_a") && !$0.key.hasPrefix("h_a") },
                                           analysisShift: 2).serialized()
        XCTAssertThrowsError(try IntHyperManifest.parse(decoderOnly)) { e in
            XCTAssertTrue("\(e)".contains("no analysis side"), "\(e)")
        }
    }
}
