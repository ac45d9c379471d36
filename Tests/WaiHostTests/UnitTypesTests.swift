import XCTest
import Foundation
@testable import WaiRuntime

/// The unit words of reports and selections are typed values (`UnitRef`, `UnitSelection`,
/// `UnitKind`, `ProbeRowKind`, `MismatchSite`) whose JSON is the string it always was, so
/// probe-cache files, the CLI's, the C API's and Python's JSON are unchanged
/// (docs/architecture.md, "Reports"; docs/cli.md, "Unit identity").
final class UnitTypesTests: XCTestCase {
    private func json<T: Encodable>(_ value: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try e.encode(value), as: UTF8.self)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    func testUnitRefIsSpelledAsTheSelectorOfThatUnit() throws {
        let cases: [(String, UnitRef)] = [("cpu:0", .unit(backend: "cpu", index: 0)), ("vulkan:12", .unit(backend: "vulkan", index: 12)),
                                          ("gpu:1", .unit(backend: "gpu", index: 1)), ("reference", .reference)]
        for (text, ref) in cases {
            XCTAssertEqual(try UnitRef(parsing: text), ref)
            XCTAssertEqual(ref.description, text)
            XCTAssertEqual(try json([ref]), "[\"\(text)\"]")
            XCTAssertEqual(try decode([UnitRef].self, "[\"\(text)\"]"), [ref])
            XCTAssertEqual(ref.selection, try UnitSelection(parsing: text), "the ref selects exactly that unit")
        }
        XCTAssertEqual(UnitRef.reference.backend, "reference")
        XCTAssertNil(UnitRef.reference.index)
        XCTAssertEqual(UnitRef.unit(backend: "opencl", index: 3).index, 3)
    }

    func testAWordThatNamesNoOneUnitIsRefusedByName() {
        for forged in ["best", "cpu", "vulkan", "cpu:x", "cpu:-1", ":0", "a:b:c", ""] {
            XCTAssertThrowsError(try UnitRef(parsing: forged)) { error in
                guard case .invalidSelection(let text, _)? = error as? HostError else { return XCTFail("\(error)") }
                XCTAssertEqual(text, forged)
            }
            XCTAssertThrowsError(try decode([UnitRef].self, "[\"\(forged)\"]")) { error in
                XCTAssertTrue("\(error)".contains("\"\(forged)\""), "\(error)")
            }
        }
    }

    func testEverySelectionSpellingParsesAndPrintsBack() throws {
        let cases: [(String, UnitSelection)] = [("best", .best), ("reference", .reference), ("cpu", .kind(.cpu)),
                                                ("gpu", .kind(.gpu)), ("other", .kind(.other)), ("vulkan", .backend("vulkan")),
                                                ("cpu:0", .backendUnit("cpu", 0)), ("opencl:2", .backendUnit("opencl", 2))]
        for (text, selection) in cases {
            XCTAssertEqual(try UnitSelection(parsing: text), selection)
            XCTAssertEqual(selection.description, text)
        }
        // --backend: always a backend, even one spelled like a kind or "best".
        XCTAssertEqual(try UnitSelection(backendNaming: "cpu"), .backend("cpu"))
        XCTAssertEqual(try UnitSelection(backendNaming: "best"), .backend("best"))
        XCTAssertEqual(try UnitSelection(backendNaming: "gpu:1"), .backendUnit("gpu", 1))
    }

    func testABadSelectionIsRefusedNamingTheTextAndWhatIsWrong() {
        let bad: [(String, String)] = [("", "empty"), (":1", "no backend name before ':'"), ("a:b:c", "more than one ':'"),
                                       ("cpu:x", "unit index 'x' is not a non-negative integer"),
                                       ("cpu:-1", "unit index '-1' is not a non-negative integer")]
        for (text, reason) in bad {
            for parse in [UnitSelection.init(parsing:), UnitSelection.init(backendNaming:)] as [(String) throws -> UnitSelection] {
                XCTAssertThrowsError(try parse(text)) { error in
                    XCTAssertEqual(error as? HostError, .invalidSelection(text: text, reason: reason))
                    XCTAssertEqual((error as? HostError)?.selectionReason, reason)
                    XCTAssertTrue("\(error)".contains("\"\(text)\""), "\(error)")
                }
            }
        }
    }

    func testProbeRowKindsAreSpelledAsUnitKindsPlusUnknown() throws {
        for kind in UnitKind.allCases {
            XCTAssertEqual(ProbeRowKind(kind).rawValue, kind.rawValue)
            XCTAssertEqual(ProbeRowKind(kind).kind, kind)
        }
        XCTAssertNil(ProbeRowKind.unknown.kind)
        XCTAssertEqual(try json(ProbeRowKind.allCases), #"["cpu","gpu","other","unknown"]"#)
        XCTAssertEqual(try decode([ProbeRowKind].self, #"["cpu","gpu","other","unknown"]"#), ProbeRowKind.allCases)
        XCTAssertThrowsError(try decode([ProbeRowKind].self, #"["tpu"]"#)) { error in
            XCTAssertTrue("\(error)".contains("tpu"), "\(error)")
        }
    }

    func testAProbeRowReadsAndWritesItsKindAndNamesItsUnit() throws {
        let stored = #"{"backend":"libNotElf.so","cached":false,"device":"","driver":"","path":"/p/libNotElf.so","reason":"not an ELF","state":"failed","unit":"unknown"}"#
        let row = try decode(UnitProbeRecord.self, stored)
        XCTAssertEqual(row.unit, .unknown)
        XCTAssertNil(row.ref)
        XCTAssertEqual(row.selector, "libNotElf.so", "a row without a unit is named by its file")
        XCTAssertEqual(try json(row), stored)
        let unit = UnitProbeRecord(backend: "vulkan", path: "/p", device: "d", unit: .gpu, index: 1, driver: "x", state: .accepted,
                                   reason: "exact")
        XCTAssertEqual(unit.ref, .unit(backend: "vulkan", index: 1))
        XCTAssertEqual(unit.selector, "vulkan:1")
        XCTAssertTrue(try json(unit).contains(#""unit":"gpu""#))
    }

    func testARunReportSpellsItsKindAndBackendAndKeepsItsUnitOutOfTheJSON() throws {
        var report = RunReport(unit: .gpu, ref: .unit(backend: "vulkan", index: 1), device: "d", driver: "drv",
                               dispatch: .rankedFirst, reason: "r", rank: 1)
        report.qualification = [QualificationNote(unit: .unit(backend: "vulkan", index: 1),
                                                  verdict: QualificationVerdict(state: .qualified, model: ModelGraphID(modelSet: "m", modelSetLabel: "q", graph: "g_s"),
                                                                                size: "8×8", reason: "same"),
                                                  cached: true)]
        let text = try json(report)
        XCTAssertTrue(text.hasPrefix(#"{"backend":"vulkan","device":"d","dispatch":"ranked_first","driver":"drv","qualification":[{"cached":true,"unit":"vulkan:1""#), text)
        XCTAssertTrue(text.hasSuffix(#""rank":1,"reason":"r","unit":"gpu"}"#), text)
        XCTAssertEqual(report.backend, "vulkan")
        let reference = RunReport(unit: .cpu, ref: .reference, device: "host", driver: "", dispatch: .forced, reason: "r", rank: nil)
        XCTAssertEqual(try json(reference), #"{"backend":"reference","device":"host","dispatch":"forced","driver":"","reason":"r","unit":"cpu"}"#)
    }

    /// A verdict's coverage names ops as docs/integer-ops.md does (docs/cli.md `probe --json`):
    /// a probe-cache file written before the ops were typed reads back to the same bytes.
    func testCoverageSpellsItsOpsByNameAndRefusesAnOpNoHostHas() throws {
        let stored = #"{"exact":[{"op":"conv2d","widths":[16,32]},{"op":"inverse_gdn","widths":[16]}],"max_elements":99,"unsupported":["warp"]}"#
        let c = try decode(ProbeCoverage.self, stored)
        XCTAssertEqual(c.exact.map(\.op), [.conv2d, .inverseGDN])
        XCTAssertEqual(c.unsupported, [.warp])
        XCTAssertEqual(try json(c), stored)
        for kind in OpKind.allCases { XCTAssertEqual(try json([kind]), "[\"\(kind.name)\"]") }
        XCTAssertThrowsError(try decode(ProbeCoverage.self, #"{"exact":[{"op":"conv3d","widths":[16]}],"unsupported":[]}"#)) { error in
            XCTAssertTrue("\(error)".contains("'conv3d' is no op"), "\(error)")
        }
    }

    func testEveryMismatchSiteReadsAndWritesItsWord() throws {
        for kind in OpKind.allCases {
            XCTAssertEqual(MismatchSite(name: kind.name), .op(kind))
            XCTAssertEqual(try json([MismatchSite.op(kind)]), "[\"\(kind.name)\"]")
        }
        for (word, site) in [("input", MismatchSite.input), ("output", .output)] {
            XCTAssertEqual(try decode([MismatchSite].self, "[\"\(word)\"]"), [site])
            XCTAssertEqual(try json([site]), "[\"\(word)\"]")
        }
        let stored = #"{"channel":0,"expected":1,"got":2,"graph":"g","index":0,"node":-1,"op":"output","parameters":"no output returned","stage":"runtime","tensor":"y","x":0,"y":0}"#
        let m = try decode(ProbeMismatch.self, stored)
        XCTAssertEqual(m.op, .output)
        XCTAssertEqual(try json(m), stored)
        XCTAssertTrue(m.description.contains("g: output (node -1)"), m.description)
    }

    func testAMismatchSiteNoHostWritesIsRefusedByName() {
        let forged = #"{"channel":0,"expected":1,"got":2,"graph":"g","index":0,"node":0,"op":"hacked","stage":"runtime","tensor":"y","x":0,"y":0}"#
        XCTAssertThrowsError(try decode(ProbeMismatch.self, forged)) { error in
            XCTAssertTrue("\(error)".contains("'hacked' is no op"), "\(error)")
        }
    }

    func testTheSiteOfATensorIsTheOpThatWritesItElseInput() throws {
        var b = GraphBuilder()
        let x = b.input("x", Shape(1, 1, 2), storage: .wide, interval: Interval(lo: -10, hi: 10))
        let y = try b.clamp(x, lo: -5, hi: 5)
        let graph = try b.build(outputs: [y])
        XCTAssertEqual(MismatchSite(tensor: graph.outputs[0], in: graph), .op(.clamp))
        XCTAssertEqual(MismatchSite(tensor: graph.inputs[0], in: graph), .input)
    }
}
