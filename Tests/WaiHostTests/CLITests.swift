import BackendABI
import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The `waihost` binary beside the test bundle, run as a user runs it.
final class CLITests: XCTestCase {
    override class func tearDown() { HostTestSupport.removeTemporaryDirectories() }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func waihost(_ args: [String], env: [String: String] = [:]) throws -> Run {
        // Tests never touch the user's cache or plugin folders unless they say so (the probe
        // deadline a debug build meets is CLIRun's).
        var environment: [String: String?] = ["WAIHOST_CACHE_DIR": try HostTestSupport.temporaryDirectory("cli-cache"),
                                              "WAI_PLUGIN_PATH": nil]
        for (k, v) in env { environment[k] = v }
        let r = try CLIRun.run(HostTestSupport.waihost, args, environment: environment)
        return Run(status: r.status, stdout: r.text, stderr: r.stderr)
    }

    /// libcurl, libpq, libmicrohttpd and libsqlite3 (and the forty libraries they bring) are
    /// loaded only by the commands that use them (docs/architecture.md, "Libraries loaded on
    /// first use"): `version` and `probe` start without them. glibc's loader names every file
    /// it maps under LD_DEBUG=files; libcrypto, which the binary links, shows that it does.
    func testVersionAndProbeLoadNoNetworkOrDatabaseLibrary() throws {
        let empty = try HostTestSupport.temporaryDirectory("no-plugins")
        for args in [["version"], ["probe", "--plugin-dir", empty]] {
            let r = try waihost(args, env: ["LD_DEBUG": "files", "WAI_PLUGIN_PATH": empty])
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr.suffix(500))")
            XCTAssertTrue(r.stderr.contains("file=libcrypto.so.3"), "\(args): LD_DEBUG named no file")
            for soname in ["libcurl.so.4", "libpq.so.5", "libmicrohttpd.so.12", "libsqlite3.so.0", "libgnutls.so.30"] {
                XCTAssertFalse(r.stderr.contains("file=\(soname)"), "\(args) loaded \(soname)")
            }
        }
    }

    func testHelpVersionAndUsageErrors() throws {
        let help = try waihost(["--help"])
        XCTAssertEqual(help.status, 0)
        for word in ["probe", "run-graph", "version"] { XCTAssertTrue(help.stdout.contains(word), word) }

        let probeHelp = try waihost(["probe", "--help"])
        XCTAssertEqual(probeHelp.status, 0)
        for flag in ["--json", "--fresh", "--plugin-dir"] { XCTAssertTrue(probeHelp.stdout.contains(flag), flag) }

        let version = try waihost(["version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.contains("waihost \(WaiHostVersion.string)"))
        XCTAssertTrue(version.stdout.contains("backend ABI \(WAI_ABI_MAJOR).\(WAI_ABI_MINOR)"))
        XCTAssertTrue(version.stdout.contains("probe suite \(ProbeSuite.version)"))

        XCTAssertEqual(try waihost(["-V"]).stdout, version.stdout)

        XCTAssertEqual(try waihost([]).status, 2)
        XCTAssertEqual(try waihost(["frobnicate"]).status, 2)
        // One line naming the problem and one pointing at --help, not the whole help.
        let bad = try waihost(["probe", "--frobnicate"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "waihost probe: unknown option --frobnicate\ntry 'waihost probe --help'\n")
        XCTAssertEqual(bad.stdout, "")
        // The same under --json: the error as one JSON object on standard output, same status.
        let badJSON = try waihost(["probe", "--json", "--frobnicate"])
        XCTAssertEqual(badJSON.status, 2)
        let error = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(badJSON.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(error["schema"] as? String, "waihost.error/1")
        XCTAssertEqual((error["error"] as? [String: Any])?["code"] as? String, "usage")
        XCTAssertEqual((error["error"] as? [String: Any])?["message"] as? String, "unknown option --frobnicate")
    }

    func testProbeJSONShapeColdAndWarm() throws {
        let dir = try HostTestSupport.folderWithCPUPlugin("cli-probe")
        let cache = try HostTestSupport.temporaryDirectory("cli-probe-cache")
        let cold = try waihost(["probe", "--json", "--plugin-dir", dir], env: ["WAIHOST_CACHE_DIR": cache])
        XCTAssertEqual(cold.status, 0, cold.stderr)
        XCTAssertTrue(cold.stderr.contains("probing cpu:0"), cold.stderr)
        XCTAssertTrue(cold.stderr.contains("stage arithmetic"), cold.stderr)

        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(cold.stdout.utf8)) as? [String: Any])
        let units = try XCTUnwrap(object["units"] as? [[String: Any]])
        // One unit per CPU instruction-set path (Plugins/CPUBackend/README.md, "Units").
        XCTAssertGreaterThanOrEqual(units.count, 1)
        XCTAssertEqual(units.compactMap { $0["rank"] as? Int }.sorted(), Array(1...max(1, units.count)))
        let u = try XCTUnwrap(units.first { $0["rank"] as? Int == 1 })
        XCTAssertEqual(u["backend"] as? String, "cpu")
        XCTAssertEqual(u["unit"] as? String, "cpu")
        XCTAssertEqual(u["state"] as? String, "accepted")
        XCTAssertEqual(u["cached"] as? Bool, false)
        XCTAssertEqual(u["path"] as? String, dir + "/libWaiCPUBackend.so")
        for key in ["device", "driver", "reason"] { XCTAssertNotNil(u[key] as? String, key) }
        let speed = try XCTUnwrap(u["speed"] as? [String: Any])
        XCTAssertNotNil(speed["runs_per_second"] as? Double)
        XCTAssertNotNil(speed["median_ms"] as? Double)
        XCTAssertNil(u["mismatch"], "accepted units have no mismatch")
        XCTAssertEqual(object["host_version"] as? String, WaiHostVersion.string)
        XCTAssertEqual(object["schema"] as? String, "waihost.probe/1")
        XCTAssertEqual(u["selector"] as? String, "cpu:\(u["index"] as? Int ?? -1)")

        let warm = try waihost(["probe", "--json", "--plugin-dir", dir], env: ["WAIHOST_CACHE_DIR": cache])
        XCTAssertEqual(warm.status, 0)
        XCTAssertFalse(warm.stderr.contains("probing"), "a warm probe probes nothing: \(warm.stderr)")
        let warmUnits = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(warm.stdout.utf8)) as? [String: Any])?["units"] as? [[String: Any]])
        XCTAssertEqual(warmUnits.first?["cached"] as? Bool, true)

        let fresh = try waihost(["probe", "--fresh", "--plugin-dir", dir], env: ["WAIHOST_CACHE_DIR": cache])
        XCTAssertTrue(fresh.stderr.contains("probing cpu:0"), fresh.stderr)
    }

    func testProbeTableAndPluginPathAndFailedRows() throws {
        let dir = try HostTestSupport.folderWithCPUPlugin("cli-table")
        try "not a plugin".write(toFile: dir + "/libBogus.so", atomically: true, encoding: .utf8)
        let run = try waihost(["probe", "--quiet"], env: ["WAI_PLUGIN_PATH": dir + ":" + dir + "/missing"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "", "--quiet")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("BACKEND"), lines[0])
        for column in ["DEVICE", "UNIT", "DRIVER", "STATE", "RANK", "SPEED", "REASON"] {
            XCTAssertTrue(lines[0].contains(column), column)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("cpu:0 ") && $0.contains("accepted") && $0.contains("runs/s") }, run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("libBogus.so") && $0.contains("failed") && $0.contains("not an ELF shared object") }, run.stdout)
        XCTAssertTrue(lines.contains { $0.contains("failed") && $0.contains("missing cannot be read") }, run.stdout)
    }

    func testRunGraphGivesTheSameOutputHashOnEveryUnit() throws {
        let dir = try HostTestSupport.folderWithCPUPlugin("cli-run")
        let (graph, _) = try HostTestSupport.smallGraph()
        let model = try HostTestSupport.temporaryDirectory("cli-model") + "/small.whm"
        try Data(ModelContainer.encode(graph)).write(to: URL(fileURLWithPath: model))

        func run(_ extra: [String]) throws -> [String: Any] {
            let r = try waihost(["run-graph", model, "--json", "--plugin-dir", dir] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let best = try run([])
        let reference = try run(["--unit", "reference"])
        let forced = try run(["--unit", "cpu:0"])
        let reseeded = try run(["--input-seed", "2"])
        let hash = try XCTUnwrap(best["outputs_sha256"] as? String)
        XCTAssertEqual(hash.count, 64)
        XCTAssertEqual(reference["outputs_sha256"] as? String, hash)
        XCTAssertEqual(forced["outputs_sha256"] as? String, hash)
        XCTAssertNotEqual(reseeded["outputs_sha256"] as? String, hash, "the seed picks the inputs")

        let report = try XCTUnwrap(best["report"] as? [String: Any])
        XCTAssertEqual(report["backend"] as? String, "cpu")
        XCTAssertEqual(report["unit"] as? String, "cpu")
        XCTAssertEqual(report["dispatch"] as? String, "ranked_first")
        XCTAssertEqual(report["rank"] as? Int, 1)
        XCTAssertEqual((reference["report"] as? [String: Any])?["backend"] as? String, "reference")
        XCTAssertEqual((forced["report"] as? [String: Any])?["dispatch"] as? String, "forced")
        // Reports name the unit's index in its backend, not only its kind (docs/cli.md, "Unit identity").
        let bestIndex = try XCTUnwrap(report["unit_index"] as? Int)
        XCTAssertEqual(report["selector"] as? String, "cpu:\(bestIndex)")
        XCTAssertEqual((forced["report"] as? [String: Any])?["unit_index"] as? Int, 0)
        XCTAssertEqual((forced["report"] as? [String: Any])?["selector"] as? String, "cpu:0")
        XCTAssertNil((reference["report"] as? [String: Any])?["unit_index"], "the reference interpreter is no unit")
        XCTAssertEqual(best["schema"] as? String, "waihost.run-graph/1")
        XCTAssertEqual((best["outputs"] as? [[String: Any]])?.first?["shape"] as? [Int], [2, 4, 4])

        let text = try waihost(["run-graph", model, "--plugin-dir", dir])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("dispatch: ranked_first (rank 1)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("outputs sha256: \(hash)"), text.stdout)
    }

    func testRunGraphErrors() throws {
        let dir = try HostTestSupport.folderWithCPUPlugin("cli-run-errors")
        let (graph, _) = try HostTestSupport.smallGraph()
        let model = try HostTestSupport.temporaryDirectory("cli-model-errors") + "/small.whm"
        try Data(ModelContainer.encode(graph)).write(to: URL(fileURLWithPath: model))

        let gpu = try waihost(["run-graph", model, "--unit", "gpu", "--plugin-dir", dir])
        XCTAssertEqual(gpu.status, 1)
        XCTAssertTrue(gpu.stderr.contains("no unit matches \"gpu\""), gpu.stderr)
        XCTAssertTrue(gpu.stderr.contains("cpu:0"), gpu.stderr)

        let missing = try waihost(["run-graph", model + ".nope"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains(".nope"), missing.stderr)

        XCTAssertEqual(try waihost(["run-graph"]).status, 2)
        XCTAssertEqual(try waihost(["run-graph", model, "--unit", "cpu:"]).status, 2)
        XCTAssertEqual(try waihost(["run-graph", model, "--input-seed", "-4"]).status, 2)
    }

    /// `probe --list` probes nothing (an empty cache: every unit "not probed"); after a probe
    /// it shows the cached verdicts. `probe NAME` shows one backend in detail.
    func testProbeListAndOneBackendInDetail() throws {
        let dir = try HostTestSupport.folderWithCPUPlugin("cli-list")
        let cache = try HostTestSupport.temporaryDirectory("cli-list-cache")
        let env = ["WAIHOST_CACHE_DIR": cache]
        let cold = try waihost(["probe", "--list", "--plugin-dir", dir], env: env)
        XCTAssertEqual(cold.status, 0, cold.stderr)
        XCTAssertEqual(cold.stderr, "", "listing probes nothing")
        XCTAssertTrue(cold.stdout.contains("cpu:0") && cold.stdout.contains("not probed"), cold.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache + "/probe-cache.json"), "nothing probed, nothing cached")

        let detail = try waihost(["probe", "cpu:0", "--plugin-dir", dir], env: env)
        XCTAssertEqual(detail.status, 0, detail.stderr)
        for line in ["backend:        cpu", "unit cpu:0", "verdict:      accepted", "exact ops:", "conv2d", "int16, int32",
                     "cache key:    ", "probe cache:    " + cache + "/probe-cache.json, written"] {
            XCTAssertTrue(detail.stdout.contains(line), "\(line) not in:\n\(detail.stdout)")
        }
        let json = try waihost(["probe", "cpu", "--json", "--plugin-dir", dir], env: env)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertFalse(json.stderr.contains("probing"), "the verdicts are cached now: \(json.stderr)")
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(o["schema"] as? String, "waihost.probe-unit/1")
        let units = try XCTUnwrap(o["units"] as? [[String: Any]])
        XCTAssertFalse(units.isEmpty)
        XCTAssertEqual((units[0]["cache_key"] as? String)?.count, 64)
        XCTAssertNotNil((units[0]["coverage"] as? [String: Any])?["exact"])

        let warm = try waihost(["probe", "--list", "--json", "--plugin-dir", dir], env: env)
        let listed = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(warm.stdout.utf8)) as? [String: Any])?["units"] as? [[String: Any]])
        XCTAssertTrue(listed.allSatisfy { $0["probed"] as? Bool == true && $0["state"] as? String == "accepted" }, warm.stdout)

        let none = try waihost(["probe", "vulkan", "--plugin-dir", dir], env: env)
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no backend unit matches \"vulkan\"; units that exist: cpu:0"), none.stderr)
    }

    func testSealRefusesAMissingOrEmptyFolder() throws {
        let dir = try HostTestSupport.temporaryDirectory("cli-seal")
        let key = dir + "/publisher.key"
        XCTAssertEqual(try waihost(["keygen", "-o", key]).status, 0)
        let missing = try waihost(["seal", dir + "/nope", "--key", key])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nope: no such folder"), missing.stderr)
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        let empty = try waihost(["seal", dir + "/empty", "--key", key, "--json"])
        XCTAssertEqual(empty.status, 1)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((o["error"] as? [String: Any])?["code"] as? String, "stream")
        XCTAssertTrue(((o["error"] as? [String: Any])?["message"] as? String ?? "").contains("no playlist"), empty.stdout)
    }

    func testGenerateManPagesAndCompletion() throws {
        let dir = try HostTestSupport.temporaryDirectory("cli-man") + "/man1"
        let man = try waihost(["generate", "man", dir], env: ["SOURCE_DATE_EPOCH": "1764547200"])
        XCTAssertEqual(man.status, 0, man.stderr)
        let pages = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertTrue(pages.contains("waihost.1") && pages.contains("waihost-decode.1") && pages.contains("waihost-probe.1"), "\(pages)")
        let decode = try String(contentsOfFile: dir + "/waihost-decode.1", encoding: .utf8)
        XCTAssertTrue(decode.contains(".TH \"WAIHOST-DECODE\" 1 \"2025-12-01\""), decode)
        let completion = try waihost(["generate", "completion", "bash"])
        XCTAssertEqual(completion.status, 0)
        XCTAssertTrue(completion.stdout.contains("complete -o filenames -o bashdefault -F _waihost waihost"))
        XCTAssertEqual(try waihost(["generate", "completion", "tcsh"]).status, 2)
    }

    /// `-` wherever a file goes: a picture piped through encode and decode gives the bytes the
    /// same commands give on files.
    func testStandardStreamsWhereFilesGo() throws {
        let dir = try HostTestSupport.temporaryDirectory("cli-pipe")
        let w = HostTestSupport.waihost
        XCTAssertEqual(try waihost(["make-model", "--seed", "3", "--n", "8", "--m", "12", "-o", dir + "/m", "-q"]).status, 0)
        XCTAssertEqual(try waihost(["make-picture", "--size", "40x24", "-o", dir + "/p.png"]).status, 0)
        XCTAssertEqual(try waihost(["encode", dir + "/p.png", "--model", dir + "/m", "-o", dir + "/p.wai", "--unit", "reference"]).status, 0)
        XCTAssertEqual(try waihost(["decode", dir + "/p.wai", "--model", dir + "/m", "-o", dir + "/files.rgb", "--unit", "reference"]).status, 0)
        let pipeline = "'\(w)' make-picture --size 40x24 -o - | '\(w)' encode - --size 40x24 --model '\(dir)/m' -o - --unit reference -q"
            + " | '\(w)' decode - --model '\(dir)/m' -o - --unit reference -q > '\(dir)/pipe.rgb'"
        let piped = try Subprocess("/bin/sh", ["-c", "set -e; " + pipeline], environment: ["WAIHOST_CACHE_DIR": dir + "/cache"]).run()
        XCTAssertEqual(piped.status, 0, piped.stderrText)
        let files = try Data(contentsOf: URL(fileURLWithPath: dir + "/files.rgb"))
        XCTAssertEqual(files.count, 40 * 24 * 3)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/pipe.rgb")), files)
        // An extension it cannot write is refused before anything runs, naming those it can.
        let jpg = try waihost(["decode", dir + "/p.wai", "--model", dir + "/m", "-o", dir + "/x.jpg"])
        XCTAssertEqual(jpg.status, 2)
        XCTAssertEqual(jpg.stderr, "waihost decode: -o \(dir)/x.jpg: cannot write '.jpg'; it writes .png, .rgb or - (raw RGB8 rows on standard output); a sequence: .y4m, .rgb (RGB8 frames) or - (Y4M)\ntry 'waihost decode --help'\n")
    }
}
