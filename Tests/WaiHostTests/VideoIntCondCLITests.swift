import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime
@testable import WaiCapabilities

/// The bundled golden clip of `wai.video.int_cond` (docs/capabilities/video_int_cond.md §10)
/// on the reference and on every unit, and as a user meets it: `waihost decode` to Y4M, whose
/// frames ffmpeg hashes to the decoder's own hashes, `--frames` from mid-GOP through a pipe,
/// `waihost make-model` and `encode --cond-model`, and the usage errors around them.
final class VideoIntCondCLITests: XCTestCase {
    typealias S = VideoIntCondTestSupport
    typealias PV = PredictiveVideoTestSupport
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    typealias Run = CLIRun

    func run(_ executable: String, _ args: [String]) throws -> Run { try CLIRun.run(executable, args) }
    func waihost(_ args: [String]) throws -> Run { try run(TestPaths.waihost, args) }

    /// The seeded set as `waihost make-model` writes it (the CLI reads a folder).
    static let condFolder: Result<String, Error> = Result {
        let dir = try IntHyperTestSupport.temporaryDirectory("cond-model")
        let r = try Subprocess(TestPaths.waihost, ["make-model", "--capability", "wai.video.int_cond", "--seed", "\(S.seed)", "--n", "\(S.n)",
                                                   "--m", "\(S.m)", "-o", dir, "--quiet"]).run()
        guard r.status == 0 else { throw TestFailure("make-model: \(r.stderrText)") }
        return dir
    }

    /// Every unit this machine has (each CPU path, lavapipe, PoCL when their plugins list one)
    /// decodes the clip to the golden frames; a unit lost mid-sequence changes no byte and the
    /// report counts the frames of each unit.
    func testGoldenClipDecodesIdenticallyOnTheReferenceAndEveryUnit() throws {
        let g = try S.golden()
        XCTAssertEqual(g.cond_model_set_id, try S.cond().idHex, "the seeded set regenerates the golden clip's set")
        XCTAssertEqual(g.frames.map(\.kind), ["intra", "predicted", "predicted", "predicted", "intra", "predicted"])
        let opened = try VideoIntCondCodec.open(try IntHyperTestSupport.read(S.clip))
        XCTAssertEqual(try S.decode(opened, runner: HostGraphRunner.reference()).map { SHA256.hex($0.frame.planes) }, g.frames.map(\.sha256))
        let covered = try PV.decodesOnEveryUnit(planes: g.frames.map(\.sha256), rgb: g.frames.map(\.rgb_sha256)) {
            try S.decode(opened, runner: $0)
        }
        print("video int_cond clip decoded identically on: \(covered.joined(separator: ", "))")

        // Runs: intra frames 2 (h_s, g_s), P-frames 3 (cond_context, cond_prior, cond_synth);
        // after 8 runs frame 2 is done and the reference takes over.
        let cpu = try BackendPlugin.load(path: TestPaths.product("libWaiCPUBackend.so"))
        let switching = SwitchingRunner(first: PluginGraphRunner(plugin: cpu, unit: 0), runs: 8, then: HostGraphRunner.reference())
        var report = VideoDecodeReport(opened, intraSet: try S.intra(), condSet: try S.cond(), range: 0...5, output: nil, outputFormat: "y4m")
        try VideoIntCondCodec.decode(opened, intraSet: try S.intra(), condSet: try S.cond(), runner: switching) { report.add($0) }
        XCTAssertEqual(report.frames.map(\.sha256), g.frames.map(\.sha256))
        XCTAssertEqual(report.units.map { "\($0.backend):\($0.frames)" }, ["cpu:3", "reference:3"])
        XCTAssertEqual(report.frames.map { $0.kind?.rawValue ?? "-" }, g.frames.map(\.kind))
    }

    /// §9–§10: the Y4M output's ffmpeg framemd5 is the MD5 of the decoder's frames and its
    /// framehash the report's SHA-256; `--frames 2..5` (from mid-GOP) through a pipe gives those
    /// frames of the full decode.
    func testDecodeToY4MPlaysInFFmpegWithTheDecodersFrameHashes() throws {
        let g = try S.golden()
        let cond = try Self.condFolder.get()
        let dir = try IntHyperTestSupport.temporaryDirectory("cond-clip")
        let out = dir + "/out.y4m"
        let d = try waihost(["decode", S.clip, "--cond-model", cond, "-o", out, "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try JSONDecoder().decode(VideoDecodeReport.self, from: Data(d.text.utf8))
        XCTAssertEqual(r.capability, "wai.video.int_cond")
        XCTAssertEqual([r.width, r.height, r.frameCount, r.intraPeriod], [64, 48, 6, 4])
        XCTAssertEqual(r.condModelSet?.id, g.cond_model_set_id)
        XCTAssertNil(r.motionModelSet)
        XCTAssertEqual(r.frames.map(\.sha256), g.frames.map(\.sha256))
        XCTAssertEqual(r.frames.map { $0.kind?.rawValue ?? "-" }, g.frames.map(\.kind))
        XCTAssertEqual(r.units.map(\.frames), [6])

        let bytes = try IntHyperTestSupport.read(out)
        XCTAssertTrue(bytes.starts(with: Array("YUV4MPEG2 W64 H48 F25:1 Ip A0:0 C420jpeg\n".utf8)))
        let headerEnd = try XCTUnwrap(bytes.firstIndex(of: 0x0A)) + 1
        let frames = (0..<6).map { Array(bytes[(headerEnd + $0 * (6 + 4608) + 6)..<(headerEnd + ($0 + 1) * (6 + 4608))]) }
        XCTAssertEqual(frames.map { SHA256.hex($0) }, g.frames.map(\.sha256))
        let md5 = try run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", out, "-f", "framemd5", "-"])
        XCTAssertEqual(md5.status, 0, md5.stderr)
        XCTAssertEqual(PV.hashColumn(md5.text), try frames.map { try PV.md5($0) })
        let sha = try run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", out, "-f", "framehash", "-hash", "sha256", "-"])
        XCTAssertEqual(PV.hashColumn(sha.text), g.frames.map(\.sha256))

        let piped = try run("/bin/bash", ["-o", "pipefail", "-c", "\"$WAIHOST\" decode '\(S.clip)' --cond-model '\(cond)' -o - --frames 2..5 "
            + "--unit reference 2>/dev/null | ffmpeg -hide_banner -loglevel error -f yuv4mpegpipe -i - -f framehash -hash sha256 -"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(PV.hashColumn(piped.text), g.frames[2...5].map(\.sha256))
    }

    /// §8–§9: `make-model` writes the golden clip's set; `encode --cond-model --gop` makes a
    /// sequence that decodes; what is missing or misplaced is named.
    func testMakeModelEncodeDecodeAndUsageErrors() throws {
        let cond = try Self.condFolder.get()
        XCTAssertEqual(try CondModelSet.load(directory: cond, needsAnalysis: true).id, try S.cond().id)
        let dir = try IntHyperTestSupport.temporaryDirectory("cond-encode")
        let frames = try S.panFrames(3)
        try IntHyperTestSupport.write(frames.flatMap(\.pixels), dir + "/pan.rgb")
        let e = try waihost(["encode", dir + "/pan.rgb", "--size", "64x48", "--fps", "30", "--cond-model", cond, "--gop", "2",
                             "--quality", "2", "--unit", "reference", "-o", dir + "/pan.wai", "--json"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.text.contains("\"intra_period\" : 2"), e.text)
        XCTAssertTrue(e.text.contains("\"cond_model_set_id\" : \"\(try S.cond().idHex)\""), e.text)
        let d = try waihost(["decode", dir + "/pan.wai", "--cond-model", cond, "-o", dir + "/pan.out.rgb", "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try JSONDecoder().decode(VideoDecodeReport.self, from: Data(d.text.utf8))
        XCTAssertEqual(r.frames.map { $0.kind?.rawValue ?? "-" }, ["intra", "predicted", "intra"])
        XCTAssertEqual(try IntHyperTestSupport.read(dir + "/pan.out.rgb").count, 3 * 64 * 48 * 3)

        let noCond = try waihost(["decode", dir + "/pan.wai", "-o", dir + "/x.y4m", "--unit", "reference"])
        XCTAssertEqual(noCond.status, 2, noCond.stderr)
        XCTAssertTrue(noCond.stderr.contains("--cond-model DIR"), noCond.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.y4m"))
        let motionFlag = try waihost(["decode", dir + "/pan.wai", "--motion-model", cond, "-o", dir + "/x.y4m", "--unit", "reference"])
        XCTAssertEqual(motionFlag.status, 2, motionFlag.stderr)
        XCTAssertTrue(motionFlag.stderr.contains("--motion-model is for wai.video.int_motion"), motionFlag.stderr)
        let both = try waihost(["encode", dir + "/pan.rgb", "--size", "64x48", "--fps", "30", "--cond-model", cond, "--motion-model", cond,
                                "-o", dir + "/y.wai"])
        XCTAssertEqual(both.status, 2, both.stderr)
        let picture = try waihost(["decode", IntHyperTestSupport.samples + "/sample.wai", "--model", IntHyperTestSupport.sampleModel,
                                   "--cond-model", cond, "-o", dir + "/p.png"])
        XCTAssertEqual(picture.status, 2, picture.stderr)
        XCTAssertTrue(picture.stderr.contains("--cond-model is for wai.video.int_cond"), picture.stderr)
        // A motion set given as the conditional one is refused by its manifest.
        let motion = try IntHyperTestSupport.temporaryDirectory("cond-wrong-set")
        try VideoIntMotionTestSupport.motion().write(to: motion)
        let wrong = try waihost(["decode", dir + "/pan.wai", "--cond-model", motion, "-o", dir + "/z.y4m", "--unit", "reference"])
        XCTAssertEqual(wrong.status, 1, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("not a wai.video.int_cond model set"), wrong.stderr)
        let badCapability = try waihost(["make-model", "--capability", "wai.video.int_nope", "--seed", "1", "--n", "4", "--m", "4", "-o", dir + "/m"])
        XCTAssertEqual(badCapability.status, 2, badCapability.stderr)
        XCTAssertTrue(badCapability.stderr.contains("wai.video.int_cond"), badCapability.stderr)
    }

    /// §2, §9: a sequence made with the shipped trained set (samples/models/cond) decodes
    /// without --cond-model, to the frames the named folder gives.
    func testTheShippedTrainedSetIsFoundByTheSequencesModelSetID() throws {
        let shipped = IntHyperTestSupport.samples + "/models/cond"
        let set = try CondModelSet.load(directory: shipped, needsAnalysis: true)
        XCTAssertTrue(set.name.hasPrefix("int-cond-trained-"), set.name)
        try PV.shippedSetIsFoundByID(option: "cond-model", folder: shipped, waihost: waihost)
    }
}
