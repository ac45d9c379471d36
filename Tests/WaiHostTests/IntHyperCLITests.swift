import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// `waihost encode / decode / make-model / make-picture` as a user runs them: the report,
/// the unit that decoded, exit statuses and error messages.
final class IntHyperCLITests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    typealias Run = CLIRun

    /// No plugin folder from the environment: these tests choose the units themselves.
    func waihost(_ args: [String]) throws -> Run {
        try CLIRun.run(TestPaths.waihost, args, environment: ["WAI_PLUGIN_PATH": nil])
    }

    func pluginFolder() throws -> String {
        let dir = try IntHyperTestSupport.temporaryDirectory("plugins")
        let so = TestPaths.product("libWaiCPUBackend.so")
        try FileManager.default.copyItem(atPath: so, toPath: dir + "/libWaiCPUBackend.so")
        return dir
    }

    /// `encode --payload-version 1` writes the kept version-1 sample byte for byte, the
    /// default writes version 2, and any other version is a usage error (exit 2).
    func testEncodePayloadVersion() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("payload-version")
        let picture = dir + "/odd.png"
        XCTAssertEqual(try waihost(["make-picture", "--size", "45x29", "-o", picture]).status, 0)
        for (flag, file) in [(["--payload-version", "1"], "odd-45x29.payload"), ([], "odd-45x29-v2.payload")] {
            let r = try waihost(["encode", picture, "--model", IntHyperTestSupport.sampleModel, "--unit", "reference", "--raw",
                                 "-o", dir + "/out.payload"] + flag)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try IntHyperTestSupport.read(dir + "/out.payload"),
                           try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/" + file), file)
        }
        let bad = try waihost(["encode", picture, "--model", IntHyperTestSupport.sampleModel, "--payload-version", "3",
                               "-o", dir + "/bad.wai"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--payload-version is 1 or 2"), bad.stderr)
    }

    /// Decoding the bundled sample on the best unit (the CPU backend) and on the reference:
    /// the report names the unit and why, and the SHA-256 is the golden one on both.
    func testDecodeReportsTheUnitAndTheGoldenSHA256() throws {
        let golden = try IntHyperTestSupport.golden()
        let sample = IntHyperTestSupport.samples + "/sample.wai"
        let dir = try IntHyperTestSupport.temporaryDirectory("decode")
        let plugins = try pluginFolder()
        let best = try waihost(["decode", sample, "--model", IntHyperTestSupport.sampleModel, "-o", dir + "/out.png",
                                "--plugin-dir", plugins, "--report", dir + "/report.json"])
        XCTAssertEqual(best.status, 0, best.stderr)
        for line in ["unit:       cpu", "backend:    cpu", "dispatch:   ranked_first (rank 1)", golden.vectors[0].sha256] {
            XCTAssertTrue(best.text.contains(line), "\(line) not in:\n\(best.text)")
        }
        let report = try JSONDecoder().decode(IntHyperDecodeReport.self, from: Data(try IntHyperTestSupport.read(dir + "/report.json")))
        XCTAssertEqual(report.capability, "wai.neural.int_hyper")
        XCTAssertEqual(report.sha256, golden.vectors[0].sha256)
        XCTAssertEqual(report.backend, "cpu")
        XCTAssertEqual(report.runs.map(\.graph), ["h_s", "g_s"])
        XCTAssertEqual(try PictureFile.read(path: dir + "/out.png").sha256, golden.vectors[0].sha256)

        // Forced onto the reference, raw rows to standard output, the report on stderr as JSON.
        let ref = try waihost(["decode", sample, "--model", IntHyperTestSupport.sampleModel, "-o", "-", "--unit", "reference",
                               "--json", "--plugin-dir", plugins])
        XCTAssertEqual(ref.status, 0, ref.stderr)
        XCTAssertEqual(SHA256.hex(ref.stdout), golden.vectors[0].sha256)
        let refReport = try JSONDecoder().decode(IntHyperDecodeReport.self, from: Data(ref.stderr.utf8))
        XCTAssertEqual(refReport.backend, "reference")
        XCTAssertEqual(refReport.dispatch, .forced)

        // --backend NAME: the CPU backend is named "cpu", like the unit kind.
        let forced = try waihost(["decode", sample, "--model", IntHyperTestSupport.sampleModel, "-o", dir + "/f.rgb",
                                  "--backend", "cpu:0", "--json", "--plugin-dir", plugins])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        let forcedReport = try JSONDecoder().decode(IntHyperDecodeReport.self, from: Data(forced.stdout))
        XCTAssertEqual(forcedReport.dispatch, .forced)
        XCTAssertEqual(SHA256.hex(try IntHyperTestSupport.read(dir + "/f.rgb")), golden.vectors[0].sha256)
    }

    func testEncodeThenDecodeThroughTheCLI() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("encode")
        XCTAssertEqual(try waihost(["make-picture", "--size", "40x24", "-o", dir + "/p.png"]).status, 0)
        let model = dir + "/model"
        let made = try waihost(["make-model", "--seed", "3", "--n", "8", "--m", "12", "-o", model])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.text.contains("id "), made.text)
        let enc = try waihost(["encode", dir + "/p.png", "--model", model, "-o", dir + "/p.wai", "--unit", "reference"])
        XCTAssertEqual(enc.status, 0, enc.stderr)
        XCTAssertTrue(Envelope.isEnvelope(try IntHyperTestSupport.read(dir + "/p.wai")))
        let raw = try waihost(["encode", dir + "/p.png", "--model", model, "-o", dir + "/p.payload", "--raw", "--unit", "reference"])
        XCTAssertEqual(raw.status, 0, raw.stderr)
        let a = try waihost(["decode", dir + "/p.wai", "--model", model, "-o", "-", "--unit", "reference"])
        let b = try waihost(["decode", dir + "/p.payload", "--model", model, "-o", "-", "--unit", "reference"])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertEqual(a.stdout, b.stdout)
        XCTAssertEqual(a.stdout.count, 40 * 24 * 3)
    }

    func testErrorsAndUsage() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("errors")
        let model = IntHyperTestSupport.sampleModel
        // A corrupt envelope: exit 1, the envelope's reason.
        var bytes = try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/sample.wai")
        bytes[100] ^= 1
        try IntHyperTestSupport.write(bytes, dir + "/bad.wai")
        let bad = try waihost(["decode", dir + "/bad.wai", "--model", model, "-o", dir + "/x.png", "--unit", "reference"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("digest") || bad.stderr.contains("SHA-256"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.png"), "nothing is written for a refused payload")
        // A non-RGB8 PNG: exit 1, says what it is.
        var image = try PNGCodec.encode(try SamplePicture.make(width: 4, height: 4))
        image[25] = 6   // IHDR color type → RGBA (the CRC now fails too, but the IHDR check comes first)
        try IntHyperTestSupport.write(image, dir + "/rgba.png")
        let rgba = try waihost(["encode", dir + "/rgba.png", "--model", model, "-o", dir + "/y.wai", "--unit", "reference"])
        XCTAssertEqual(rgba.status, 1)
        XCTAssertTrue(rgba.stderr.contains("only RGB8"), rgba.stderr)
        // Usage errors: exit 2.
        XCTAssertEqual(try waihost(["decode", "x.wai"]).status, 2)
        XCTAssertEqual(try waihost(["decode", "x.wai", "--model", model, "-o", "y.png", "--unit", "cpu", "--backend", "cpu"]).status, 2)
        XCTAssertEqual(try waihost(["make-model", "--seed", "1", "--n", "3", "--m", "8", "-o", dir + "/m"]).status, 2)
        XCTAssertEqual(try waihost(["encode", "p.png", "--model", model, "-o", "o.wai", "--size", "2x2"]).status, 2)
        // A payload of another model set.
        let other = dir + "/other"
        XCTAssertEqual(try waihost(["make-model", "--seed", "5", "--n", "4", "--m", "4", "-o", other]).status, 0)
        let wrong = try waihost(["decode", IntHyperTestSupport.samples + "/sample.wai", "--model", other, "-o", "-", "--unit", "reference"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("made with model set"), wrong.stderr)
        XCTAssertTrue(wrong.stdout.isEmpty)
    }

    /// An output that cannot be written (docs/cli.md, "Files are written whole or not at
    /// all") fails before the input is decoded or encoded, naming the path and why; nothing
    /// is left behind.
    func testAnOutputThatCannotBeWrittenFailsBeforeAnyWork() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("unwritable")
        let model = IntHyperTestSupport.sampleModel, sample = IntHyperTestSupport.samples + "/sample.wai"
        try IntHyperTestSupport.write([1, 2, 3], dir + "/file")
        try FileManager.default.createDirectory(atPath: dir + "/folder.png", withIntermediateDirectories: false)
        let cases: [(args: [String], message: String)] = [
            (["decode", sample, "-o", dir + "/missing/x.png"], "\(dir)/missing/x.png: cannot write: folder \(dir)/missing: No such file or directory"),
            (["decode", sample, "-o", dir + "/folder.png"], "\(dir)/folder.png: is a folder; give a file name"),
            (["decode", sample, "-o", dir + "/file/x.png"], "\(dir)/file/x.png: cannot write: \(dir)/file is not a folder"),
            (["decode", sample, "-o", dir + "/x.png", "--report", dir + "/missing/r.json"],
             "\(dir)/missing/r.json: cannot write: folder \(dir)/missing: No such file or directory"),
            (["encode", IntHyperTestSupport.samples + "/sample.png", "-o", dir + "/missing/y.wai"],
             "\(dir)/missing/y.wai: cannot write: folder \(dir)/missing: No such file or directory"),
        ]
        for c in cases {
            let r = try waihost(c.args + ["--model", model, "--unit", "reference"])
            XCTAssertEqual(r.status, 1, c.args.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(c.message), r.stderr)
            XCTAssertFalse(r.stderr.contains("decoding") || r.stderr.contains("encoding"), "no work started: \(r.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["file", "folder.png"], "nothing written")
    }

    /// `make-picture` holds the picture's RGB8 rows, so a size past the memory bound
    /// (docs/capabilities/int_hyper.md §3.1) is refused before they are allocated, naming the
    /// largest picture of that shape that fits, as a PNG header of that size is.
    func testMakePicturePastTheMemoryBoundIsRefused() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("huge-picture")
        let r = try waihost(["make-picture", "--size", "65535x65535", "-o", dir + "/p.png"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("sample picture: 65535×65535 is 12884508675 bytes of RGB8 rows, more than the 1024 MiB "
                                        + "a picture may take (WAIHOST_MEMORY_LIMIT_MIB raises it); the largest picture of this "
                                        + "shape that fits is 18918×18918"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/p.png"))
        let fits = try waihost(["make-picture", "--size", "65535x4", "-o", dir + "/wide.png"])
        XCTAssertEqual(fits.status, 0, fits.stderr)
    }

    /// `decode --latents DIR` (docs/capabilities/int_hyper.md §8.1) writes what the decode
    /// entropy-decoded: coding its z and y again with the set's tables, y with the dumped scale
    /// indices, gives the payload's own streams byte for byte. A sequence, or a folder that
    /// cannot be made, is refused before any work.
    func testDecodeWritesItsLatents() throws {
        let dir = try IntHyperTestSupport.temporaryDirectory("latents")
        let model = IntHyperTestSupport.sampleModel, sample = IntHyperTestSupport.samples + "/sample.wai"
        let r = try waihost(["decode", sample, "--model", model, "--unit", "reference", "-o", dir + "/o.rgb",
                             "--latents", dir + "/lat", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        XCTAssertEqual(report["latents"] as? String, dir + "/lat")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/lat").sorted(),
                       ["latents.json", "y.i32", "y_scale_index.i32", "z.i32"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/lat/latents.json")))
                                 as? [String: Any])
        XCTAssertEqual(json["schema"] as? String, "waihost.latents/1")
        XCTAssertEqual(json["width"] as? Int, 128)
        XCTAssertEqual(json["height"] as? Int, 96)
        XCTAssertEqual(json["payload_version"] as? Int, 2)
        let arrays = try XCTUnwrap(json["arrays"] as? [[String: Any]])
        XCTAssertEqual(arrays.map { $0["name"] as? String }, ["z", "y", "y_scale_index"])
        XCTAssertEqual(arrays.map { $0["shape"] as? [Int] }, [[32, 2, 2], [48, 6, 8], [48, 6, 8]])
        XCTAssertEqual(Set(arrays.map { $0["element"] as? String }), ["int32le"])
        func values(_ file: String) throws -> [Int32] {
            let bytes = try IntHyperTestSupport.read(dir + "/lat/" + file)
            XCTAssertEqual(bytes.count % 4, 0)
            return Int32LE.values(bytes)
        }
        let (z, y, scales) = (try values("z.i32"), try values("y.i32"), try values("y_scale_index.i32"))
        XCTAssertEqual([z.count, y.count, scales.count], [32 * 2 * 2, 48 * 6 * 8, 48 * 6 * 8])
        let set = try IntHyperModelSet.load(directory: model)
        let payload = try IntHyperPayload.parse(try CapabilityRegistry.open(try IntHyperTestSupport.read(sample),
                                                                            expecting: IntHyperModelSet.capability).payload)
        // Compared whole, not printed: a difference would print two streams of bytes.
        XCTAssertTrue(IntHyperEncoder.stream(z, version: .v2) { set.entropy.zTables[$0 / 4] } == payload.zStream, "z as decoded")
        XCTAssertTrue(IntHyperEncoder.stream(y, version: .v2) { set.entropy.yTables[Int(scales[$0])] } == payload.yStream,
                      "y and its scale indices as decoded")

        let refused: [(args: [String], message: String)] = [
            ([IntHyperTestSupport.samples + "/clip.wai", "-o", dir + "/v.y4m", "--latents", dir + "/vlat"],
             "--latents is for wai.neural.int_hyper pictures"),
            ([sample, "-o", dir + "/x.rgb", "--latents", dir + "/missing/lat"],
             "\(dir)/missing/lat: cannot write: folder \(dir)/missing: No such file or directory"),
            ([sample, "-o", dir + "/x.rgb", "--latents", dir + "/o.rgb/lat"], "\(dir)/o.rgb/lat: cannot write: \(dir)/o.rgb is not a folder"),
            ([sample, "-o", dir + "/x.rgb", "--latents", dir + "/o.rgb"], "\(dir)/o.rgb: is a file, not a folder"),
        ]
        for c in refused {
            let bad = try waihost(["decode"] + c.args + ["--model", model, "--unit", "reference"])
            XCTAssertNotEqual(bad.status, 0, c.args.joined(separator: " "))
            XCTAssertTrue(bad.stderr.contains(c.message), bad.stderr)
            XCTAssertFalse(bad.stderr.contains("decoding"), "no work started: \(bad.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["lat", "o.rgb"], "nothing else written")
    }
}
