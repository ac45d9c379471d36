// Content-Type by file extension: players pick a demuxer from it (GStreamer's souphttpsrc
// passes it on as caps), so an object must keep the type its origin name implies.

public enum ContentType {
    public static let playlist = "application/vnd.apple.mpegurl"

    /// The type for a file name such as `3fa9….m4s` or `index.m3u8`.
    public static func forName(_ name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "m3u8", "m3u": return playlist
        case "ts": return "video/mp2t"
        case "mp4", "m4v": return "video/mp4"
        case "m4s", "cmfv": return "video/iso.segment"
        case "m4a", "cmfa": return "audio/mp4"
        case "aac": return "audio/aac"
        case "ac3": return "audio/ac3"
        case "ec3", "eac3": return "audio/eac3"
        case "mp3": return "audio/mpeg"
        case "vtt", "webvtt": return "text/vtt"
        case "key": return "application/octet-stream"
        default: return "application/octet-stream"
        }
    }
}
