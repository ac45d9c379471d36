import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiRuntime
@testable import WaiCapabilities

/// The bundled golden clip of `wai.video.int_motion` (docs/capabilities/video_int_motion.md
/// §10) on the reference and on every unit, and as a user meets it: `waihost decode` to Y4M,
/// whose frames ffmpeg hashes to the decoder's own hashes, `--frames` from mid-GOP, `waihost
/// encode --motion-model` and the usage errors around it.
final class VideoIntMotionCLITests: XCTestCase {
    typealias S = VideoIntMotionTestSupport
    typealias PV = PredictiveVideoTestSupport
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    typealias Run = CLIRun

    func run(_ executable: String, _ args: [String]) throws -> Run { try CLIRun.run(executable, args) }
    func waihost(_ args: [String]) throws -> Run { try run(TestPaths.waihost, args) }

    /// The seeded motion set written once per process (the CLI reads a folder).
    static let motionFolder: Result<String, Error> = Result {
        let dir = try IntHyperTestSupport.temporaryDirectory("motion-model")
        try S.motion().write(to: dir)
        return dir
    }

    /// Every unit this machine has (each CPU path, lavapipe, PoCL when their plugins list one)
    /// decodes the clip to the golden frames, the warp's fractional flows included; a unit
    /// lost mid-sequence changes no byte and the report counts the frames of each unit.
    func testGoldenClipDecodesIdenticallyOnTheReferenceAndEveryUnit() throws {
        let g = try S.golden()
        XCTAssertEqual(g.motion_model_set_id, try S.motion().idHex, "the seeded set regenerates the golden clip's set")
        XCTAssertEqual(g.frames.map(\.kind), ["intra", "predicted", "predicted", "predicted", "intra", "predicted"])
        let opened = try VideoIntMotionCodec.open(try IntHyperTestSupport.read(S.clip))
        XCTAssertEqual(try S.decode(opened, runner: HostGraphRunner.reference()).map { SHA256.hex($0.frame.planes) }, g.frames.map(\.sha256))
        let covered = try PV.decodesOnEveryUnit(planes: g.frames.map(\.sha256), rgb: g.frames.map(\.rgb_sha256)) {
            try S.decode(opened, runner: $0)
        }
        print("video int_motion clip decoded identically on: \(covered.joined(separator: ", "))")

        // Runs: intra frames 2 (h_s, g_s), P-frames 3 (two h_s, p_synth); after 8 runs frame 2 is done.
        let cpu = try BackendPlugin.load(path: TestPaths.product("libWaiCPUBackend.so"))
        let switching = SwitchingRunner(first: PluginGraphRunner(plugin: cpu, unit: 0), runs: 8, then: HostGraphRunner.reference())
        var report = VideoDecodeReport(opened, intraSet: try S.intra(), motionSet: try S.motion(), range: 0...5, output: nil, outputFormat: "y4m")
        try VideoIntMotionCodec.decode(opened, intraSet: try S.intra(), motionSet: try S.motion(), runner: switching) { report.add($0) }
        XCTAssertEqual(report.frames.map(\.sha256), g.frames.map(\.sha256))
        XCTAssertEqual(report.units.map { "\($0.backend):\($0.frames)" }, ["cpu:3", "reference:3"])
        XCTAssertEqual(report.frames.map { $0.kind?.rawValue ?? "-" }, g.frames.map(\.kind))
    }

    /// §9–§10: the Y4M output's ffmpeg framemd5 is the MD5 of the decoder's frames and its
    /// framehash the report's SHA-256; `--frames 2..5` (from mid-GOP) through a pipe gives those
    /// frames of the full decode.
    func testDecodeToY4MPlaysInFFmpegWithTheDecodersFrameHashes() throws {
        let g = try S.golden()
        let motion = try Self.motionFolder.get()
        let dir = try IntHyperTestSupport.temporaryDirectory("motion-clip")
        let out = dir + "/out.y4m"
        let d = try waihost(["decode", S.clip, "--motion-model", motion, "-o", out, "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try JSONDecoder().decode(VideoDecodeReport.self, from: Data(d.text.utf8))
        XCTAssertEqual(r.capability, "wai.video.int_motion")
        XCTAssertEqual([r.width, r.height, r.frameCount, r.intraPeriod], [64, 48, 6, 4])
        XCTAssertEqual(r.motionModelSet?.id, g.motion_model_set_id)
        XCTAssertEqual(r.frames.map(\.sha256), g.frames.map(\.sha256))
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

        let piped = try run("/bin/bash", ["-o", "pipefail", "-c", "\"$WAIHOST\" decode '\(S.clip)' --motion-model '\(motion)' -o - --frames 2..5 "
            + "--unit reference 2>/dev/null | ffmpeg -hide_banner -loglevel error -f yuv4mpegpipe -i - -f framehash -hash sha256 -"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(PV.hashColumn(piped.text), g.frames[2...5].map(\.sha256))
    }

    /// §9: `encode --motion-model` makes a sequence that decodes; what is missing is named.
    func testEncodeWithAMotionSetThenDecodeAndUsageErrors() throws {
        let motion = try Self.motionFolder.get()
        let dir = try IntHyperTestSupport.temporaryDirectory("motion-encode")
        let frames = try S.panFrames(3)
        try IntHyperTestSupport.write(frames.flatMap(\.pixels), dir + "/pan.rgb")
        let e = try waihost(["encode", dir + "/pan.rgb", "--size", "64x48", "--fps", "30", "--motion-model", motion, "--gop", "2",
                             "--quality", "2", "--unit", "reference", "-o", dir + "/pan.wai", "--json"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.text.contains("\"intra_period\" : 2"), e.text)
        let d = try waihost(["decode", dir + "/pan.wai", "--motion-model", motion, "-o", dir + "/pan.rgb.out.rgb", "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try JSONDecoder().decode(VideoDecodeReport.self, from: Data(d.text.utf8))
        XCTAssertEqual(r.frames.map { $0.kind?.rawValue ?? "-" }, ["intra", "predicted", "intra"])

        let noMotion = try waihost(["decode", dir + "/pan.wai", "-o", dir + "/x.y4m", "--unit", "reference"])
        XCTAssertEqual(noMotion.status, 2, noMotion.stderr)
        XCTAssertTrue(noMotion.stderr.contains("--motion-model DIR"), noMotion.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.y4m"))
        let gopAlone = try waihost(["encode", dir + "/pan.rgb", "--size", "64x48", "--fps", "30", "--gop", "2", "-o", dir + "/y.wai"])
        XCTAssertEqual(gopAlone.status, 2, gopAlone.stderr)
        let picture = try waihost(["decode", IntHyperTestSupport.samples + "/sample.wai", "--model", IntHyperTestSupport.sampleModel,
                                   "--motion-model", motion, "-o", dir + "/p.png"])
        XCTAssertEqual(picture.status, 2, picture.stderr)
    }

    /// §2, §9: a sequence made with the shipped trained set (samples/models/motion) decodes
    /// without --motion-model, to the frames the named folder gives.
    func testTheShippedTrainedSetIsFoundByTheSequencesModelSetID() throws {
        let shipped = IntHyperTestSupport.samples + "/models/motion"
        let set = try MotionModelSet.load(directory: shipped)
        XCTAssertTrue(set.name.hasPrefix("int-motion-trained-"), set.name)
        try PV.shippedSetIsFoundByID(option: "motion-model", folder: shipped, waihost: waihost)
    }
}
