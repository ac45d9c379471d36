import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiRuntime

/// `waihost probe --dump DIR` and `waihost replay` as a plugin author uses them
/// (docs/probe.md §2, "Dumps and replay"): the failing graph of a rejected unit is written
/// with its inputs and the reference outputs, and replaying it on the plugin shows the same
/// first mismatch, on the reference that it is identical.
final class ProbeDumpReplayTests: XCTestCase {
    override class func tearDown() {
        CPluginBuilder.shared.removeDefects()
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    private func waihost(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try CLIRun.run(HostTestSupport.waihost, args,
                               environment: ["WAIHOST_CACHE_DIR": try HostTestSupport.temporaryDirectory("dump-cache"), "WAI_PLUGIN_PATH": nil])
        return (r.status, r.text, r.stderr)
    }

    func testARejectedUnitsGraphIsDumpedAndReplaysToTheSameMismatch() throws {
        // Wrong in requantize's low multiplier bits: rejected within the first stages.
        let plugins = try HostTestSupport.temporaryDirectory("dump-plugins")
        try CPluginBuilder.shared.installDefects([.reqLowBits], into: plugins)
        let dump = try HostTestSupport.temporaryDirectory("dump") + "/cases"
        let probe = try waihost(["probe", "--fresh", "--quiet", "--json", "--dump", dump, "--plugin-dir", plugins])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let result = try JSONDecoder().decode(ProbeResult.self, from: Data(probe.stdout.utf8))
        let row = try XCTUnwrap(result.units.first)
        XCTAssertEqual(row.state, .rejected, row.reason)
        let mismatch = try XCTUnwrap(row.mismatch, row.reason)

        let base = dump + "/\(row.backend)_0_\(mismatch.graph)"
        for suffix in [".whm", ".input0.i32", ".expected0.i32"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: base + suffix), "no \(base + suffix)")
        }
        let onPlugin = try waihost(["replay", base + ".whm", "--plugin", plugins + "/" + DefectVariant.reqLowBits.fileName])
        XCTAssertEqual(onPlugin.status, 3, onPlugin.stdout + onPlugin.stderr)
        // The same element, values and parameters as the probe found.
        for part in ["tensor \(mismatch.tensor) index \(mismatch.index)", "expected \(mismatch.expected), got \(mismatch.got)",
                     mismatch.parameters ?? "no parameters"] {
            XCTAssertTrue(onPlugin.stdout.contains(part), "\(part) not in: \(onPlugin.stdout)")
        }
        let onReference = try waihost(["replay", base + ".whm", "--reference"])
        XCTAssertEqual(onReference.status, 0, onReference.stdout + onReference.stderr)
        XCTAssertTrue(onReference.stdout.hasPrefix("identical"), onReference.stdout)
    }
}
