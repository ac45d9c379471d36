// Relative URI resolution (RFC 8216 §4.1: against the playlist's URI; RFC 3986 §5.2). The
// base must be the URL the playlist was finally fetched from, after redirects.
// Foundation's URL(string:relativeTo:) implements RFC 3986 §5.2 correctly for every example
// in §5.4 (PlaylistTests checks them all) except the empty reference, handled here.

import Foundation

public enum URIResolution {
    /// The absolute URL `reference` names when read in a playlist fetched from `base`; nil
    /// when `reference` is not a valid URI reference.
    public static func resolve(_ reference: String, against base: URL) -> URL? {
        if reference.isEmpty {
            // RFC 3986 §5.2.2: the base without its fragment.
            guard var c = URLComponents(url: base, resolvingAgainstBaseURL: true) else { return nil }
            c.fragment = nil
            return c.url
        }
        guard let u = URL(string: reference, relativeTo: base) else { return nil }
        return URL(string: u.absoluteString)
    }
}
