import WaiHost

/// Options the picture-codec commands (encode, decode, bench) share.
enum CodecOptions {
    /// "WxH" → (width, height).
    static func size(_ text: String, flag: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...RGB8Image.maximumDimension).contains(w), (1...RGB8Image.maximumDimension).contains(h) else {
            throw UsageError(message: "\(flag) needs WIDTHxHEIGHT with each in 1…\(RGB8Image.maximumDimension), got \(text)")
        }
        return (w, h)
    }

    /// `--backend NAME[:INDEX]`: always a backend name, even one spelled like a unit kind.
    static func backendSelection(_ text: String) throws -> UnitSelection {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty, parts.count <= 2 else {
            throw UsageError(message: "--backend needs NAME or NAME:INDEX, got \(text)")
        }
        if parts.count == 1 { return .backend(String(name)) }
        guard let index = Int(parts[1]), index >= 0 else {
            throw UsageError(message: "--backend \(text): unit index '\(parts[1])' is not a non-negative integer")
        }
        return .backendUnit(String(name), index)
    }

    static func unsigned(_ text: String, flag: String, range: ClosedRange<Int>? = nil) throws -> Int {
        guard let v = Int(text), v >= 0, range?.contains(v) ?? true else {
            let within = range.map { " in \($0.lowerBound)…\($0.upperBound)" } ?? ""
            throw UsageError(message: "\(flag) needs an integer\(within), got \(text)")
        }
        return v
    }

    /// Milliseconds with one decimal.
    static func ms(_ v: Double) -> String {
        let tenths = (v * 10).rounded()
        return "\(Int(tenths) / 10).\(abs(Int(tenths)) % 10) ms"
    }

    static func ratio(_ v: Double) -> String {
        let hundredths = Int((v * 100).rounded())
        let frac = hundredths % 100
        return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac)"
    }

    static let selectionHelp = """
          --unit SEL         best (default), reference, cpu, gpu, other, NAME or NAME:INDEX
          --backend NAME[:INDEX]
                             force that backend (or one unit of it); same as --unit NAME
        """
}
