// The configuration files, their precedence and the plugin search order
// (docs/configuration.md).
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

final class HostConfigurationTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = try makeTemporaryDirectory("waihost-config")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func testEveryKeyParsesWithCommentsQuotesAndBlankLines() throws {
        let layer = try ConfigFile.parse("""
            # the system's settings
            unit = gpu

            hide = vulkan:1, opencl   # a trailing comment
            visible = "cpu, vulkan"
            spot_check = sample:8
            plugin_path = /opt/a/plugins.d:/opt/b/plugins.d
            probe_timeout = 60\r
            run_timeout = "300"
            """, name: "t.conf")
        XCTAssertEqual(layer.unit, .kind(.gpu))
        XCTAssertEqual(layer.hide, [.backendUnit("vulkan", 1), .backend("opencl")])
        XCTAssertEqual(layer.visible, [.kind(.cpu), .backend("vulkan")])
        XCTAssertEqual(layer.spotCheck, .sampled(every: 8))
        XCTAssertEqual(layer.pluginPath, ["/opt/a/plugins.d", "/opt/b/plugins.d"])
        XCTAssertEqual(layer.probeTimeout, 60)
        XCTAssertEqual(layer.runTimeout, 300)
        // A # inside a quoted value is not a comment.
        XCTAssertEqual(try ConfigFile.parse("plugin_path = \"/opt/x#1\"", name: "q").pluginPath, ["/opt/x#1"])
        XCTAssertEqual(try ConfigFile.parse("hide =", name: "e").hide, [])
    }

    func testBadLinesAreNamedWithFileAndLine() {
        let cases: [(String, String, String)] = [
            ("unit = best\nhid = vulkan:1\n", "f.conf:2", "unknown key \"hid\""),
            ("\n\nspot_check = sometimes\n", "f.conf:3", "invalid spot-check policy \"sometimes\""),
            ("unit = cpu:x\n", "f.conf:1", "unit index 'x'"),
            ("hide = vulkan:1,,cpu\n", "f.conf:1", "empty entry"),
            ("hide = best\n", "f.conf:1", "names no unit"),
            ("unit = gpu\nunit = cpu\n", "f.conf:2", "unit is set twice (first at line 1)"),
            ("[waihost]\n", "f.conf:1", "tables ([section]) are not supported"),
            ("just words\n", "f.conf:1", "expected key = value"),
            ("= 3\n", "f.conf:1", "no key before '='"),
            ("plugin_path = relative/dir\n", "f.conf:1", "is not absolute"),
            ("probe_timeout = -1\n", "f.conf:1", "not a positive number of seconds"),
            ("run_timeout = \"12\n", "f.conf:1", "unterminated quoted value"),
            ("unit = \"gpu\" cpu\n", "f.conf:1", "text after the closing quote"),
            ("unit = \"g\\npu\"\n", "f.conf:1", "unknown escape"),
        ]
        for (text, location, reason) in cases {
            do {
                _ = try ConfigFile.parse(text, name: "f.conf")
                XCTFail("accepted \(text.debugDescription)")
            } catch {
                XCTAssertEqual(error.location, location, text.debugDescription)
                XCTAssertTrue(error.reason.contains(reason), "\(error)")
                XCTAssertTrue(error.description.hasPrefix(location + ": "), error.description)
            }
        }
    }

    func testFilesThatCannotBeReadAreErrorsAndMissingOnesAreNot() throws {
        XCTAssertEqual(try ConfigFile.load(path: dir + "/absent/waihost.conf"), ConfigLayer())
        XCTAssertThrowsError(try ConfigFile.load(path: dir)) { error in
            XCTAssertTrue("\(error)".hasPrefix(dir + ": not a regular file"), "\(error)")
        }
        try write(dir + "/big.conf", String(repeating: "# padding\n", count: 7000))
        XCTAssertThrowsError(try ConfigFile.load(path: dir + "/big.conf")) { error in
            XCTAssertTrue("\(error)".contains("larger than the limit"), "\(error)")
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/latin1.conf", contents: Data([0x75, 0x6e, 0x69, 0x74, 0x3d, 0xe9, 0x0a])))
        XCTAssertThrowsError(try ConfigFile.load(path: dir + "/latin1.conf")) { error in
            XCTAssertEqual("\(error)", dir + "/latin1.conf: not UTF-8 text")
        }
    }

    /// CLI > environment > user file > system file > defaults, key by key.
    func testPrecedenceIsEnvironmentThenUserThenSystemThenDefaults() throws {
        let system = dir + "/etc/waihost.conf"
        try write(system, "unit = gpu\nspot_check = off\nhide = vulkan:1\nprobe_timeout = 7\n")
        try write(dir + "/config/waihost/waihost.conf", "spot_check = sample:4\nunit = vulkan:0\n")
        let env = ["XDG_CONFIG_HOME": dir + "/config", "HOME": dir + "/home"]

        let files = HostConfiguration.resolve(environment: env, systemConfig: system, executable: nil, library: nil)
        XCTAssertNil(files.configurationError)
        XCTAssertEqual(files.defaultUnit, .backendUnit("vulkan", 0))      // user over system
        XCTAssertEqual(files.spotCheck, .sampled(every: 4))                // user over system
        XCTAssertEqual(files.unitFilter, UnitFilter(hide: [.backendUnit("vulkan", 1)]))   // system only
        XCTAssertEqual(files.probeTimeout, 7)
        XCTAssertEqual(files.runTimeout, 120)                              // default

        var withEnv = env
        withEnv["WAIHOST_UNIT"] = "reference"
        withEnv["WAIHOST_HIDE"] = ""                                       // empty: not set
        withEnv["WAIHOST_VISIBLE"] = "cpu:0"
        withEnv["WAIHOST_SPOT_CHECK"] = "every"
        let over = HostConfiguration.resolve(environment: withEnv, systemConfig: system, executable: nil, library: nil)
        XCTAssertEqual(over.defaultUnit, .reference)
        XCTAssertEqual(over.spotCheck, .everyRun)
        XCTAssertEqual(over.unitFilter, UnitFilter(hide: [.backendUnit("vulkan", 1)], visible: [.backendUnit("cpu", 0)]))

        // Without files or variables: the defaults.
        let bare = HostConfiguration.resolve(environment: [:], systemConfig: dir + "/none.conf", executable: nil, library: nil)
        XCTAssertEqual(bare.defaultUnit, .best)
        XCTAssertEqual(bare.spotCheck, .everyRun)
        XCTAssertEqual(bare.unitFilter, .all)
        XCTAssertNil(bare.configurationError)
    }

    /// A typo is never ignored: the host refuses to probe or run, naming the file and line
    /// (or the variable).
    func testABadLineStopsTheHostNamingIt() throws {
        let system = dir + "/waihost.conf"
        try write(system, "# ok\nspot_check = evry\n")
        let c = HostConfiguration.resolve(environment: [:], systemConfig: system, executable: nil, library: nil)
        XCTAssertEqual(c.configurationError?.location, system + ":2")
        XCTAssertThrowsError(try BackendHost(configuration: c).probe()) { error in
            XCTAssertTrue("\(error)".hasPrefix(system + ":2: spot_check: invalid spot-check policy \"evry\""), "\(error)")
        }
        let env = HostConfiguration.resolve(environment: ["WAIHOST_UNIT": "gpu:"], systemConfig: nil,
                                            executable: nil, library: nil)
        XCTAssertEqual(env.configurationError?.location, "WAIHOST_UNIT")
        XCTAssertThrowsError(try BackendHost(configuration: env).probe()) { error in
            XCTAssertTrue("\(error)".hasPrefix("WAIHOST_UNIT: unit: "), "\(error)")
        }
    }

    func testHiddenAndVisibleUnits() {
        let f = UnitFilter(hide: [.backendUnit("vulkan", 1), .kind(.other)], visible: [.backend("vulkan"), .backendUnit("cpu", 0)])
        XCTAssertTrue(f.admits(backend: "vulkan", index: 0, kind: .gpu))
        XCTAssertFalse(f.admits(backend: "vulkan", index: 1, kind: .gpu))     // hidden
        XCTAssertTrue(f.admits(backend: "cpu", index: 0, kind: .cpu))
        XCTAssertFalse(f.admits(backend: "cpu", index: 1, kind: .cpu))        // not visible
        XCTAssertFalse(f.admits(backend: "vulkan", index: 2, kind: .other))   // visible backend, hidden kind
        XCTAssertTrue(UnitFilter.all.admits(backend: "anything", index: 9, kind: .other))
    }

    /// WAI_PLUGIN_PATH, plugin_path, XDG data, beside the program, beside the library,
    /// /usr/local/lib, /usr/lib: named folders always, the rest when they exist.
    func testPluginSearchOrder() throws {
        let prefix = dir + "/prefix"
        for d in [dir + "/data/waihost/plugins.d", prefix + "/lib/waihost/plugins.d", dir + "/app/lib/waihost/plugins.d"] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        }
        let env = ["WAI_PLUGIN_PATH": "/env/a::/env/b", "XDG_DATA_HOME": dir + "/data", "HOME": dir + "/home"]
        let dirs = HostConfiguration.pluginSearchPath(environment: env, configured: ["/conf/c", "/env/a"],
                                                      executable: prefix + "/bin/waihost",
                                                      library: dir + "/app/lib/libwaihost.so.1")
        let system = ["/usr/local/lib/waihost/plugins.d", "/usr/lib/waihost/plugins.d"].filter(HostConfiguration.isDirectory)
        XCTAssertEqual(dirs, ["/env/a", "/env/b", "/conf/c", dir + "/data/waihost/plugins.d",
                              prefix + "/lib/waihost/plugins.d", dir + "/app/lib/waihost/plugins.d"] + system)
        // XDG_DATA_HOME unset (or relative): ~/.local/share.
        try FileManager.default.createDirectory(atPath: dir + "/home/.local/share/waihost/plugins.d", withIntermediateDirectories: true)
        let home = HostConfiguration.pluginSearchPath(environment: ["HOME": dir + "/home", "XDG_DATA_HOME": "rel"],
                                                      configured: nil, executable: nil, library: nil)
        XCTAssertEqual(home, [dir + "/home/.local/share/waihost/plugins.d"] + system)
    }

    func testTheInstalledUnitWorkerIsFoundUnderLibWaihost() throws {
        let prefix = dir + "/usr"
        let worker = prefix + "/lib/waihost/" + HostConfiguration.unitWorkerName
        try FileManager.default.createDirectory(atPath: prefix + "/lib/waihost", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: worker, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        // From the library (an embedding program elsewhere) and from the installed CLI.
        XCTAssertEqual(HostConfiguration.defaultUnitWorker([:], executable: dir + "/elsewhere/app",
                                                           library: prefix + "/lib/libwaihost.so.1"), worker)
        XCTAssertEqual(HostConfiguration.defaultUnitWorker([:], executable: prefix + "/bin/waihost",
                                                           library: prefix + "/bin/waihost"), worker)
    }
}
