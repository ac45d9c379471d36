// The keys every model set's manifest has are checked one way (ModelSetManifestKeys): the
// int_motion manifest refuses what the int_hyper one refuses, by the same location.

import XCTest
import WaiHost
@testable import WaiCapabilities

final class ModelSetManifestKeysTests: XCTestCase {
    private let hash = String(repeating: "ab", count: 32)

    private func motionManifest(dropping: String? = nil, capability: String = MotionModelSet.capability,
                                extra: [String] = []) -> [UInt8] {
        let names = (MotionManifest.decoderFiles + extra).filter { $0 != dropping }
        let files = Dictionary(uniqueKeysWithValues: names.map { ($0, hash) })
        let text = String(decoding: MotionManifest(name: "t", version: "1", files: files).serialized(), as: UTF8.self)
            .replacingOccurrences(of: "\"\(MotionModelSet.capability)\"", with: "\"\(capability)\"")
        return Array(text.utf8)
    }

    private func refusal(_ bytes: [UInt8]) -> ModelSetError? {
        do { _ = try MotionManifest.parse(bytes); return nil } catch { return error as? ModelSetError }
    }

    func testMotionManifestRefusesWhatEveryManifestRefuses() throws {
        XCTAssertNoThrow(try MotionManifest.parse(motionManifest()))
        let other = refusal(motionManifest(capability: IntHyperModelSet.capability))
        XCTAssertEqual(other?.location, "$.capability")
        XCTAssertTrue((other?.problem ?? "").contains("not a wai.video.int_motion model set"))
        let missing = refusal(motionManifest(dropping: "p_synth.whm"))
        XCTAssertEqual(missing?.location, "$.files")
        XCTAssertTrue((missing?.problem ?? "").contains("does not list p_synth.whm"))
        // encoder files: all or none
        let partial = refusal(motionManifest(extra: ["predict.whm"]))
        XCTAssertEqual(partial?.location, "$.files")
        XCTAssertTrue((partial?.problem ?? "").contains("lists predict.whm but not all of"))
        // the serializer writes known names only: rename one in the text
        let renamed = String(decoding: motionManifest(), as: UTF8.self).replacingOccurrences(of: "\"p_synth.whm\"", with: "\"g_s.whm\"")
        let unknown = refusal(Array(renamed.utf8))
        XCTAssertTrue((unknown?.problem ?? "").contains("unknown file \"g_s.whm\""))
        XCTAssertEqual(try MotionManifest.parse(motionManifest(extra: MotionManifest.encoderFiles)).files.count, 10)
    }

    func testLabels() {
        XCTAssertTrue(ModelSetManifestKeys.isValidLabel("q2-v1.0_x", maximum: 64))
        XCTAssertFalse(ModelSetManifestKeys.isValidLabel("", maximum: 64))
        XCTAssertFalse(ModelSetManifestKeys.isValidLabel("a b", maximum: 64))
        XCTAssertFalse(ModelSetManifestKeys.isValidLabel(String(repeating: "a", count: 33), maximum: 32))
    }
}
