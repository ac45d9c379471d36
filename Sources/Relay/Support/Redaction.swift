// Origin URLs may carry credentials (`https://user:password@cdn/...`, which libcurl sends as
// Basic authentication). They are needed to fetch and never to report: every URL the relay
// logs, puts in an error or hands to an observer goes through this first.

/// `url` with the userinfo of its authority (everything before the last '@' in it) replaced by
/// `***`; unchanged when it has none. Works on any text holding one URL.
public func redactingUserinfo(_ url: String) -> String {
    guard let scheme = url.range(of: "://") else { return url }
    let rest = url[scheme.upperBound...]
    let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
    guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
    return String(url[..<scheme.upperBound]) + "***" + String(rest[at...])
}
