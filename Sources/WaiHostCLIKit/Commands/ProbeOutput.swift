import WaiHost
import Foundation

/// A probe row as `--json` prints it: the library's record plus the selector and the device
/// identity (docs/cli.md, "Unit identity").
struct UnitRow: Encodable {
    var record: UnitProbeRecord
    var extra: Extra

    struct Extra: Encodable {
        var selector: String
        var deviceIdentity: DeviceIdentity?
        /// Only in `--list`: false when the unit has no cached verdict.
        var probed: Bool?
        var cacheKey: String?
        enum CodingKeys: String, CodingKey { case selector, deviceIdentity = "device_identity", probed, cacheKey = "cache_key" }
    }

    init(_ r: UnitProbeRecord, probed: Bool? = nil, cacheKey: String? = nil) {
        record = r
        let identity = DeviceIdentity(driver: r.driver)
        extra = Extra(selector: r.selector, deviceIdentity: identity.isEmpty ? nil : identity, probed: probed, cacheKey: cacheKey)
    }

    func encode(to encoder: Encoder) throws { try Merged(base: record, extra: extra).encode(to: encoder) }
}

/// `waihost probe --json`.
struct ProbeReport: Encodable {
    var hostVersion: String
    var probeSuite: String
    var units: [UnitRow]
    var warnings: [String]
    enum CodingKeys: String, CodingKey { case hostVersion = "host_version", probeSuite = "probe_suite", units, warnings }

    init(_ r: ProbeResult) {
        hostVersion = r.hostVersion; probeSuite = r.probeSuite; warnings = r.warnings
        units = r.units.map { UnitRow($0) }
    }
}

/// `waihost probe --list --json`.
struct ProbeListing: Encodable {
    var hostVersion = WaiHostVersion.string
    var probeSuite = ProbeSuite.version
    var cacheFile: String?
    var units: [UnitRow]
    var warnings: [String]
    enum CodingKeys: String, CodingKey {
        case hostVersion = "host_version", probeSuite = "probe_suite", cacheFile = "cache_file", units, warnings
    }

    init(_ l: UnitListing) {
        cacheFile = l.cacheFile; warnings = l.warnings
        units = l.entries.map { UnitRow($0.record, probed: $0.probed, cacheKey: $0.cacheKey) }
    }
}

/// The probe's text tables.
enum ProbeTable {
    static let empty = "no backends found (plugin folders: see 'waihost probe --help' and docs/cli.md)"

    static func table(_ result: ProbeResult) -> String {
        guard !result.units.isEmpty else { return empty }
        let header = ["BACKEND", "DEVICE", "UNIT", "DRIVER", "STATE", "RANK", "SPEED", "REASON"]
        let rows: [[String]] = result.units.map { u in
            [u.selector, u.device.isEmpty ? "-" : u.device, u.unit.rawValue, u.driver.isEmpty ? "-" : u.driver,
             u.state.rawValue + (u.cached ? "*" : ""), u.rank.map(String.init) ?? "-",
             u.speed.map(speedText) ?? "-", u.state == .accepted ? "" : u.reason]
        }
        var lines = render(header, rows)
        if result.units.contains(where: \.cached) {
            lines.append("* verdict from the probe cache (waihost probe --fresh to probe again)")
        }
        return lines.joined(separator: "\n")
    }

    /// `--list`: the units, their identity and the cached verdict or "not probed".
    static func listing(_ l: UnitListing) -> String {
        guard !l.entries.isEmpty else { return empty }
        // The identity column only when some unit has a PCI identity (GPUs do; CPU paths do not).
        let identities = l.entries.map { DeviceIdentity(driver: $0.record.driver).text }
        let showIdentity = identities.contains { $0 != nil }
        let header = ["BACKEND", "UNIT", "DEVICE", "DRIVER"] + (showIdentity ? ["IDENTITY"] : []) + ["VERDICT"]
        let rows: [[String]] = zip(l.entries, identities).map { e, identity in
            let r = e.record
            let verdict: String
            if r.index != nil, !e.probed {
                verdict = "not probed"
            } else if r.state == .accepted {
                verdict = "accepted" + (r.rank.map { ", rank \($0)" } ?? "") + (r.speed.map { ", " + speedText($0) } ?? "")
            } else {
                verdict = r.state.rawValue + ": " + r.reason
            }
            return [r.selector, r.unit.rawValue, r.device.isEmpty ? "-" : r.device, r.driver.isEmpty ? "-" : r.driver]
                + (showIdentity ? [identity ?? "-"] : []) + [verdict]
        }
        var lines = render(header, rows)
        lines.append("verdicts from the probe cache" + (l.cacheFile.map { " (\($0))" } ?? "") + "; 'waihost probe' probes what is not probed")
        return lines.joined(separator: "\n")
    }

    /// Columns padded to their widest cell; the last column is never padded.
    static func render(_ header: [String], _ rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for r in rows { for (i, cell) in r.enumerated() where i < r.count - 1 { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padding(widths[i]) }.joined(separator: "  ")
                .trailingSpacesRemoved
        }
        return [line(header)] + rows.map(line)
    }

    static func speedText(_ s: ProbeSpeed) -> String {
        let r = (s.runsPerSecond * 10).rounded() / 10
        return "\(r) runs/s"
    }
}

/// The probe's progress lines ("probing cpu:0 … stage arithmetic"): as they are when standard
/// error is not a terminal, and on a terminal one line per unit redrawn with the stage's
/// place in the suite as percent and ETA.
final class ProbeProgress {
    private let progress: Progress
    private var current: String?
    private let stages = ProbeStage.allCases.map(\.rawValue)

    init(enabled: Bool, progress: Progress? = nil) {
        self.progress = progress ?? Progress(enabled: enabled)
    }

    var line: ((String) -> Void)? {
        { [self] text in handle(text) }
    }

    func handle(_ text: String) {
        // "probing SEL … stage NAME" from the probe; anything else is a phase of its own.
        if let r = text.range(of: " … stage "), text.hasPrefix("probing ") {
            let unit = String(text[text.index(text.startIndex, offsetBy: 8)..<r.lowerBound])
            let stage = String(text[r.upperBound...])
            if progress.isTerminal {
                if current != unit { progress.begin("probing \(unit)"); current = unit }
                let k = stages.firstIndex(of: stage) ?? 0
                progress.update(k, of: stages.count, detail: "stage \(stage)")
            } else {
                progress.note(text)
            }
        } else {
            current = nil
            progress.begin(text)
        }
    }

    func finish() { progress.end() }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    var trailingSpacesRemoved: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
