import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Intel's OpenCL CPU runtime (PyPI intel-opencl-rt, installed by
/// `scripts/driver-matrix.sh --install-intel`; docs/drivers.md §1) registered through an ICD
/// folder named by OCL_ICD_VENDORS: the probe must accept it, or reject it with a named
/// mismatch (docs/probe.md §2) — never crash, hang or fail to list it. Skipped when the
/// runtime is not installed on this machine.
final class OpenCLDriverMatrixTests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    /// Where driver-matrix.sh installs it: $WAI_DRIVERS_DIR, else $XDG_CACHE_HOME or
    /// ~/.cache, + /waihost/drivers/intel-opencl/venv/lib/libintelocl.so.
    static func intelRuntime() -> String? {
        let env = ProcessInfo.processInfo.environment
        let drivers = env["WAI_DRIVERS_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (env["HOME"] ?? "/root") + "/.cache") + "/waihost/drivers")
        let lib = drivers + "/intel-opencl/venv/lib/libintelocl.so"
        return FileManager.default.fileExists(atPath: lib) ? lib : nil
    }

    func testIntelRuntimeIsAcceptedOrRejectedWithANamedMismatch() throws {
        guard let lib = Self.intelRuntime() else {
            throw XCTSkip("Intel's OpenCL CPU runtime is not installed (scripts/driver-matrix.sh --install-intel installs it)")
        }
        let vendors = try IntHyperTestSupport.temporaryDirectory("intel-icd")
        try (lib + "\n").write(toFile: vendors + "/intel-cpu.icd", atomically: true, encoding: .utf8)
        let plugins = try IntHyperTestSupport.temporaryDirectory("intel-plugins")
        try FileManager.default.copyItem(atPath: try OpenCLBackendTests.pluginPath(), toPath: plugins + "/libWaiOpenCLBackend.so")
        let run = try OpenCLCLI.waihost(["probe", "--json", "--fresh", "--plugin-dir", plugins],
                                        env: ["OCL_ICD_VENDORS": vendors,
                                              "WAI_OPENCL_CACHE_DIR": try IntHyperTestSupport.temporaryDirectory("intel-programs")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let rows = try OpenCLCLI.units(run.stdout)
        XCTAssertEqual(rows.count, 1, "the ICD folder holds only Intel's runtime: \(rows)")
        guard let row = rows.first else { return }
        XCTAssertEqual(row.backend, "opencl", row.reason)
        XCTAssertTrue(row.driver.hasPrefix("Intel(R) OpenCL"), row.driver)
        switch row.state {
        case "accepted":
            break
        case "rejected":
            // docs/probe.md §2: "stage S, graph G: op (node N) tensor T index I (c, y, x): expected E, got G".
            let named = try NSRegularExpression(pattern: #"^stage [a-z]+, graph \S+: .* expected -?[0-9]+, got -?[0-9]+$"#)
            XCTAssertNotNil(named.firstMatch(in: row.reason, range: NSRange(row.reason.startIndex..., in: row.reason)),
                            "rejected without a named mismatch: \(row.reason)")
        default:
            XCTFail("\(row.state): \(row.reason)")
        }
    }
}
