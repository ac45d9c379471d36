import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

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
        let inst = try Subprocess("/bin/bash", [root + "/scripts/install-capi.sh", prefix], environment: env).run()
        guard inst.status == 0 else { throw CPluginBuildError(description: "install-capi.sh failed: \(inst.stderrText)") }

        let pkgConfig = try CPluginBuilder.tool("pkg-config", why: "the C API example is built through it (apt-get install pkg-config)")
        env["PKG_CONFIG_PATH"] = prefix + "/lib/pkgconfig"
        let flags = try Subprocess(pkgConfig, ["--cflags", "--libs", "waihost"], environment: env).run()
        guard flags.status == 0 else { throw CPluginBuildError(description: "pkg-config waihost failed: \(flags.stderrText)") }

        let cc = try CPluginBuilder.tool("cc", why: "the C API example is compiled with it (apt-get install build-essential)")
        let out = prefix + "/cdecode"
        let args = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, root + "/Examples/CDecode/cdecode.c"]
            + flags.stdoutText.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        let c = try Subprocess(cc, args).run()
        guard c.status == 0 else {
            throw CPluginBuildError(description: "\(cc) \(args.joined(separator: " ")) failed:\n\(c.stderrText)")
        }
        return Installed(prefix: prefix, cdecode: out, plugins: try HostTestSupport.folderWithCPUPlugin("capi-plugins"),
                         cache: try HostTestSupport.temporaryDirectory("capi-cache"))
    }

    /// Runs the example with a private plugin folder (the CPU backend) and probe cache.
    func cdecode(_ args: [String]) throws -> SubprocessResult {
        let inst = try Self.install()
        var env = ProcessInfo.processInfo.environment
        env["LD_LIBRARY_PATH"] = inst.prefix + "/lib"
        env["WAI_PLUGIN_PATH"] = inst.plugins
        env["WAIHOST_UNIT_WORKER"] = HostTestSupport.unitWorker
        env["WAIHOST_CACHE_DIR"] = inst.cache
        return try Subprocess(inst.cdecode, args, environment: env).run()
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
        XCTAssertEqual(r.status, 0, r.stderrText)
        XCTAssertEqual(field("sha256", r.stdoutText), try goldenSHA256("sample.wai"), r.stdoutText)
        // The CPU backend's units rank by measured speed: the listing says which is first,
        // and the report must name that one, index included.
        let first = try XCTUnwrap(r.stdoutText.split(separator: "\n").first { $0.hasPrefix("unit cpu:") && $0.contains(" accepted rank 1 ") },
                                  r.stdoutText)
        let selector = first.split(separator: " ")[1]
        XCTAssertEqual(field("unit", r.stdoutText), "cpu (\(selector))", r.stdoutText)
        XCTAssertTrue(field("picture", r.stdoutText)?.hasPrefix("128x96, stride 384, 36864 bytes (host buffer)") == true, r.stdoutText)
        XCTAssertEqual(field("dispatch", r.stdoutText), "ranked_first (rank 1)", r.stdoutText)
    }

    func testCallerOwnedBufferAndReferenceUnitGiveTheSamePictureAndJSONReport() throws {
        let golden = try goldenSHA256("odd-45x29.payload")
        let own = try cdecode(["-b", "-u", "reference", samples + "/int_hyper_model", samples + "/odd-45x29.payload"])
        XCTAssertEqual(own.status, 0, own.stderrText)
        XCTAssertEqual(field("sha256", own.stdoutText), golden, own.stdoutText)
        XCTAssertEqual(field("unit", own.stdoutText), "cpu (reference:-1)", own.stdoutText)
        XCTAssertTrue(own.stdoutText.contains("(caller buffer)"), own.stdoutText)

        let json = try cdecode(["-j", "-u", "cpu:0", samples + "/int_hyper_model", samples + "/odd-45x29.payload"])
        XCTAssertEqual(json.status, 0, json.stderrText)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        XCTAssertEqual(doc["sha256"] as? String, golden)
        XCTAssertEqual(doc["backend"] as? String, "cpu")
        XCTAssertEqual(doc["dispatch"] as? String, "forced")
    }

    func testFailuresComeBackAsStatusAndTheHostsMessage() throws {
        let model = samples + "/int_hyper_model"
        let missing = try cdecode([samples + "/no-such-model", samples + "/sample.wai"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderrText.hasPrefix("cdecode: decode: model_set: "), missing.stderrText)
        XCTAssertTrue(missing.stderrText.contains("no-such-model"), missing.stderrText)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: samples + "/odd-45x29.payload"))
        let truncated = try HostTestSupport.temporaryDirectory("capi-truncated") + "/half.payload"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let cut = try cdecode([model, truncated])
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderrText.hasPrefix("cdecode: decode: payload: "), cut.stderrText)

        let unknown = try cdecode(["-u", "nosuch:7", model, samples + "/sample.wai"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderrText.hasPrefix("cdecode: decode: no_such_unit: "), unknown.stderrText)
        XCTAssertTrue(unknown.stderrText.contains("cpu:0"), "the message names the units that exist: \(unknown.stderrText)")

        let badSelection = try cdecode(["-u", "cpu:x", model, samples + "/sample.wai"])
        XCTAssertEqual(badSelection.status, 1)
        XCTAssertTrue(badSelection.stderrText.hasPrefix("cdecode: decode: invalid_argument: "), badSelection.stderrText)
    }

    /// The boundary's own checks, from C: NULL arguments, a struct_size too small, an empty
    /// payload, a caller buffer one byte short, and the status names.
    static let edgeCases = """
        #include <waihost.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <stddef.h>
        static int failures = 0;
        static void expect(int ok, const char *what, const char *msg) {
            if (!ok) { printf("FAIL %s: %s\\n", what, msg); failures++; }
        }
        int main(int argc, char **argv) {
            (void)argc;
            char msg[256];
            expect(waihost_version() == WAIHOST_API_VERSION, "version", "");
            expect(strcmp(waihost_status_name(WAIHOST_ERR_BUFFER_TOO_SMALL), "buffer_too_small") == 0, "name", "");
            expect(strcmp(waihost_status_name((waihost_status)99), "unknown") == 0, "unknown name", "");
            expect(waihost_open(NULL, NULL, msg, sizeof msg) == WAIHOST_ERR_INVALID_ARGUMENT, "open NULL", msg);
            waihost_open_options small = { .struct_size = 8 };
            waihost_host *host = (waihost_host *)1;
            expect(waihost_open(&small, &host, msg, sizeof msg) == WAIHOST_ERR_INVALID_ARGUMENT && host == NULL
                   && strstr(msg, "struct_size") != NULL, "open small struct", msg);
            const char *none[1] = { NULL };
            waihost_open_options bad = { .struct_size = sizeof bad, .plugin_dirs = none, .cache_dir = "", .spot_check = "sample:0" };
            expect(waihost_open(&bad, &host, msg, sizeof msg) == WAIHOST_ERR_INVALID_ARGUMENT && host == NULL
                   && strstr(msg, "spot_check") != NULL && strstr(msg, "\\"sample:0\\"") != NULL, "open bad spot_check", msg);
            /* A 1.0 caller's struct ends before spot_check: what lies beyond it is not read. */
            struct { waihost_open_options o; } v10 = { { .struct_size = offsetof(waihost_open_options, spot_check),
                                                         .plugin_dirs = none, .cache_dir = "", .spot_check = "bogus" } };
            expect(waihost_open(&v10.o, &host, msg, sizeof msg) == WAIHOST_OK && host != NULL, "open 1.0 struct", msg);
            waihost_close(host);
            waihost_open_options opts = { .struct_size = sizeof opts, .plugin_dirs = none, .plugin_dir_count = 0, .cache_dir = "",
                                          .spot_check = "off" };
            expect(waihost_open(&opts, &host, msg, sizeof msg) == WAIHOST_OK && host != NULL && msg[0] == 0, "open", msg);
            FILE *f = fopen(argv[2], "rb");
            static unsigned char payload[1 << 16];
            size_t len = f ? fread(payload, 1, sizeof payload, f) : 0;
            if (f) fclose(f);
            waihost_image image = { .struct_size = sizeof image };
            waihost_report *report = (waihost_report *)1;
            expect(waihost_decode(NULL, payload, len, argv[1], NULL, &image, &report, msg, sizeof msg) == WAIHOST_ERR_INVALID_ARGUMENT
                   && report == NULL, "decode NULL host", msg);
            expect(waihost_decode(host, payload, 0, argv[1], NULL, &image, NULL, msg, sizeof msg) == WAIHOST_ERR_PAYLOAD, "empty", msg);
            waihost_image old = { .struct_size = 4 };
            expect(waihost_decode(host, payload, len, argv[1], NULL, &old, NULL, msg, sizeof msg) == WAIHOST_ERR_INVALID_ARGUMENT,
                   "image struct_size", msg);
            size_t size = 0; uint32_t w = 0, h = 0;
            expect(waihost_image_size(payload, len, &w, &h, &size, msg, sizeof msg) == WAIHOST_OK && size == (size_t)w * h * 3,
                   "image size", msg);
            unsigned char *buf = malloc(size);
            waihost_image mine = { .struct_size = sizeof mine, .pixels = buf, .capacity = size - 1 };
            expect(waihost_decode(host, payload, len, argv[1], "reference", &mine, NULL, msg, sizeof msg) == WAIHOST_ERR_BUFFER_TOO_SMALL
                   && mine.size == size && mine.width == w && mine.pixels == buf, "buffer too small", msg);
            char tiny[8];
            expect(waihost_decode(host, payload, len / 2, argv[1], "reference", &image, NULL, tiny, sizeof tiny) == WAIHOST_ERR_PAYLOAD
                   && strlen(tiny) == sizeof tiny - 1, "message cut to the buffer", tiny);
            mine.capacity = size;
            expect(waihost_decode(host, payload, len, argv[1], "reference", &mine, &report, msg, sizeof msg) == WAIHOST_OK
                   && report != NULL && strcmp(report->backend, "reference") == 0 && report->width == w
                   && waihost_report_json(report) == report->json, "decode into caller buffer", msg);
            waihost_free(report);
            free(buf);
            waihost_close(host);
            waihost_close(NULL);
            waihost_free(NULL);
            printf("%d failures\\n", failures);
            return failures != 0;
        }
        """

    func testBoundaryChecksFromC() throws {
        let inst = try Self.install()
        let src = inst.prefix + "/edge.c", exe = inst.prefix + "/edge"
        try Self.edgeCases.write(toFile: src, atomically: true, encoding: .utf8)
        let cc = try CPluginBuilder.tool("cc", why: "the C API tests compile C with it")
        let c = try Subprocess(cc, ["-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe, src,
                                            "-I", inst.prefix + "/include/waihost", "-L", inst.prefix + "/lib", "-lwaihost"]).run()
        XCTAssertEqual(c.status, 0, c.stderrText)
        var env = ProcessInfo.processInfo.environment
        env["LD_LIBRARY_PATH"] = inst.prefix + "/lib"
        let r = try Subprocess(exe, [samples + "/int_hyper_model", samples + "/odd-45x29.payload"], environment: env).run()
        XCTAssertEqual(r.status, 0, r.stdoutText + r.stderrText)
        XCTAssertTrue(r.stdoutText.hasSuffix("0 failures\n"), r.stdoutText)
    }
}
