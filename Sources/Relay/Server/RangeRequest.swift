// The Range header (RFC 9110 §14): the only header value the relay interprets itself, because
// libmicrohttpd leaves ranges to the application.

/// What a Range header asks of an object of a known length.
public enum RangeRequest: Equatable, Sendable {
    /// No Range header, or one the server may ignore (several ranges, another unit):
    /// answer 200 with the whole object.
    case whole
    /// One satisfiable range, inclusive bounds: answer 206.
    case range(first: Int, last: Int)
    /// A syntactically valid byte range that lies outside the object: answer 416.
    case unsatisfiable

    /// Interprets `header` for an object of `length` bytes.
    public init(header: String?, length: Int) {
        guard let header = header else { self = .whole; return }
        let trimmed = header.trimmingSpaces()
        guard trimmed.lowercased().hasPrefix("bytes=") else { self = .whole; return }
        let spec = trimmed.dropFirst("bytes=".count).trimmingSpaces()
        // Several ranges would need multipart/byteranges; RFC 9110 lets a server send 200.
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let firstText = spec[spec.startIndex..<dash].trimmingSpaces()
        let lastText = spec[spec.index(after: dash)...].trimmingSpaces()
        if firstText.isEmpty {
            // Suffix range: the last N bytes.
            guard let n = Int(lastText), n >= 0 else { self = .whole; return }
            guard n > 0, length > 0 else { self = .unsatisfiable; return }
            self = .range(first: max(0, length - n), last: length - 1)
            return
        }
        guard let first = Int(firstText), first >= 0 else { self = .whole; return }
        var last = length - 1
        if !lastText.isEmpty {
            guard let l = Int(lastText), l >= first else { self = .whole; return }
            last = min(l, length - 1)
        }
        guard first < length else { self = .unsatisfiable; return }
        self = .range(first: first, last: last)
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
