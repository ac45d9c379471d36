import WaiSupport
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// `waihost probe NAME[:INDEX]`: one backend in detail (like gst-inspect-1.0 NAME). Its units
/// are probed when their verdict is not cached (the detail is the verdict's), then shown with
/// the ops and widths each was found exact on, the ops it refused, its memory limit, speed
/// and probe cache entry.
enum ProbeDetail {
    struct Report: Encodable {
        var backend: String
        var path: String
        var backendVersion: String?
        var pluginSHA256: String?
        var cacheFile: String?
        var cacheAgeSeconds: Int?
        var units: [Unit]
        enum CodingKeys: String, CodingKey {
            case backend, path, backendVersion = "backend_version", pluginSHA256 = "plugin_sha256"
            case cacheFile = "cache_file", cacheAgeSeconds = "cache_age_seconds", units
        }
    }

    struct Unit: Encodable {
        var row: UnitRow
        func encode(to encoder: Encoder) throws { try row.encode(to: encoder) }
    }

    static func run(host: BackendHost, name: String, index: Int?, json: Bool, quiet: Bool) throws -> Int32 {
        // Which units exist comes from the listing; their verdicts from the probe (cached
        // ones are reused, so a warm host probes nothing).
        let listing = host.listUnits()
        let mine = listing.entries.filter { $0.record.backend == name && (index == nil || $0.record.index == index) }
        guard !mine.isEmpty else {
            let units = listing.entries.filter { $0.record.index != nil }.map(\.record.selector)
            let what = index.map { "\(name):\($0)" } ?? name
            throw CLIError(.unitSelection, "no backend unit matches \"\(what)\"; "
                + (units.isEmpty ? "no units exist (no plugin loaded)" : "units that exist: " + units.joined(separator: ", ")))
        }
        var rows = mine.map(\.record)
        if mine.contains(where: { !$0.probed }) {
            let progress = ProbeProgress(enabled: !quiet)
            let probed = try host.probe(progress: progress.line)
            progress.finish()
            rows = probed.units.filter { r in mine.contains { $0.record.path == r.path && $0.record.index == r.index } }
        }
        let keys = Dictionary(mine.compactMap { e in e.record.index.map { ($0, e.cacheKey) } }, uniquingKeysWith: { a, _ in a })
        let first = rows[0]
        let age = listing.cacheFile.flatMap(fileAge)
        let report = Report(backend: name, path: first.path, backendVersion: first.backendVersion,
                            pluginSHA256: first.pluginSHA256, cacheFile: listing.cacheFile, cacheAgeSeconds: age,
                            units: rows.map { Unit(row: UnitRow($0, probed: true, cacheKey: $0.index.flatMap { keys[$0] ?? nil })) })
        Output.out(json ? try JSON.report(report, schema: .probeUnit) : text(report))
        return ExitCode.ok
    }

    static func text(_ r: Report) -> String {
        var lines = ["backend:        \(r.backend)" + (r.backendVersion.map { " version \($0)" } ?? ""),
                     "plugin:         \(r.path)",
                     "plugin sha256:  \(r.pluginSHA256 ?? "-")",
                     "probe cache:    " + (r.cacheFile.map { $0 + (r.cacheAgeSeconds.map { ", written \(ageText($0)) ago" } ?? ", not written yet") } ?? "none (no cache folder)")]
        for u in r.units {
            let rec = u.row.record
            lines.append("")
            lines.append("unit \(rec.selector)")
            lines.append("  kind:         \(rec.unit.rawValue)")
            lines.append("  device:       \(rec.device.isEmpty ? "-" : rec.device)")
            lines.append("  identity:     \(u.row.extra.deviceIdentity.map(identityText) ?? "no PCI address reported (named by backend, index and device)")")
            lines.append("  driver:       \(rec.driver.isEmpty ? "-" : rec.driver)")
            lines.append("  verdict:      \(rec.state.rawValue)\(rec.cached ? " (from the probe cache)" : "")" + (rec.rank.map { ", rank \($0)" } ?? ""))
            lines.append("  reason:       \(rec.reason)")
            if let s = rec.speed {
                lines.append("  speed:        \(ProbeTable.speedText(s)) (median \(CodecOptions.ms(s.medianMilliseconds)) over \(s.runs) runs of \(s.graph))")
            }
            if let c = rec.coverage {
                lines.append("  exact ops:    \(c.exact.count) (op: storage widths of its first input)")
                for o in c.exact { lines.append("    \(o.op.name.padding(22)) \(o.widths.map { "int\($0)" }.joined(separator: ", "))") }
                lines.append("  unsupported:  \(c.unsupported.isEmpty ? "none" : c.unsupported.map(\.name).joined(separator: ", "))")
                lines.append("  memory:       " + (c.maxElements.map { "ran out of memory above \($0) elements per tensor" } ?? "no limit met on the probe graphs"))
            } else if rec.state == .accepted {
                lines.append("  coverage:     not recorded (a verdict of an older host: every op)")
            }
            if rec.state == .accepted {
                lines.append("  concurrency:  " + (rec.concurrency.map(\.summary) ?? "not checked: the host runs its graphs one at a time"))
            }
            lines.append("  cache key:    \(u.row.extra.cacheKey ?? "-")")
        }
        return lines.joined(separator: "\n")
    }

    static func identityText(_ d: DeviceIdentity) -> String {
        var s = d.text ?? "-"
        if let id = d.pciID { s += " (\(id))" }
        if let n = d.renderNode { s += ", \(n)" }
        return s
    }

    /// Seconds since the file was last written, or nil when it does not exist.
    static func fileAge(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return max(0, Int(wallClockSeconds()) - Int(st.st_mtim.tv_sec))
    }

    static func ageText(_ s: Int) -> String {
        s < 120 ? "\(s) s" : s < 7200 ? "\(s / 60) min" : s < 172_800 ? "\(s / 3600) h" : "\(s / 86400) days"
    }
}
