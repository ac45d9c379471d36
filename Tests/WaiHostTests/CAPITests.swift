import Foundation
import XCTest
@testable import WaiHost

/// The C API as a C program uses it (docs/c-api.md): libwaihost and waihost.h installed
/// into a private prefix by scripts/install-capi.sh, Examples/CDecode compiled with
/// `pkg-config --cflags --libs waihost`, and run on the samples.
final class CAPITests: XCTestCase {
    override class func tearDown() { HostTestSupport.removeTemporaryDirectories() }

    /// The installed prefix and the compiled example, made once per test process, with one
    /// plugin folder and probe cache shared by the runs so that only the first one probes.
    struct Installed { var prefix: String; var cdecode: String; var plugins: String; var cache: String }
    private static let lock = NSLock()
    private static var installed: Result<Installed, Error>?

    static func install() throws -> Installed {
        lock.lock()
        defer { lock.unlock() }
        if let installed { return try installed.get() }
        let r = Result { try buildExample() }
        installed = r
        return try r.get()
    }

    private static func buildExample() throws -> Installed {
        let root = CPluginBuilder.shared.packageRoot
        let bin = HostTestSupport.buildDirectory
        guard FileManager.default.fileExists(atPath: bin + "/libWaiHostC.so") else {
            throw CPluginBuildError(description: "\(bin)/libWaiHostC.so is missing: build the package (swift build) before testing")
        }
        let prefix = try HostTestSupport.temporaryDirectory("capi-prefix")
        var env = ProcessInfo.processInfo.environment
        env["WAIHOST_BIN_DIR"] = bin
        let inst = try CPluginBuilder.run("/bin/bash", [root + "/scripts/install-capi.sh", prefix], environment: env)
        guard inst.status == 0 else { throw CPluginBuildError(description: "install-capi.sh failed: \(inst.stderr)") }

        let pkgConfig = try CPluginBuilder.tool("pkg-config", why: "the C API example is built through it (apt-get install pkg-config)")
        env["PKG_CONFIG_PATH"] = prefix + "/lib/pkgconfig"
        let flags = try CPluginBuilder.run(pkgConfig, ["--cflags", "--libs", "waihost"], environment: env)
        guard flags.status == 0 else { throw CPluginBuildError(description: "pkg-config waihost failed: \(flags.stderr)") }

        let cc = try CPluginBuilder.tool("cc", why: "the C API example is compiled with it (apt-get install build-essential)")
        let out = prefix + "/cdecode"
        let args = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, root + "/Examples/CDecode/cdecode.c"]
            + flags.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        let c = try CPluginBuilder.run(cc, args)
        guard c.status == 0 else {
            throw CPluginBuildError(description: "\(cc) \(args.joined(separator: " ")) failed:\n\(c.stderr)")
        }
        return Installed(prefix: prefix, cdecode: out, plugins: try HostTestSupport.folderWithCPUPlugin("capi-plugins"),
                         cache: try HostTestSupport.temporaryDirectory("capi-cache"))
    }

    /// Runs the example with a private plugin folder (the CPU backend) and probe cache.
    func cdecode(_ args: [String]) throws -> CPluginBuilder.RunResult {
        let inst = try Self.install()
        var env = ProcessInfo.processInfo.environment
        env["LD_LIBRARY_PATH"] = inst.prefix + "/lib"
        env["WAI_PLUGIN_PATH"] = inst.plugins
        env["WAIHOST_PROBER"] = HostTestSupport.waihost
        env["WAIHOST_CACHE_DIR"] = inst.cache
        return try CPluginBuilder.run(inst.cdecode, args, environment: env)
    }

    var samples: String { CPluginBuilder.shared.packageRoot + "/samples" }

    func goldenSHA256(_ payload: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: samples + "/golden.json"))
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let vectors = try XCTUnwrap(doc["vectors"] as? [[String: Any]])
        return try XCTUnwrap(vectors.first { $0["payload"] as? String == payload }?["sha256"] as? String)
    }

    func field(_ name: String, _ stdout: String) -> String? {
        stdout.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    func testInstalledExampleDecodesTheSampleToItsGoldenSHA256OnTheBestUnit() throws {
        let r = try cdecode(["-l", samples + "/int_hyper_model", samples + "/sample.wai"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(field("sha256", r.stdout), try goldenSHA256("sample.wai"), r.stdout)
        // The CPU backend's units rank by measured speed: the listing says which is first,
        // and the report must name that one, index included.
        let first = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("unit cpu:") && $0.contains(" accepted rank 1 ") },
                                  r.stdout)
        let selector = first.split(separator: " ")[1]
        XCTAssertEqual(field("unit", r.stdout), "cpu (\(selector))", r.stdout)
        XCTAssertTrue(field("picture", r.stdout)?.hasPrefix("128x96, stride 384, 36864 bytes (host buffer)") == true, r.stdout)
        XCTAssertEqual(field("dispatch", r.stdout), "ranked_first (rank 1)", r.stdout)
    }

    func testCallerOwnedBufferAndReferenceUnitGiveTheSamePictureAndJSONReport() throws {
        let golden = try goldenSHA256("odd-45x29.payload")
        let own = try cdecode(["-b", "-u", "reference", samples + "/int_hyper_model", samples + "/odd-45x29.payload"])
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(field("sha256", own.stdout), golden, own.stdout)
        XCTAssertEqual(field("unit", own.stdout), "cpu (reference:-1)", own.stdout)
        XCTAssertTrue(own.stdout.contains("(caller buffer)"), own.stdout)

        let json = try cdecode(["-j", "-u", "cpu:0", samples + "/int_hyper_model", samples + "/odd-45x29.payload"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(doc["sha256"] as? String, golden)
        XCTAssertEqual(doc["backend"] as? String, "cpu")
        XCTAssertEqual(doc["dispatch"] as? String, "forced")
    }

    func testFailuresComeBackAsStatusAndTheHostsMessage() throws {
        let model = samples + "/int_hyper_model"
        let missing = try cdecode([samples + "/no-such-model", samples + "/sample.wai"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("cdecode: decode: model_set: "), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("no-such-model"), missing.stderr)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: samples + "/odd-45x29.payload"))
        let truncated = try HostTestSupport.temporaryDirectory("capi-truncated") + "/half.payload"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let cut = try cdecode([model, truncated])
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderr.hasPrefix("cdecode: decode: payload: "), cut.stderr)

        let unknown = try cdecode(["-u", "nosuch:7", model, samples + "/sample.wai"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.hasPrefix("cdecode: decode: no_such_unit: "), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("cpu:0"), "the message names the units that exist: \(unknown.stderr)")

        let badSelection = try cdecode(["-u", "cpu:x", model, samples + "/sample.wai"])
        XCTAssertEqual(badSelection.status, 1)
        XCTAssertTrue(badSelection.stderr.hasPrefix("cdecode: decode: invalid_argument: "), badSelection.stderr)
    }
}
