// Rewriting URIs in place: the only bytes that change are the URIs themselves, so tags the
// relay does not understand (EXT-X-DATERANGE, ad markers, vendor tags) pass through exactly.

extension Playlist {
    /// Returns the playlist with every reference's URI replaced by `transform(reference)`;
    /// nil from `transform` keeps that URI. The result is parsed again, so its references and
    /// segments describe the rewritten text. A replacement that cannot be written where the
    /// URI stands (a '"' or control character in a quoted attribute, a line URI that is empty
    /// or starts with '#', surrounding whitespace) throws PlaylistError naming the line.
    public func rewritingURIs(_ transform: (URIReference) throws -> String?) throws -> Playlist {
        var byLine: [Int: [(URIReference, String)]] = [:]
        for r in references {
            guard let replacement = try transform(r), replacement != r.uri else { continue }
            try Self.checkReplacement(replacement, for: r)
            byLine[r.line, default: []].append((r, replacement))
        }
        if byLine.isEmpty { return self }
        var newLines = lines
        for (number, edits) in byLine {
            let index = number - 1
            var bytes = Array(lines[index].text.utf8)
            // Right to left, so earlier offsets stay valid.
            for (r, replacement) in edits.sorted(by: { ($0.0.valueRange?.lowerBound ?? 0) > ($1.0.valueRange?.lowerBound ?? 0) }) {
                let range = r.valueRange ?? 0..<bytes.count
                bytes.replaceSubrange(range, with: Array(replacement.utf8))
            }
            let old = lines[index]
            newLines[index] = PlaylistLine(number: old.number, text: String(decoding: bytes, as: UTF8.self), terminator: old.terminator)
        }
        var out: [UInt8] = []
        for l in newLines {
            out.append(contentsOf: l.text.utf8)
            out.append(contentsOf: l.terminator.utf8)
        }
        // Local URIs are longer than the origin's: the bounds were applied to the input.
        return try Playlist.parse(out, limits: PlaylistLimits(maxBytes: .max, maxLines: .max))
    }

    static func checkReplacement(_ s: String, for r: URIReference) throws(PlaylistError) {
        guard !s.isEmpty else { throw PlaylistError(line: r.line, "replacement for \(r.kind.rawValue) URI '\(r.uri)' is empty") }
        if s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw PlaylistError(line: r.line, "replacement for '\(r.uri)' contains a control character")
        }
        if s.first == " " || s.last == " " {
            throw PlaylistError(line: r.line, "replacement for '\(r.uri)' has surrounding spaces")
        }
        if r.valueRange != nil {
            if s.contains("\"") { throw PlaylistError(line: r.line, "replacement for '\(r.uri)' contains '\"'") }
        } else if s.hasPrefix("#") {
            throw PlaylistError(line: r.line, "replacement for '\(r.uri)' starts with '#'")
        }
    }
}
