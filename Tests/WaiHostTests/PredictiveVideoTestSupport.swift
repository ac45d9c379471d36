import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime
@testable import WaiCapabilities

/// What the int_motion and int_cond tests check alike (each spec's §6 and §10), so each
/// capability's tests give only their codec's decode and expectations.
enum PredictiveVideoTestSupport {
    /// The hash column of ffmpeg's `framemd5` / `framehash` output.
    static func hashColumn(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
    }

    /// md5sum's hash of `bytes` (what ffmpeg's framemd5 gives a frame).
    static func md5(_ bytes: [UInt8]) throws -> String {
        let path = try IntHyperTestSupport.temporaryDirectory("md5") + "/frame"
        try IntHyperTestSupport.write(bytes, path)
        return String(try Subprocess("/usr/bin/md5sum", [path]).run().stdoutText.prefix(32))
    }

    /// Every unit this machine has (each CPU path, lavapipe, PoCL when their plugins list one)
    /// decodes to the golden frames (`planes`: the Y4M planes' SHA-256, `rgb`: the RGB8 rows');
    /// the units covered, as `backend:unit`.
    static func decodesOnEveryUnit(planes: [String], rgb: [String], decode: (GraphRunner) throws -> [PredictiveVideoFrame],
                                   file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        var covered: [String] = []
        for name in ["libWaiCPUBackend.so", "libWaiVulkanBackend.so", "libWaiOpenCLBackend.so"] {
            guard let plugin = try? BackendPlugin.load(path: TestPaths.product(name)), let units = try? plugin.units() else {
                XCTAssertNotEqual(name, "libWaiCPUBackend.so", "the CPU backend must load", file: file, line: line)
                continue
            }
            for unit in units.indices {
                let frames = try decode(PluginGraphRunner(plugin: plugin, unit: unit))
                XCTAssertEqual(frames.map { SHA256.hex($0.frame.planes) }, planes, "\(plugin.name):\(unit) \(units[unit].device)",
                               file: file, line: line)
                XCTAssertEqual(frames.map(\.frame.image.sha256), rgb, "\(plugin.name):\(unit)", file: file, line: line)
                covered.append("\(plugin.name):\(unit)")
            }
        }
        XCTAssertTrue(covered.contains("cpu:0"), "\(covered)", file: file, line: line)
        return covered
    }

    /// §6 step 5 on a 6-frame GOP-4 sequence: `--frames 2..5` decodes from frame 0 and gives
    /// exactly frames 2…5, 5..5 starts at the second GOP's intra frame, 4..6 is refused.
    static func checkFramesFromMidGOP<Format: PredictiveVideoFormat>(
        _: Format.Type, decode: (ClosedRange<Int>?) throws -> [PredictiveVideoFrame], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let all = try decode(nil)
        let part = try decode(2...5)
        XCTAssertEqual(part.map(\.frame.index), [2, 3, 4, 5], file: file, line: line)
        XCTAssertEqual(part.map(\.frame.planes), all[2...5].map(\.frame.planes), file: file, line: line)
        let five = try decode(5...5)
        XCTAssertEqual(five.map(\.frame.planes), [all[5].frame.planes], "from the second GOP's intra frame", file: file, line: line)
        XCTAssertThrowsError(try decode(4...6), file: file, line: line) {
            XCTAssertEqual($0 as? PredictiveVideoPayloadError<Format>, .frameRange(first: 4, last: 6, frameCount: 6), file: file, line: line)
        }
    }

    /// VIM §9 / video_int_cond.md §9: a pan encoded with the shipped trained set `folder`
    /// (through `option`, on the reference) decodes without the option — the set found by the
    /// sequence's id — to the frames the named folder gives (both on the reference: which
    /// unit decodes is the golden clips' subject, and a clean checkout has no plugins.d).
    static func shippedSetIsFoundByID(option: String, folder: String, waihost: ([String]) throws -> CLIRun) throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("shipped")
        try IntHyperTestSupport.write(try VideoIntMotionTestSupport.panFrames(2).flatMap(\.pixels), dir + "/pan.rgb")
        let e = try waihost(["encode", dir + "/pan.rgb", "--size", "64x48", "--fps", "30", "--\(option)", folder, "--gop", "2",
                             "--quality", "2", "--unit", "reference", "-o", dir + "/pan.wai"])
        XCTAssertEqual(e.status, 0, e.stderr)
        let named = try waihost(["decode", dir + "/pan.wai", "--\(option)", folder, "-o", dir + "/named.y4m", "--unit", "reference"])
        XCTAssertEqual(named.status, 0, named.stderr)
        let found = try waihost(["decode", dir + "/pan.wai", "-o", dir + "/found.y4m", "--unit", "reference"])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(try IntHyperTestSupport.read(dir + "/found.y4m"), try IntHyperTestSupport.read(dir + "/named.y4m"))
    }
}
