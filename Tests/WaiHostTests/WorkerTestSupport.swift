import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The isolation test backends of Tests/CPlugins/iso_*.c, compiled with `cc` against the
/// header alone. `trigger`: the file whose existence arms iso_crash, iso_hang and iso_slowprep.
enum IsoBackend: String, CaseIterable {
    case chatter, forge, crash, hang, detect
    /// Sleeps in its first graph_prepare when armed (ProbeTimeoutTests).
    case slowprep

    var name: String { "iso" + rawValue }
    var fileName: String { "libWai-\(name).so" }

    func build(into dir: String, trigger: String) throws -> String {
        let b = CPluginBuilder.shared
        let out = dir + "/" + fileName
        try b.compile(source: b.packageRoot + "/Tests/CPlugins/iso_\(rawValue).c", output: out,
                      flags: ["-I", b.includeDir, "-DISO_TRIGGER=\"\(trigger)\"", "-Wl,-z,defs"])
        return out
    }
}

/// One plugin folder with some iso backends (and the good plain-C one), a cache, a host.
struct IsoFixture {
    let plugins: String
    let cache: String
    let trigger: String

    init(_ backends: [IsoBackend], withGood: Bool = true) throws {
        plugins = try CPluginBuilder.shared.makeDirectory("iso-plugins")
        cache = try CPluginBuilder.shared.makeDirectory("iso-cache")
        trigger = try CPluginBuilder.shared.makeDirectory("iso-trigger") + "/armed"
        for b in backends { _ = try b.build(into: plugins, trigger: trigger) }
        if withGood { try CPluginBuilder.shared.install([.good], into: plugins) }
    }

    func configuration(runTimeout: Double = 300) throws -> HostConfiguration {
        let worker = try XCTUnwrap(HostConfiguration.fromEnvironment().unitWorkerExecutable,
                                   "no waihost-unit-worker beside the tests: build it first (swift build)")
        return HostConfiguration(pluginDirectories: [plugins], cacheDirectory: cache, unitWorker: worker,
                                 probeTimeout: 300, runTimeout: runTimeout)
    }

    func arm() throws { try "armed\n".write(toFile: trigger, atomically: true, encoding: .utf8) }
}
