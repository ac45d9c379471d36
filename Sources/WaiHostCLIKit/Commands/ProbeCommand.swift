import WaiHost

enum ProbeCommand: Command {
    static let spec = CommandSpec(
        name: "probe",
        summary: "list every backend unit, probe its exactness and rank the ones that pass",
        synopsis: ["[--json] [--fresh] [-q] [--dump DIR] [--plugin-dir DIR]...",
                   "-l|--list [--json] [--plugin-dir DIR]...",
                   "NAME|NAME:INDEX [--json] [--plugin-dir DIR]..."],
        description: """
            Loads every backend in the plugin folders (docs/cli.md, "Plugin search order"), runs the \
            exactness probe on every unit it offers in a separate process with a time limit, ranks the \
            units that pass by speed, and prints one row per unit: backend, device, unit kind, driver, \
            state (accepted, rejected, failed), rank, speed, and for anything not accepted the reason. \
            Verdicts are cached; a warm probe only lists units.

            With --list, only lists the units (like clinfo -l): nothing is probed, the verdict is the \
            cached one or "not probed". With NAME (a backend, or one unit NAME:INDEX), shows that \
            backend in detail (like gst-inspect-1.0 NAME): each unit's device identity, the ops and \
            storage widths it was found exact on, the ops it refused, its memory limit, speed, and its \
            probe cache entry (file, key, age).
            """,
        positionals: [PositionalSpec("NAME", help: "a backend name, or NAME:INDEX for one unit: show it in detail",
                                     optional: true)],
        options: [
            CommonOptions.json,
            .flag("list", short: "l", help: "list the units and their cached verdicts without probing"),
            .flag("fresh", help: "ignore cached verdicts and probe every unit again"),
            CommonOptions.quiet,
            .value("dump", "DIR", help: "write each rejected unit's failing probe graph into DIR as BACKEND_INDEX_GRAPH.whm with its inputs and the reference's outputs (.input<k>.i32, .expected<k>.i32); replay one with 'waihost replay DIR/CASE.whm --plugin PLUGIN.so'",
                   completion: .directory),
        ] + HostOptions.options,
        exclusive: [["list", "fresh"], ["list", "dump"]],
        notes: "Exit status 0 means the probe ran, whatever the verdicts.")

    enum Mode: Equatable {
        case probe(fresh: Bool, dump: String?)
        case list
        case detail(name: String, index: Int?)
    }

    struct Options: Equatable {
        var mode: Mode
        var json: Bool
        var quiet: Bool
        var host: HostOptions
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        var mode = Mode.probe(fresh: p.flag("fresh"), dump: p.value("dump"))
        if p.flag("list") {
            if !p.positionals.isEmpty { throw p.error("--list lists every unit; give it or NAME, not both") }
            mode = .list
        } else if let name = p.positionals.first {
            if p.has("dump") { throw p.error("--dump is for a whole probe, not one backend") }
            let selection: UnitSelection
            do { selection = try UnitSelection(backendNaming: name) } catch { throw p.error("'\(name)': \(error.selectionReason)") }
            if case let .backendUnit(backend, index) = selection {
                mode = .detail(name: backend, index: index)
            } else {
                mode = .detail(name: name, index: nil)
            }
        }
        return Options(mode: mode, json: p.flag("json"), quiet: p.flag("quiet"), host: try HostOptions(p))
    }

    static func run(_ o: Options) throws -> Int32 {
        let host = BackendHost(configuration: o.host.configuration())
        switch o.mode {
        case .list:
            let listing = host.listUnits()
            for w in listing.warnings { Output.err("warning: \(w)") }
            Output.out(o.json ? try JSON.report(ProbeListing(listing), schema: .probeList) : ProbeTable.listing(listing))
            return ExitCode.ok
        case let .detail(name, index):
            return try ProbeDetail.run(host: host, name: name, index: index, json: o.json, quiet: o.quiet)
        case let .probe(fresh, dump):
            let progress = ProbeProgress(enabled: !o.quiet)
            let result = try host.probe(fresh: fresh, progress: progress.line)
            progress.finish()
            for w in result.warnings { Output.err("warning: \(w)") }
            if let dump { try write(result, into: dump) }
            Output.out(o.json ? try JSON.report(ProbeReport(result), schema: .probe) : ProbeTable.table(result))
            return ExitCode.ok
        }
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
}
