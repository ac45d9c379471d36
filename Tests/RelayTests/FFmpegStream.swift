import Foundation
import TestSupport

/// Tiny HLS streams written by the real ffmpeg, the packager the sealer is built for.
enum FFmpegStream {
    enum Variant: String, CaseIterable {
        case ts, fmp4, byterange, fmp4Byterange, multivariant, live
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let source = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=10", "-t", "3"]
    static let encode = ["-c:v", "libx264", "-threads", "1", "-g", "10", "-pix_fmt", "yuv420p", "-f", "hls", "-hls_time", "1"]

    /// Writes the stream into `dir` (created); the top playlist is `index.m3u8`, or
    /// `master.m3u8` for `.multivariant`.
    static func make(_ v: Variant, in dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var args = source
        switch v {
        case .ts:
            args += encode + ["-hls_playlist_type", "vod", "-hls_segment_filename", dir + "/seg%03d.ts", dir + "/index.m3u8"]
        case .fmp4:
            args += encode + ["-hls_playlist_type", "vod", "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                              "-hls_segment_filename", dir + "/seg%03d.m4s", dir + "/index.m3u8"]
        case .byterange:
            args += encode + ["-hls_playlist_type", "vod", "-hls_flags", "single_file", dir + "/index.m3u8"]
        case .fmp4Byterange:
            args += encode + ["-hls_playlist_type", "vod", "-hls_segment_type", "fmp4", "-hls_flags", "single_file", dir + "/index.m3u8"]
        case .multivariant:
            args += ["-map", "0:v", "-map", "0:v", "-c:v", "libx264", "-threads", "1", "-g", "10", "-pix_fmt", "yuv420p",
                     "-b:v:0", "200k", "-b:v:1", "80k", "-s:v:1", "48x32", "-f", "hls", "-hls_time", "1",
                     "-hls_playlist_type", "vod", "-var_stream_map", "v:0 v:1", "-master_pl_name", "master.m3u8",
                     "-hls_segment_filename", dir + "/stream_%v_%03d.ts", dir + "/stream_%v.m3u8"]
        case .live:
            args += encode + ["-hls_list_size", "2", "-hls_flags", "omit_endlist", "-start_number", "5",
                              "-hls_segment_filename", dir + "/live%03d.ts", dir + "/index.m3u8"]
        }
        let r = try Subprocess("/usr/bin/ffmpeg", args).run()
        guard r.status == 0 else { throw Failure(description: "ffmpeg \(v): status \(r.status): \(r.stderrText)") }
    }

    /// `ffmpeg -i PLAYLIST -f framemd5 -`: one line per decoded frame. ffmpeg exits 0 even
    /// when segments fail, so callers compare the frame lines, not the status.
    /// `live`: the playlist has no EXT-X-ENDLIST, and ffmpeg would wait for more segments
    /// forever; a copy with EXT-X-ENDLIST appended (after the receipt line, where there is
    /// one) is played instead.
    static func framemd5(_ playlist: String, live: Bool = false) throws -> [String] {
        var playlist = playlist
        if live {
            let ended = (playlist as NSString).deletingLastPathComponent + "/.ended-" + (playlist as NSString).lastPathComponent
            var bytes = try Data(contentsOf: URL(fileURLWithPath: playlist))
            bytes.append(contentsOf: Array("#EXT-X-ENDLIST\n".utf8))
            try bytes.write(to: URL(fileURLWithPath: ended))
            playlist = ended
        }
        let r = try Subprocess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", playlist, "-map", "0:v", "-f", "framemd5", "-"]).run()
        return r.stdoutText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }
}
