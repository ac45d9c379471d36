import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime
@testable import WaiCapabilities

/// The CPU backend built again over emulated AVX-512 and AMX intrinsics
/// (Tests/EmulatedCPUBackend, libWaiCPUBackendEmulated.so): the same kernel sources and
/// plugin code, each intrinsic in portable C after Intel's pseudocode, so those paths' logic
/// is checked on a CPU without them. CPUBackendTests.backends() adds its units for the paths
/// this CPU lacks, so every kernel test (CPUAMXTests, CPUXPairTests, WarpTests, …) runs them
/// against the reference; here, its identity and whole decodes against the golden SHA-256s.
final class EmulatedCPUBackendTests: XCTestCase {
    /// Its own backend name, driver strings and device, so its probe-cache keys and reports are never
    /// the real backend's; every path on any CPU, AVX2 only where the CPU has it (natively).
    func testTheEmulatedBackendNamesItselfAndOffersTheAVX512AndAMXPaths() throws {
        let emulated = try XCTUnwrap(try CPUBackendTests.load(isa: nil, emulated: true))
        XCTAssertEqual(emulated.name, "cpu-emulated")
        let drivers = try emulated.units().map(\.driver)
        XCTAssertEqual(Array(drivers.prefix(2)), ["waihost-cpu-emulated 1.0 amx-int8", "waihost-cpu-emulated 1.0 avx512-vnni"])
        XCTAssertEqual(drivers.last, "waihost-cpu-emulated 1.0 scalar")
        XCTAssertTrue(try emulated.units().allSatisfy { $0.device.hasSuffix(" thread, AVX-512 and AMX emulated)")
                                                        || $0.device.hasSuffix(" threads, AVX-512 and AMX emulated)") })
        let real = try XCTUnwrap(try CPUBackendTests.load(isa: nil))
        XCTAssertEqual(real.name, "cpu")
        XCTAssertTrue(try real.units().allSatisfy { $0.driver.hasPrefix("waihost-cpu 1.0 ") && !$0.device.contains("emulated") })
    }

    /// The emulation is real only if the library holds no AVX-512 or AMX instruction: a
    /// kernel function whose target attribute bypassed CPUK_TARGET_512 would run natively on
    /// an AVX-512 machine (and fault elsewhere). objdump's disassembly names the registers
    /// and instructions those need (zmm, opmask k1–k7, tiles).
    func testTheEmulatedLibraryHoldsNoAVX512OrAMXInstruction() throws {
        let objdump = try CPluginBuilder.tool("objdump", why: "the test disassembles the emulated backend (apt-get install binutils)")
        let library = try CPUBackendTests.requirePlugin(emulated: true)
        let result = try Subprocess(objdump, ["-d", "--no-show-raw-insn", library], deadline: 120).run()
        XCTAssertEqual(result.status, 0, result.stderrText)
        let text = result.stdoutText
        let pattern = try NSRegularExpression(pattern: #"%zmm|%k[1-7]\b|\b(tdpb[su][su]d|tileloadd|tilestored|ldtilecfg|tilezero|tilerelease|vpdpwssd)\b"#)
        var found: [String] = []
        for line in text.split(separator: "\n") where found.count < 5 {
            let text = String(line)
            if pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { found.append(text) }
        }
        XCTAssertGreaterThan(text.utf8.count, 100_000, "objdump disassembled too little of \(library)")
        XCTAssertEqual(found, [], "AVX-512 or AMX instructions in \(library)")
    }

    /// Every golden vector, and the trained q2 set's photo, decode to their pinned SHA-256s on
    /// the emulated AMX and AVX-512 paths: whole g_s and h_s graphs, every layer's tile
    /// decomposition chosen from its certified intervals as on an AMX CPU.
    func testGoldenDecodesOnTheEmulatedPaths() throws {
        let golden = try IntHyperTestSupport.golden()
        let sampleSet = try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/" + golden.model_set.path)
        struct Photo: Decodable { var payload: String; var model_set: String; var sha256: String }
        let photo = try JSONDecoder().decode(Photo.self, from: Data(try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/photo.json")))
        let photoSet = try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/" + photo.model_set)
        var cases = golden.vectors.map { ($0.payload, sampleSet, $0.sha256) }
        cases.append((photo.payload, photoSet, photo.sha256))
        for isa in ["amx", "avx512"] {
            let plugin = try XCTUnwrap(try CPUBackendTests.load(isa: isa, emulated: true))
            let runner = PluginGraphRunner(plugin: plugin, unit: 0)
            for (payload, set, sha) in cases {
                let bytes = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/" + payload)
                let decoded = try IntHyperCodec.decode(bytes, modelSet: set, runner: runner)
                XCTAssertEqual(decoded.result.synthesisReport.backend, "cpu-emulated")
                XCTAssertEqual(decoded.image.sha256, sha, "\(payload) on the emulated \(isa) path")
            }
        }
    }
}
