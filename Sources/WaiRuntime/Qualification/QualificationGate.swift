/// The dispatcher's one question about qualification (docs/probe.md §9): may this unit run
/// this model graph? Answered from the verdicts known (this host's, then the cache file),
/// or by qualifying now.
enum QualificationGate {
    enum Decision {
        /// Qualified: run it; the note goes into the report.
        case run(QualificationNote)
        /// Not qualified: choose again without this unit; `reason` carries the evidence.
        case refuse(QualificationNote, reason: String)
        /// The unit failed while being qualified (crash, error): treated like a run failure.
        case unitFailed(String)
    }

    static func decide(_ row: UnitProbeRecord, graph: IntegerGraph, model: ModelGraphID, book: QualificationBook,
                       run: (IntegerGraph, [TensorValue]) throws -> [TensorValue]) throws -> Decision {
        guard let ref = row.ref else { return .unitFailed("\(row.selector): the row names no unit") }
        let key = row.pluginSHA256.map { QualificationCache.key(row, pluginSHA256: $0, model: model) }
        let verdict: QualificationVerdict, cached: Bool
        var elapsed: Double?
        var warnings: [String] = []
        if let key, let known = book.verdict(key, warn: { warnings.append($0) }) {
            (verdict, cached) = (known, true)
        } else {
            let start = Stopwatch.now()
            do { verdict = try ModelQualification.qualify(graph, model: model, run: run) } catch let e as ModelQualification.UnitFailure {
                return .unitFailed("\(row.selector) failed while being qualified for \(model.description): \(e)")
            }
            cached = false
            elapsed = Stopwatch.now() - start
            if let key {
                book.record(key, QualificationCache.Entry(verdict: verdict, backend: row.backend, unit: ref,
                                                          device: row.device, driver: row.driver),
                            warn: { warnings.append($0) })
            }
        }
        var note = QualificationNote(unit: ref, verdict: verdict, cached: cached, milliseconds: elapsed)
        note.warning = warnings.isEmpty ? nil : warnings.joined(separator: "; ")
        guard verdict.state == .unqualified else { return .run(note) }
        return .refuse(note, reason: "\(row.selector) is not qualified for \(model.description)"
            + "\(cached ? " (cached verdict)" : ""): \(verdict.reason)")
    }
}
