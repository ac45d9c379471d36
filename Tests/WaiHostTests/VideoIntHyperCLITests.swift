import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// `wai.video.int_hyper` as a user meets it (docs/capabilities/video_int_hyper.md §8–§10):
/// `waihost encode/decode` on the bundled clip and on clips made at test time, the Y4M played
/// by real players (ffmpeg's framehash and framemd5, GStreamer's y4mdec and checksumsink)
/// whose per-frame hashes must be the decoder's own, every unit giving the same frames, and
/// `--frames A..B` giving exactly those frames.
final class VideoIntHyperCLITests: XCTestCase {
    override class func tearDown() { IntHyperTestSupport.removeTemporaryDirectories() }

    typealias Run = CLIRun

    /// `executable args`, with `plugins` as the only plugin folder (none when nil).
    func run(_ executable: String, _ args: [String], plugins: String? = nil) throws -> Run {
        try CLIRun.run(executable, args, environment: ["WAI_PLUGIN_PATH": plugins])
    }

    func waihost(_ args: [String], plugins: String? = nil) throws -> Run {
        try run(TestPaths.waihost, args, plugins: plugins)
    }

    func shell(_ script: String) throws -> Run { try run("/bin/bash", ["-o", "pipefail", "-c", script]) }

    struct Golden: Decodable {
        struct Frame: Decodable { var index: Int; var sha256: String; var rgb_sha256: String }
        var width: Int; var height: Int; var chroma: String; var y4m_chroma: String; var frame_count: Int
        var frames: [Frame]
    }

    func golden() throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(try IntHyperTestSupport.read(IntHyperTestSupport.samples + "/clip.json")))
    }

    var clip: String { IntHyperTestSupport.samples + "/clip.wai" }

    func report(_ text: String) throws -> VideoDecodeReport {
        try JSONDecoder().decode(VideoDecodeReport.self, from: Data(text.utf8))
    }

    /// The frames' plane bytes of a Y4M file, read with this test's own minimal parsing.
    func y4mFrames(_ bytes: [UInt8], frameBytes: Int) -> [[UInt8]] {
        guard let headerEnd = bytes.firstIndex(of: 0x0A) else { return [] }
        var frames: [[UInt8]] = [], at = headerEnd + 1
        while at + 6 + frameBytes <= bytes.count {
            frames.append(Array(bytes[(at + 6)..<(at + 6 + frameBytes)]))
            at += 6 + frameBytes
        }
        return frames
    }

    /// ffmpeg's per-frame hash lines (`framehash`/`framemd5`): the last column.
    func hashColumn(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
    }

    func md5(_ bytes: [UInt8]) throws -> String {
        let dir = try IntHyperTestSupport.temporaryDirectory("md5")
        try IntHyperTestSupport.write(bytes, dir + "/f")
        let r = try run("/usr/bin/md5sum", [dir + "/f"])
        return String(r.text.prefix(32))
    }

    func testBundledClipPlaysInFFmpegAndGStreamerWithTheDecodersFrameHashes() throws {
        let g = try golden()
        let dir = try IntHyperTestSupport.temporaryDirectory("clip")
        let out = dir + "/out.y4m"
        let d = try waihost(["decode", clip, "-o", out, "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try report(d.text)
        XCTAssertEqual(r.capability, "wai.video.int_hyper")
        XCTAssertEqual([r.width, r.height, r.frameCount, r.firstFrame, r.lastFrame], [64, 48, 6, 0, 5])
        XCTAssertEqual(r.frameRate, Rational(25, 1))
        XCTAssertEqual(r.y4mChroma, "C420jpeg")
        XCTAssertEqual(r.backend, "reference")
        XCTAssertEqual(r.units.map(\.frames), [6])
        XCTAssertEqual(r.frames.map(\.sha256), g.frames.map(\.sha256))
        XCTAssertEqual(r.frames.map(\.rgbSHA256), g.frames.map(\.rgb_sha256))
        XCTAssertEqual(r.frames.map(\.time), [0, 0.04, 0.08, 0.12, 0.16, 0.2])

        let bytes = try IntHyperTestSupport.read(out)
        XCTAssertTrue(bytes.starts(with: Array("YUV4MPEG2 W64 H48 F25:1 Ip A0:0 C420jpeg\n".utf8)))
        let frames = y4mFrames(bytes, frameBytes: 64 * 48 * 3 / 2)
        XCTAssertEqual(frames.map { SHA256.hex($0) }, g.frames.map(\.sha256))

        // ffmpeg: SHA-256 of each decoded frame equals the decoder's; MD5 (framemd5) equals
        // the MD5 of each frame's bytes in the file.
        let sha = try run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", out,
                                              "-f", "framehash", "-hash", "sha256", "-"])
        XCTAssertEqual(sha.status, 0, sha.stderr)
        XCTAssertEqual(hashColumn(sha.text), g.frames.map(\.sha256))
        let md5 = try run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", out, "-f", "framemd5", "-"])
        XCTAssertEqual(md5.status, 0, md5.stderr)
        XCTAssertEqual(hashColumn(md5.text), try frames.map { try self.md5($0) })
        XCTAssertEqual(hashColumn(md5.text).count, 6)

        // GStreamer: y4mdec demuxes it and checksumsink hashes each buffer; decodebin plays it
        // to the end without an error.
        let gst = try run("/usr/bin/gst-launch-1.0", ["-q", "filesrc", "location=\(out)", "!", "y4mdec", "!", "checksumsink", "hash=sha256"])
        XCTAssertEqual(gst.status, 0, gst.stderr)
        XCTAssertEqual(gst.text.split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }, g.frames.map(\.sha256))
        let play = try run("/usr/bin/gst-launch-1.0", ["filesrc", "location=\(out)", "!", "decodebin", "!", "videoconvert", "!", "fakesink"])
        XCTAssertEqual(play.status, 0, play.stderr + play.text)
        XCTAssertTrue(play.text.contains("Got EOS"), play.text)

        // The RGB8 frames are the model's own output: their hashes are the report's rgb_sha256.
        let rgb = try waihost(["decode", clip, "-o", dir + "/out.rgb", "--unit", "reference"])
        XCTAssertEqual(rgb.status, 0, rgb.stderr)
        let rows = try IntHyperTestSupport.read(dir + "/out.rgb")
        XCTAssertEqual(rows.count, 6 * 64 * 48 * 3)
        XCTAssertEqual((0..<6).map { SHA256.hex(Array(rows[($0 * 9216)..<(($0 + 1) * 9216)])) }, g.frames.map(\.rgb_sha256))
    }

    func testFramesRangeGivesExactlyThoseFramesAndPipesIntoFFmpeg() throws {
        let g = try golden()
        let piped = try shell("\"$WAIHOST\" decode '\(clip)' -o - --frames 2..4 --unit reference 2>/dev/null "
            + "| ffmpeg -hide_banner -loglevel error -f yuv4mpegpipe -i - -f framehash -hash sha256 -")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(hashColumn(piped.text), g.frames[2...4].map(\.sha256))

        let d = try waihost(["decode", clip, "-o", "-", "--frames", "3..3", "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try report(d.stderr)   // with -o -, the report goes to standard error
        XCTAssertEqual(r.frames.map(\.index), [3])
        XCTAssertEqual([r.firstFrame, r.lastFrame, r.frameCount], [3, 3, 6])
        let frames = y4mFrames(d.stdout, frameBytes: 4608)
        XCTAssertEqual(frames.map { SHA256.hex($0) }, [g.frames[3].sha256])

        let outside = try waihost(["decode", clip, "-o", "-", "--frames", "4..6", "--unit", "reference"])
        XCTAssertEqual(outside.status, 1)
        XCTAssertTrue(outside.stderr.contains("frames 4..6 are not inside the sequence's 6 frames (0..5)"), outside.stderr)
        XCTAssertTrue(outside.stdout.isEmpty, "nothing is written for a refused range")
        let malformed = try waihost(["decode", clip, "-o", "-", "--frames", "3-4"])
        XCTAssertEqual(malformed.status, 2, malformed.stderr)
        let picture = try waihost(["decode", IntHyperTestSupport.samples + "/sample.wai", "--model", IntHyperTestSupport.sampleModel,
                                   "-o", "-", "--frames", "0..0"])
        XCTAssertEqual(picture.status, 2, picture.stderr)
    }

    /// Every unit this machine has (each CPU path, lavapipe, PoCL when their plugins list a
    /// unit) decodes the clip to the golden frames; a unit change mid-sequence changes no
    /// byte and the report counts the frames of each unit. (The dispatch through a probe is
    /// IntHyperCLITests' subject: a debug-built probe takes minutes.)
    func testEveryUnitDecodesTheClipToTheSameFrames() throws {
        let g = try golden()
        let set = try IntHyperModelSet.load(directory: IntHyperTestSupport.samples + "/models/q2")
        let opened = try VideoIntHyperCodec.open(try IntHyperTestSupport.read(clip))
        var covered: [String] = []
        for name in ["libWaiCPUBackend.so", "libWaiVulkanBackend.so", "libWaiOpenCLBackend.so"] {
            let path = TestPaths.product(name)
            guard let plugin = try? BackendPlugin.load(path: path), let units = try? plugin.units() else {
                XCTAssertNotEqual(name, "libWaiCPUBackend.so", "the CPU backend must load")
                continue
            }
            for unit in units.indices {
                let runner = PluginGraphRunner(plugin: plugin, unit: unit)
                var hashes: [String] = []
                try VideoIntHyperCodec.decode(opened, modelSet: set, runner: runner) { hashes.append(SHA256.hex($0.planes)) }
                XCTAssertEqual(hashes, g.frames.map(\.sha256), "\(plugin.name):\(unit) \(units[unit].device)")
                covered.append("\(plugin.name):\(unit)")
            }
        }
        XCTAssertTrue(covered.contains("cpu:0"), "\(covered)")
        print("video int_hyper clip decoded identically on: \(covered.joined(separator: ", "))")


        // A unit lost mid-sequence: the host moves the remaining runs to the next unit (here
        // the reference). The frames are the same bytes and the report counts frames per unit.
        let cpu = try BackendPlugin.load(path: TestPaths.product("libWaiCPUBackend.so"))
        let switching = SwitchingRunner(first: PluginGraphRunner(plugin: cpu, unit: 0), runs: 6, then: HostGraphRunner.reference())
        var report = VideoDecodeReport(opened, modelSet: set, range: 0...5, output: nil, outputFormat: "y4m")
        try VideoIntHyperCodec.decode(opened, modelSet: set, runner: switching) { report.add($0) }
        report.finish(totalMs: 1)
        XCTAssertEqual(report.frames.map(\.sha256), g.frames.map(\.sha256))
        XCTAssertEqual(report.backend, "cpu", "the sequence is named after the unit of its first frame")
        XCTAssertEqual(report.units.map { "\($0.backend):\($0.frames)" }, ["cpu:3", "reference:3"])
        XCTAssertEqual(report.frames.map(\.backend), ["cpu", "cpu", "cpu", "reference", "reference", "reference"])
    }

    /// A clip made at test time from the bundled photograph (a pan of 64×48 windows), as Y4M
    /// from this host's writer and from ffmpeg on a pipe, encoded with the shipped set q2.
    func testEncodeY4MFromThisWriterAndFromFFmpegThenDecode() throws {
        let photo = try PictureFile.read(path: IntHyperTestSupport.samples + "/photo.png")
        let pan = try (0..<3).map { n -> RGB8Image in
            let x0 = 300 + 5 * n, y0 = 100 + 3 * n
            var rows: [UInt8] = []
            for i in 0..<48 {
                let start: Int = ((y0 + i) * photo.width + x0) * 3
                rows += photo.pixels[start..<(start + 64 * 3)]
            }
            return try RGB8Image(width: 64, height: 48, pixels: rows)
        }
        let dir = try IntHyperTestSupport.temporaryDirectory("encode")
        let header = Y4MHeader(width: 64, height: 48, frameRate: Rational(30000, 1001), aspect: Rational(1, 1), chroma: .c420mpeg2)
        let y4m = try pan.reduce(header.serialized()) { $0 + (try Y4MWriter.frame(YCbCrBT601.planes($1, chroma: .c420mpeg2), header: header)) }
        try IntHyperTestSupport.write(y4m, dir + "/in.y4m")
        let e = try waihost(["encode", dir + "/in.y4m", "-o", dir + "/a.wai", "--quality", "2", "--unit", "reference", "--json"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.text.contains("\"frames\" : 3"), e.text)
        let d = try waihost(["decode", dir + "/a.wai", "-o", dir + "/a.y4m", "--unit", "reference", "--json"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let r = try report(d.text)
        XCTAssertEqual(r.frameRate, Rational(30000, 1001))
        XCTAssertEqual(r.chroma, .yuv420)
        XCTAssertEqual(r.frames.count, 3)
        // The decoded frames are a soft copy of the pan: Y within a few levels on average.
        let decoded = y4mFrames(try IntHyperTestSupport.read(dir + "/a.y4m"), frameBytes: 4608)
        for (k, frame) in decoded.enumerated() {
            let original = Array(y4m[(y4m.count - (3 - k) * 4614 + 6)...].prefix(3072))
            var total = 0
            for (a, b) in zip(frame.prefix(3072), original) { total += abs(Int(a) - Int(b)) }
            let mad = total / 3072
            XCTAssertLessThan(mad, 12, "frame \(k)")
        }

        // The same frames as RGB → ffmpeg → Y4M on a pipe → waihost encode -.
        try IntHyperTestSupport.write(pan.flatMap { $0.pixels }, dir + "/pan.rgb")
        let piped = try shell("ffmpeg -hide_banner -loglevel error -f rawvideo -pix_fmt rgb24 -s 64x48 -r 24 -i '\(dir)/pan.rgb' "
            + "-pix_fmt yuv420p -f yuv4mpegpipe - | \"$WAIHOST\" encode - -o '\(dir)/b.wai' --quality 2 --unit reference")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let b = try waihost(["decode", dir + "/b.wai", "-o", dir + "/b.y4m", "--unit", "reference", "--json"])
        XCTAssertEqual(b.status, 0, b.stderr)
        let rb = try report(b.text)
        XCTAssertEqual(rb.frameRate, Rational(24, 1))
        XCTAssertEqual(rb.frames.count, 3)

        // .rgb frames with --fps are an rgb sequence: coded as they are, written as C444, and the
        // RGB8 output is the model's rows.
        let e3 = try waihost(["encode", dir + "/pan.rgb", "--size", "64x48", "--fps", "12/1", "-o", dir + "/c.wai", "--quality", "2",
                              "--unit", "reference"])
        XCTAssertEqual(e3.status, 0, e3.stderr)
        let c = try waihost(["decode", dir + "/c.wai", "-o", dir + "/c.y4m", "--unit", "reference", "--json"])
        XCTAssertEqual(c.status, 0, c.stderr)
        let rc = try report(c.text)
        XCTAssertEqual(rc.chroma, .rgb)
        XCTAssertEqual(rc.y4mChroma, "C444")
        let c444 = try IntHyperTestSupport.read(dir + "/c.y4m")
        XCTAssertTrue(c444.starts(with: Array("YUV4MPEG2 W64 H48 F12:1 Ip A0:0 C444\n".utf8)))
        let sha444 = try run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", dir + "/c.y4m",
                                                 "-f", "framehash", "-hash", "sha256", "-"])
        XCTAssertEqual(hashColumn(sha444.text), rc.frames.map(\.sha256))
        XCTAssertEqual(y4mFrames(c444, frameBytes: 3 * 3072).map { SHA256.hex($0) }, rc.frames.map(\.sha256))

        // A Y4M stream cut inside frame 2 is refused naming the frame and the byte.
        try IntHyperTestSupport.write(Array(y4m.prefix(header.serialized().count + 2 * 4614 + 100)), dir + "/cut.y4m")
        let cut = try waihost(["encode", dir + "/cut.y4m", "-o", dir + "/cut.wai", "--quality", "2", "--unit", "reference"])
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderr.contains("Y4M frame 2 at byte \(header.serialized().count + 2 * 4614 + 6): truncated frame"), cut.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cut.wai"))
    }
}

/// The first `runs` graph runs on one runner, the rest on another (h_s and g_s: two runs a frame).
final class SwitchingRunner: GraphRunner {
    let first: GraphRunner, then: GraphRunner
    var left: Int
    init(first: GraphRunner, runs: Int, then: GraphRunner) { self.first = first; self.left = runs; self.then = then }
    func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
        left -= 1
        return try (left >= 0 ? first : then).run(graph, inputs: inputs)
    }
}
