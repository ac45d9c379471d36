import XCTest
@testable import WaiHostCLIKit
import WaiHost

/// JSON style (docs/cli.md, "JSON output"), unit identity and progress rendering.
final class OutputTests: XCTestCase {
    func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testReportsCarryTheirSchema() throws {
        struct R: Encodable { var someField = 1; enum CodingKeys: String, CodingKey { case someField = "some_field" } }
        let o = try object(try JSON.report(R(), schema: .decode))
        XCTAssertEqual(o["schema"] as? String, "waihost.decode/1")
        XCTAssertEqual(o["some_field"] as? Int, 1)
        XCTAssertEqual(Set(Schema.allCases.map(\.id)).count, Schema.allCases.count)
    }

    func testErrorsAreOneObjectWithCodeAndMessage() throws {
        let o = try object(ErrorReport(.usage, message: "missing IN", command: ["decode"]).text)
        XCTAssertEqual(o["schema"] as? String, "waihost.error/1")
        let e = try XCTUnwrap(o["error"] as? [String: Any])
        XCTAssertEqual(e["code"] as? String, "usage")
        XCTAssertEqual(e["message"] as? String, "missing IN")
        XCTAssertEqual(e["command"] as? String, "decode")
        XCTAssertEqual(ErrorCode.of(HostError.noSuchUnit(selection: "gpu", available: [])), .unitSelection)
        XCTAssertEqual(ErrorCode.of(FileError(path: "x", problem: "gone")), .file)
        XCTAssertEqual(ErrorCode.of(CLIError(.stream, "no playlist")), .stream)
        XCTAssertEqual(ErrorCode.of(UsageError("x")), .usage)
    }

    func testJSONFlagIsSeenBeforeDoubleDashOnly() {
        XCTAssertTrue(CLI.wantsJSON(["decode", "x", "--json"]))
        XCTAssertFalse(CLI.wantsJSON(["decode", "--", "--json"]))
    }

    func testMergedObjectsAndUnitIdentity() throws {
        let vulkan = UnitProbeRecord(backend: "vulkan", path: "/p/libWaiVulkanBackend.so", device: "AMD Radeon RX 6800", unit: .gpu,
                                     index: 1, driver: "radv Mesa; driver version 0x5c02001; Vulkan 1.3.255 pci 1002:73bf (0000:0a:00.0) /dev/dri/renderD129",
                                     state: .accepted, rank: 1, reason: "exact")
        let cpu = UnitProbeRecord(backend: "cpu", path: "/p/libWaiCPUBackend.so", device: "Xeon", unit: .cpu, index: 2,
                                  driver: "waihost-cpu 1.0 avx2", state: .accepted, rank: 2, reason: "exact")
        let probe = ProbeResult(units: [cpu, vulkan])
        // The report names its unit itself: vulkan:1 is ranked 1 here, but a report's rank is
        // as of its run (a later demotion re-ranks), so the identity never comes from the rank.
        let report = RunReport(unit: .gpu, ref: .unit(backend: "vulkan", index: 1), device: "AMD Radeon RX 6800",
                               driver: vulkan.driver, dispatch: .rankedFirst, reason: "ranked first", rank: 1)
        XCTAssertEqual(probe.accepted.first?.ref, report.ref)
        let id = UnitIdentity(report)
        XCTAssertEqual(id.unitIndex, 1)
        XCTAssertEqual(id.selector, .unit(backend: "vulkan", index: 1))
        XCTAssertEqual(id.deviceIdentity, DeviceIdentity(pciAddress: "0000:0a:00.0", pciID: "1002:73bf", renderNode: "/dev/dri/renderD129"))
        let o = try object(try JSON.report(Merged(base: report, extra: id), schema: .runGraph))
        XCTAssertEqual(o["unit_index"] as? Int, 1)
        XCTAssertEqual(o["backend"] as? String, "vulkan")
        XCTAssertEqual(o["unit"] as? String, "gpu")
        XCTAssertEqual(o["selector"] as? String, "vulkan:1")
        XCTAssertEqual((o["device_identity"] as? [String: Any])?["pci_address"] as? String, "0000:0a:00.0")

        let onCPU = UnitIdentity(RunReport(unit: .cpu, ref: .unit(backend: "cpu", index: 2), device: "Xeon", driver: cpu.driver,
                                           dispatch: .forced, reason: "", rank: 5))
        XCTAssertEqual(onCPU.unitIndex, 2)
        XCTAssertNil(onCPU.deviceIdentity, "no PCI address: named by backend, index and device")
        let reference = UnitIdentity(RunReport(unit: .cpu, ref: .reference, device: "host", driver: "", dispatch: .forced,
                                               reason: "", rank: nil))
        XCTAssertNil(reference.unitIndex)
        XCTAssertEqual(reference.selector, .reference)
        XCTAssertEqual(try object(try JSON.text(reference))["selector"] as? String, "reference")

        XCTAssertTrue(DeviceIdentity(driver: "llvmpipe pci zz (x)").isEmpty, "a malformed suffix is no identity")
        let row = try object(try JSON.text(UnitRow(vulkan)))
        XCTAssertEqual(row["selector"] as? String, "vulkan:1")
        XCTAssertEqual(row["index"] as? Int, 1)
    }

    func testProgressOnATerminalRedrawsWithPercentAndETA() {
        var written = ""
        var now = 0.0
        let p = Progress(enabled: true, terminal: true, write: { written += $0 }, clock: { now })
        p.begin("decoding")
        now = 1000
        p.update(1, of: 4)
        now = 1050
        p.update(2, of: 4)   // within 100 ms of the last draw: not redrawn
        now = 2000
        p.update(2, of: 4, detail: "g_s")
        p.end()
        XCTAssertEqual(written, "\r\u{1B}[Kdecoding" + "\r\u{1B}[Kdecoding  25%  ETA 0:03" + "\r\u{1B}[Kdecoding  50%  ETA 0:02  (g_s)" + "\n")
    }

    func testProgressElsewhereIsOneLinePerPhase() {
        var written = ""
        let p = Progress(enabled: true, terminal: false, write: { written += $0 }, clock: { 0 })
        p.begin("encoding")
        p.update(1, of: 2)
        p.begin("decoding")
        p.note("warning: x")
        p.end()
        XCTAssertEqual(written, "encoding\ndecoding\nwarning: x\n")
        var none = ""
        let quiet = Progress(enabled: false, terminal: true, write: { none += $0 }, clock: { 0 })
        quiet.begin("x"); quiet.update(1, of: 2); quiet.end()
        XCTAssertEqual(none, "")
        XCTAssertEqual(Progress.duration(3725), "1:02:05")
    }

    func testProbeProgressKeepsTheProbeLinesWhenNotATerminal() {
        var written = ""
        let p = ProbeProgress(enabled: true, progress: Progress(enabled: true, terminal: false, write: { written += $0 }, clock: { 0 }))
        p.handle("probing cpu:0 (Xeon)")
        p.handle("probing cpu:0 … stage arithmetic")
        p.finish()
        XCTAssertEqual(written, "probing cpu:0 (Xeon)\nprobing cpu:0 … stage arithmetic\n")
        var tty = ""
        var now = 0.0
        let t = ProbeProgress(enabled: true, progress: Progress(enabled: true, terminal: true, write: { tty += $0 }, clock: { now }))
        t.handle("probing cpu:0 … stage semantics")
        now = 500
        t.handle("probing cpu:0 … stage widths")
        XCTAssertTrue(tty.hasSuffix("probing cpu:0  25%  ETA 0:02  (stage widths)"), tty)
    }

    /// Every key of a probe report, nested ones included, is snake_case.
    func testKeysAreSnakeCase() throws {
        var row = UnitProbeRecord(backend: "x", path: "/p/x.so", backendVersion: "1", device: "d", unit: .gpu, index: 0,
                                  driver: "drv pci 10de:2335 (0000:3b:00.0)", state: .rejected, reason: "r", stage: .widths,
                                  mismatch: ProbeMismatch(stage: .widths, graph: "g", op: .op(.add), node: 1, tensor: "t", index: 2,
                                                          channel: 0, y: 0, x: 2, expected: 1, got: 2, runsPassed: 3),
                                  speed: ProbeSpeed(runsPerSecond: 1, medianMilliseconds: 1, runs: 1, graph: "c"))
        row.pluginSHA256 = "00"
        row.coverage = ProbeCoverage(exact: [.init(op: .add, widths: [16])], unsupported: [], maxElements: 5)
        let listing = UnitListing(entries: [.init(record: row, probed: true, cacheKey: "k")], cacheFile: "/c", warnings: [])
        for text in [try JSON.report(ProbeReport(ProbeResult(units: [row])), schema: .probe),
                     try JSON.report(ProbeListing(listing), schema: .probeList)] {
            func check(_ v: Any) {
                if let o = v as? [String: Any] {
                    for (k, x) in o {
                        XCTAssertTrue(k.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "key \(k)")
                        check(x)
                    }
                } else if let a = v as? [Any] {
                    a.forEach(check)
                }
            }
            check(try object(text))
        }
    }
}
