/// Where a run goes: a probed unit that passed, or the reference interpreter.
public enum DispatchChoice: Equatable, Sendable {
    case unit(UnitProbeRecord, DispatchKind, reason: String)
    case reference(DispatchKind, reason: String)
}

/// Turns a selection and a probe result into a choice. Only accepted units are ever
/// chosen (invariant 1), and for a given graph only units accepted for every op it holds
/// (docs/probe.md §2, "Per-op acceptance"); a forced unit that did not pass is replaced by
/// the best accepted unit, or the reference interpreter, and the report says so with the
/// probe's reason.
public enum Dispatcher {
    public static func choose(_ selection: UnitSelection, in probe: ProbeResult,
                              graph: IntegerGraph? = nil) throws -> DispatchChoice {
        let all = probe.accepted
        let accepted = graph.map { g in all.filter { $0.coverage?.refusal(for: g) == nil } } ?? all
        let unitRows = probe.units.filter { $0.index != nil }
        switch selection {
        case .reference:
            return .reference(.forced, reason: "the reference interpreter was requested")
        case .best:
            guard let first = accepted.first else {
                if let g = graph, let best = all.first, let r = best.coverage?.refusal(for: g) {
                    return .reference(.noAcceptedUnit, reason: "no accepted unit can run this graph (\(best.selector): \(r)); the reference interpreter runs the graph")
                }
                return .reference(.noAcceptedUnit, reason: noAcceptedReason(probe))
            }
            return .unit(first, .rankedFirst, reason: rankedReason(first, of: accepted.count))
        case .kind, .backend, .backendUnit:
            let matching = unitRows.filter { matches(selection, $0) }
            guard !matching.isEmpty else {
                throw HostError.noSuchUnit(selection: selection.description, available: unitRows.map(\.selector))
            }
            if let chosen = accepted.first(where: { matches(selection, $0) }) {
                return .unit(chosen, .forced, reason: "\(chosen.selector) was requested (\(selection)); rank \(chosen.rank ?? 0) of \(accepted.count)")
            }
            let refused = matching[0]
            var why = "\(selection) was requested, but \(refused.selector) is \(refused.state.rawValue): \(refused.reason)"
            if refused.state == .accepted, let g = graph, let r = refused.coverage?.refusal(for: g) {
                why = "\(selection) was requested, but \(refused.selector) cannot run this graph: \(r)"
            }
            if let best = accepted.first {
                return .unit(best, .dispatchUnitInexact, reason: "\(why); running on \(best.selector), rank 1 of accepted units, instead")
            }
            return .reference(.dispatchUnitInexact, reason: "\(why); no unit is accepted, so the reference interpreter runs the graph")
        }
    }

    static func matches(_ selection: UnitSelection, _ row: UnitProbeRecord) -> Bool {
        switch selection {
        case .kind(let k): return row.unit.kind == k && row.index != nil
        case .backend(let name): return row.backend == name && row.index != nil
        case let .backendUnit(name, index): return row.backend == name && row.index == index
        case .best, .reference: return false
        }
    }

    static func rankedReason(_ row: UnitProbeRecord, of count: Int) -> String {
        let speed = row.speed.map { String(format1($0.runsPerSecond)) + " runs/s on the calibration graph" } ?? "speed unknown"
        return "ranked first of \(count) accepted unit\(count == 1 ? "" : "s") (\(speed))"
    }

    static func noAcceptedReason(_ probe: ProbeResult) -> String {
        let probed = probe.units.filter { $0.index != nil }.count
        return probed == 0 ? "no backend unit was found; the reference interpreter runs the graph"
                           : "none of the \(probed) probed unit\(probed == 1 ? " is" : "s is") accepted; the reference interpreter runs the graph"
    }

    /// One decimal, without Foundation's formatters.
    static func format1(_ v: Double) -> String {
        guard v.isFinite else { return "\(v)" }
        let tenths = (v * 10).rounded()
        let whole = Int(tenths / 10)
        let frac = Int(abs(tenths).truncatingRemainder(dividingBy: 10))
        return "\(whole).\(frac)"
    }
}
