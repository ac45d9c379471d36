import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// Shared by the IntHyper*Tests: the bundled samples, a small generated model set, and a
/// GraphRunner on the CPU backend plugin loaded directly from beside the test bundle.
enum IntHyperTestSupport {
    /// The repository's samples/ folder.
    static var samples: String { TestPaths.samples }

    static var sampleModel: String { samples + "/int_hyper_model" }

    /// Generated once per test process: N = 8, M = 12 keeps debug-build runs short.
    static let smallModel: Result<IntHyperModelSet, Error> = Result {
        try SampleModelGenerator.generate(seed: 7, n: 8, m: 12)
    }

    static func small() throws -> IntHyperModelSet { try smallModel.get() }

    static func read(_ path: String) throws -> [UInt8] { try LocalFile.read(path, limit: 1 << 30) }

    /// .build/<config>/libWaiCPUBackend.so beside the test bundle (the test command builds every product).
    static func cpuRunner() throws -> PluginGraphRunner {
        let path = TestPaths.product("libWaiCPUBackend.so")
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("libWaiCPUBackend.so is missing beside the tests (\(path)): build it first (swift build builds every product)")
            throw FileError(path: path, problem: "missing")
        }
        return PluginGraphRunner(plugin: try BackendPlugin.load(path: path), unit: 0)
    }

    /// A fresh folder under one per-process root; `removeTemporaryDirectories` deletes them all.
    static func temporaryDirectory(_ name: String) throws -> String { try temporaryRoot.directory(name) }

    private static let temporaryRoot = TemporaryRoot("waihost-inthyper-tests")

    static func removeTemporaryDirectories() { temporaryRoot.removeAll() }

    static func write(_ bytes: [UInt8], _ path: String) throws { try LocalFile.write(bytes, to: path) }

    struct Golden: Decodable {
        struct ModelSet: Decodable { var path: String; var name: String; var id: String }
        struct Vector: Decodable { var payload: String; var width: Int; var height: Int; var sha256: String }
        var capability: String
        var model_set: ModelSet
        var vectors: [Vector]
    }

    static func golden() throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(try read(samples + "/golden.json")))
    }
}

/// Runs graphs on one unit of a loaded plugin, without probing: the tests compare its
/// results with the reference themselves.
final class PluginGraphRunner: GraphRunner {
    let plugin: BackendPlugin
    let unit: Int
    private var prepared: [(IntegerGraph, PreparedGraph)] = []

    init(plugin: BackendPlugin, unit: Int) { self.plugin = plugin; self.unit = unit }

    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        let p: PreparedGraph
        if let hit = prepared.first(where: { $0.0 == graph }) {
            p = hit.1
        } else {
            p = try plugin.prepare(unit: unit, graph: graph)
            prepared.append((graph, p))
        }
        let info = try plugin.units()[unit]
        return (try p.run(inputs), RunReport(unit: info.kind, ref: .unit(backend: plugin.name, index: unit), device: info.device,
                                             driver: info.driver, dispatch: .forced, reason: "test", rank: nil))
    }
}
