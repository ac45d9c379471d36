// The logical name a receipt binds a playlist to (docs/receipts.md §2): the playlist's path
// relative to the stream's root folder, so that one variant's playlist cannot be served in
// place of another's even when both files are called index.m3u8.

import Foundation

public enum ReceiptName {
    /// The name of the playlist at `url` in a stream whose top playlist is `root`: the part of
    /// url's path after root's directory ("v0/index.m3u8" for root ".../live/master.m3u8"
    /// and url ".../live/v0/index.m3u8"), else url's whole path when it lies elsewhere or on
    /// another origin. Query and fragment (e.g. CMCD=) never take part. Percent-escapes are kept
    /// as written. nil for a URL without a path.
    public static func forURL(_ url: URL, root: URL) -> String? {
        guard let path = rawPath(url), !path.isEmpty else { return nil }
        guard let rootPath = rawPath(root),
              url.scheme?.lowercased() == root.scheme?.lowercased(),
              url.host?.lowercased() == root.host?.lowercased(), url.port == root.port else { return path }
        let dir = rootPath.hasSuffix("/") ? rootPath : String(rootPath[...(rootPath.lastIndex(of: "/") ?? rootPath.startIndex)])
        if dir.hasPrefix("/"), path.hasPrefix(dir), path.count > dir.count { return String(path.dropFirst(dir.count)) }
        return path
    }

    private static func rawPath(_ url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath
    }
}
