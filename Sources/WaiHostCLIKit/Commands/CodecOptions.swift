import WaiHost

/// Options the picture-codec commands (encode, decode, bench) and run-graph share.
enum CodecOptions {
    static let unit = OptionSpec.value("unit", "SEL", help: "best (default), reference, cpu, gpu, other, NAME or NAME:INDEX (docs/cli.md, run-graph)",
                                       completion: .words(["best", "reference", "cpu", "gpu", "other"]))
    static let backend = OptionSpec.value("backend", "NAME[:INDEX]", help: "force that backend (or one unit of it), even one named like a unit kind")
    static let selectionOptions = [unit, backend]
    /// encode, decode and bench: without a selection, the configured default unit
    /// (docs/configuration.md §3, `unit`).
    static let configuredSelectionOptions = [
        OptionSpec.value("unit", "SEL", help: "best, reference, cpu, gpu, other, NAME or NAME:INDEX (docs/cli.md, run-graph); default: the configured unit (WAIHOST_UNIT, waihost.conf), else best",
                         completion: unit.completion),
        backend,
    ]

    /// `--unit SEL` or `--backend NAME[:INDEX]` (the spec makes them exclusive); nil when neither.
    static func selection(_ p: ParsedArguments) throws(UsageError) -> UnitSelection? {
        if let text = p.value("unit") {
            do { return try UnitSelection(parsing: text) } catch { throw p.error("--unit: \(error)") }
        }
        if let text = p.value("backend") { return try backendSelection(text, p) }
        return nil
    }

    /// `--backend NAME[:INDEX]`: always a backend name, even one spelled like a unit kind.
    static func backendSelection(_ text: String, _ p: ParsedArguments) throws(UsageError) -> UnitSelection {
        do { return try UnitSelection(backendNaming: text) } catch { throw p.error("--backend \(text): \(error.selectionReason)") }
    }

    /// `--long WxH` → (width, height).
    static func size(_ p: ParsedArguments, _ long: String) throws(UsageError) -> (width: Int, height: Int)? {
        let limit = RGB8Image.maximumDimension
        return try p.value(long, expected: "WIDTHxHEIGHT with each in 1…\(limit)") { text -> (width: Int, height: Int)? in
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  (1...limit).contains(w), (1...limit).contains(h) else { return nil }
            return (w, h)
        }
    }

    /// How `encode` ends, for a picture and a sequence alike: the summary as one JSON object,
    /// or its `first` line, the model set and where the graphs ran; on standard error when
    /// standard output carries the payload (`-o -`).
    static func printEncodeSummary<Summary: Encodable>(_ summary: Summary, schema: Schema, json: Bool, output: String,
                                                       set: IntHyperModelSet, unit: UnitKind, backend: String,
                                                       elapsedMs: Double, first: String) throws {
        let emit: (String) -> Void = output == "-" ? Output.err : Output.out
        if json {
            emit(try JSON.report(summary, schema: schema))
        } else {
            emit(first)
            emit("model set \(set.name) version \(set.version), id \(set.idHex)")
            emit("graphs ran on \(unit) (\(backend)) in \(ms(elapsedMs)) total")
        }
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
}
