import WaiHost

enum ProbeCommand: Command {
    static let name = "probe"
    static let summary = "list every backend unit, probe its exactness and rank the ones that pass"
    static let help = """
        usage: waihost probe [--json] [--fresh] [--quiet] [--dump DIR] [--plugin-dir DIR]...

        Loads every backend in the plugin folders (docs/cli.md, "Plugin search order"),
        runs the exactness probe on every unit it offers in a separate process with a
        time limit, ranks the units that pass by speed, and prints one row per unit:
        backend, device, unit kind, driver, state (accepted, rejected, failed), rank,
        speed, and for anything not accepted the reason. Verdicts are cached; a warm
        probe only lists units.

          --json             print one JSON object with a "units" array instead
          --fresh            ignore cached verdicts and probe every unit again
          --quiet            no progress lines on stderr
          --dump DIR         write each rejected unit's failing probe graph into DIR as
                             BACKEND_INDEX_GRAPH.whm with its inputs and the reference's
                             outputs (.input<k>.i32, .expected<k>.i32); replay one with
                             `waihost replay DIR/CASE.whm --plugin PLUGIN.so`
        \(HostOptions.help)

        Exit status: 0 when the probe ran (whatever the verdicts), 1 on an error,
        2 on a usage error.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var json = false, fresh = false, quiet = false
        var dump: String?
        var options = HostOptions()
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--json": json = true
            case "--fresh": fresh = true
            case "--quiet": quiet = true
            case "--dump": dump = try args.value(for: a)
            default:
                guard try options.parse(a, &args) else { throw UsageError(message: "unknown argument \(a)") }
            }
        }
        let host = BackendHost(configuration: options.configuration())
        let result = try host.probe(fresh: fresh, progress: quiet ? nil : { Output.err($0) })
        for w in result.warnings { Output.err("warning: \(w)") }
        if let dump { try write(result, into: dump) }
        if json {
            Output.out(try JSON.text(result))
        } else {
            Output.out(table(result))
        }
        return ExitCode.ok
    }

    /// Rebuilds each rejected unit's failing graph from the (deterministic) suite and writes it.
    static func write(_ result: ProbeResult, into dir: String) throws {
        for u in result.units where u.state == .rejected {
            guard let m = u.mismatch else { continue }
            guard let c = try ProbeDump.probeCase(for: m) else {
                Output.err("\(u.selector): graph \(m.graph) of stage \(m.stage) is not a probe graph; nothing dumped")
                continue
            }
            let path = try ProbeDump.write(c, prefix: "\(u.backend)_\(u.index ?? 0)_", directory: dir)
            Output.err("\(u.selector): wrote \(path)")
        }
    }

    static func table(_ result: ProbeResult) -> String {
        guard !result.units.isEmpty else {
            return "no backends found (plugin folders: see `waihost probe --help` and docs/cli.md)"
        }
        let header = ["BACKEND", "DEVICE", "UNIT", "DRIVER", "STATE", "RANK", "SPEED", "REASON"]
        let rows: [[String]] = result.units.map { u in
            [u.index.map { "\(u.backend):\($0)" } ?? u.backend,
             u.device.isEmpty ? "-" : u.device,
             u.unit,
             u.driver.isEmpty ? "-" : u.driver,
             u.state.rawValue + (u.cached ? "*" : ""),
             u.rank.map(String.init) ?? "-",
             u.speed.map { speedText($0) } ?? "-",
             u.state == .accepted ? "" : u.reason]
        }
        // The reason column is last and never padded, so long reasons stay readable.
        var widths = header.map(\.count)
        for r in rows { for (i, cell) in r.enumerated() where i < r.count - 1 { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padding(widths[i]) }.joined(separator: "  ")
                .trailingSpacesRemoved
        }
        var lines = [line(header)] + rows.map(line)
        if result.units.contains(where: \.cached) {
            lines.append("* verdict from the probe cache (waihost probe --fresh to probe again)")
        }
        return lines.joined(separator: "\n")
    }

    static func speedText(_ s: ProbeSpeed) -> String {
        let r = (s.runsPerSecond * 10).rounded() / 10
        return "\(r) runs/s"
    }
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
