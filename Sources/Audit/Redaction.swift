// Credentials never leave the process: the userinfo of a URL (`user:password@`) is replaced by
// `***@` wherever a URL is logged, put into an error, or signed into a record.

public enum Redaction {
    /// `http://u:p@host/x` → `http://***@host/x`; URLs without userinfo are returned as they are.
    public static func url(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound]) + "***" + String(rest[at...])
    }

    /// Every URL inside a message (a libcurl error, a collector's answer) redacted.
    public static func message(_ text: String) -> String {
        guard text.contains("@") else { return text }
        var out = ""
        var word = ""
        for c in text {
            if c == " " || c == "'" || c == "\"" || c == "\n" {
                out += url(word)
                out.append(c)
                word = ""
            } else {
                word.append(c)
            }
        }
        return out + url(word)
    }
}
