import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Model qualification (docs/probe.md §9) on a real decode of the bundled sample model set
/// (N = 32, M = 48): a backend exact on every probe graph but wrong only at the model's own
/// channel count (Tests/CPlugins/model_channels.c: a blocked conv2d path for exactly 48
/// output channels, wrong on a row's partial last step) is refused before it runs the
/// graph, and its bytes are never returned; the exact plain-C backend qualifies once, and
/// later decodes (this host, and a new one reading the cache file) reuse the verdict.
final class QualificationTests: XCTestCase {
    override class func tearDown() {
        HostTestSupport.removeTemporaryDirectories()
        super.tearDown()
    }

    /// Both backends in one folder, probed once (it is the slow part in a debug build).
    private struct Fixture {
        let plugins: String
        let probeCache: String
    }

    private static let fixture: Result<Fixture, Error> = Result {
        let plugins = try HostTestSupport.temporaryDirectory("qualify-plugins")
        try CPluginBuilder.shared.install([.good], into: plugins)
        try buildModelChannels(into: plugins)
        let cache = try HostTestSupport.temporaryDirectory("qualify-probe")
        let probe = try BackendHost(configuration: HostTestSupport.configuration(plugins: [plugins], cache: cache,
                                                                                 timeout: 600)).probe(fresh: true)
        for name in ["plainc", "model-channels"] {
            let row = try XCTUnwrap(probe.units.first { $0.backend == name })
            guard row.state == .accepted else { throw CPluginBuildError(description: "\(name) not accepted: \(row.reason)") }
        }
        return Fixture(plugins: plugins, probeCache: cache)
    }

    private static func buildModelChannels(into dir: String, channels: Int? = nil) throws {
        let b = CPluginBuilder.shared
        try b.compile(source: b.packageRoot + "/Tests/CPlugins/model_channels.c", output: dir + "/libWai-model-channels.so",
                      flags: ["-I", b.includeDir, "-Wl,-z,defs"] + (channels.map { ["-DMODEL_CHANNELS=\($0)"] } ?? []))
    }

    /// A host over the fixture's plugins with a cache folder of its own, holding the probe's verdicts.
    private func host(cache: String) throws -> BackendHost {
        let f = try Self.fixture.get()
        if !FileManager.default.fileExists(atPath: cache + "/probe-cache.json") {
            try FileManager.default.copyItem(atPath: f.probeCache + "/probe-cache.json", toPath: cache + "/probe-cache.json")
        }
        return BackendHost(configuration: HostTestSupport.configuration(plugins: [f.plugins], cache: cache, timeout: 600))
    }

    private func decodeOdd(_ host: BackendHost, on selection: UnitSelection) throws -> IntHyperDecoder.Result {
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.sampleModel)
        let bytes = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/odd-45x29.payload")
        let decoded = try IntHyperCodec.decode(bytes, modelSet: set, runner: HostGraphRunner(host: host, selection: selection))
        let golden = try XCTUnwrap(try IntHyperTestSupport.golden().vectors.first { $0.payload == "odd-45x29.payload" })
        XCTAssertEqual(decoded.image.sha256, golden.sha256, "the decoded picture is the reference's, whatever ran")
        return decoded.result
    }

    private func entries(_ cache: String) throws -> [String: QualificationCache.Entry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: cache + "/" + QualificationCache.fileName))
        return try JSONDecoder().decode(QualificationCache.File.self, from: data).entries
    }

    func testAnExactBackendQualifiesOnceAndLaterDecodesReuseTheVerdict() throws {
        let cache = try HostTestSupport.temporaryDirectory("qualify-exact")
        let first = try decodeOdd(try host(cache: cache), on: .backend("plainc"))
        for report in [first.hyperSynthesisReport, first.synthesisReport] {
            XCTAssertEqual(report.backend, "plainc", report.reason)
            XCTAssertEqual(report.dispatch, .forced)
            let note = try XCTUnwrap(report.qualification?.first)
            XCTAssertEqual(report.qualification?.count, 1)
            XCTAssertEqual(note.unit, .unit(backend: "plainc", index: 0))
            XCTAssertEqual(note.verdict.state, .qualified)
            XCTAssertFalse(note.cached, "qualified for this decode")
            XCTAssertNil(note.warning, "the cache file was written")
            XCTAssertEqual(note.verdict.size, "3×5")
        }
        let stored = try entries(cache)
        XCTAssertEqual(Set(stored.values.map(\.verdict.graph)), ["h_s", "g_s"])
        XCTAssertTrue(stored.values.allSatisfy { $0.verdict.state == .qualified && $0.unit == .unit(backend: "plainc", index: 0) })
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: cache + "/" + QualificationCache.fileName)), as: UTF8.self)
        XCTAssertTrue(text.contains(#""unit" : "plainc:0""#) || text.contains(#""unit":"plainc:0""#), "the file spells the unit as before: \(text)")

        // The same host, and a new one that reads the file: the verdicts are reused.
        let newHost = try host(cache: cache)
        for result in [try decodeOdd(newHost, on: .backend("plainc")), try decodeOdd(newHost, on: .backend("plainc"))] {
            for report in [result.hyperSynthesisReport, result.synthesisReport] {
                XCTAssertEqual(report.backend, "plainc")
                XCTAssertEqual(report.qualification?.map(\.cached), [true], "\(report.qualification ?? [])")
            }
        }
        XCTAssertEqual(try entries(cache), stored, "nothing qualified again")
    }

    /// A qualification cache that cannot be written is a warning in the report, not a
    /// failure: the decode runs on the qualified unit, and the next host qualifies again.
    func testAnUnwritableQualificationCacheIsAWarningInTheReport() throws {
        let cache = try HostTestSupport.temporaryDirectory("qualify-unwritable")
        // A folder where the file should be: it can be neither read nor renamed over (even by root).
        try FileManager.default.createDirectory(atPath: cache + "/" + QualificationCache.fileName,
                                                withIntermediateDirectories: true)
        let result = try decodeOdd(try host(cache: cache), on: .backend("plainc"))
        for report in [result.hyperSynthesisReport, result.synthesisReport] {
            XCTAssertEqual(report.backend, "plainc", report.reason)
            let note = try XCTUnwrap(report.qualification?.first)
            XCTAssertEqual(note.verdict.state, .qualified)
            let warning = try XCTUnwrap(note.warning, "the failed write is reported")
            XCTAssertTrue(warning.contains("cannot be written") && warning.contains(QualificationCache.fileName), warning)
        }
        let json = String(decoding: try JSONEncoder().encode(result.synthesisReport), as: UTF8.self)
        XCTAssertTrue(json.contains("\"warning\""), json)
    }

    func testAUnitWrongOnlyAtTheModelsChannelCountIsRefusedAndItsBytesNeverReturned() throws {
        let cache = try HostTestSupport.temporaryDirectory("qualify-defect")
        let result = try decodeOdd(try host(cache: cache), on: .backend("model-channels"))

        // h_s ends in a conv2d to M = 48 channels: refused, run on the exact unit instead.
        let hs = result.hyperSynthesisReport
        XCTAssertEqual(hs.dispatch, .unitUnqualified)
        XCTAssertEqual(hs.backend, "plainc")
        for words in ["model-channels:0 is not qualified for h_s of model set sample-n32-m48 1", "stage qualification",
                      "conv2d", "expected", "got"] {
            XCTAssertTrue(hs.reason.contains(words), "\"\(words)\" not in: \(hs.reason)")
        }
        let refused = try XCTUnwrap(hs.qualification?.first)
        XCTAssertEqual(refused.unit, .unit(backend: "model-channels", index: 0))
        XCTAssertEqual(refused.verdict.state, .unqualified)
        let m = try XCTUnwrap(refused.verdict.mismatch)
        XCTAssertEqual(m.op, .op(.conv2d))
        XCTAssertEqual(m.graph, "h_s at 3×5")
        XCTAssertNotEqual(m.expected, m.got)
        XCTAssertNotEqual(m.x % 8, m.x, "not in the first step of 8 columns: in the row's partial last one (20 columns)")
        XCTAssertEqual(hs.qualification?.last?.unit, .unit(backend: "plainc", index: 0))

        // g_s has no conv2d to 48 channels: the unit qualifies and runs it.
        XCTAssertEqual(result.synthesisReport.backend, "model-channels", result.synthesisReport.reason)
        XCTAssertEqual(result.synthesisReport.qualification?.first?.verdict.state, .qualified)

        // The refusal is cached: a new host does not let the unit run h_s either.
        let again = try decodeOdd(try host(cache: cache), on: .backend("model-channels")).hyperSynthesisReport
        XCTAssertEqual(again.dispatch, .unitUnqualified)
        XCTAssertEqual(again.backend, "plainc")
        XCTAssertEqual(again.qualification?.first?.cached, true)
        XCTAssertEqual(again.qualification?.first?.verdict, refused.verdict)
        XCTAssertTrue(again.reason.contains("(cached verdict)"), again.reason)
        XCTAssertEqual(try entries(cache).values.filter { $0.verdict.state == .unqualified }.map(\.verdict.graph), ["h_s"])
    }

    /// A new plugin build or driver is another unit as far as qualification goes.
    func testTheKeyCoversThePluginTheDriverAndTheModelGraph() throws {
        let row = UnitProbeRecord(backend: "b", path: "/p/libWai-b.so", device: "d", unit: .cpu, index: 0,
                                  driver: "drv 1", state: .accepted, rank: 1, reason: "")
        var newDriver = row
        newDriver.driver = "drv 2"
        let model = ModelGraphID(modelSet: "00ff", modelSetLabel: "s 1", graph: "h_s")
        var otherGraph = model
        otherGraph.graph = "g_s"
        let key = QualificationCache.key(row, pluginSHA256: "aa", model: model)
        XCTAssertEqual(key, QualificationCache.key(row, pluginSHA256: "aa", model: model))
        let others = [QualificationCache.key(row, pluginSHA256: "ab", model: model),
                      QualificationCache.key(newDriver, pluginSHA256: "aa", model: model),
                      QualificationCache.key(row, pluginSHA256: "aa", model: otherGraph)]
        XCTAssertEqual(Set(others + [key]).count, 4)
    }
}
