import WaiHost

/// `waihost replay`: runs a case that `waihost probe --dump` wrote on one unit of a plugin,
/// in this process (a developer's tool, like the probe worker), and compares it with the
/// reference outputs dumped beside it.
enum ReplayCommand: Command {
    static let spec = CommandSpec(
        name: "replay",
        summary: "run a dumped failing probe graph on a backend and compare it with the reference",
        synopsis: ["CASE.whm --plugin PLUGIN.so [--unit INDEX] [--json]", "CASE.whm --reference [--json]"],
        description: """
            Loads CASE.whm and the CASE.input<k>.i32 and CASE.expected<k>.i32 files beside it (written by \
            'waihost probe --dump DIR'), runs the graph on unit INDEX (default 0) of PLUGIN.so — loaded into \
            this process, whatever its probe verdict — or on the reference interpreter, and prints \
            "identical" or the first mismatch with the op's parameters (docs/probe.md §2).
            """,
        positionals: [PositionalSpec("CASE.whm", help: "a case written by 'waihost probe --dump'", completion: .file(["whm"]))],
        options: [
            .value("plugin", "PLUGIN.so", help: "the backend plugin to run the case on", completion: .file(["so"])),
            .value("unit", "INDEX", help: "the plugin's unit (default 0)"),
            .flag("reference", help: "run the case on the reference interpreter instead"),
            CommonOptions.json,
        ],
        exclusive: [["plugin", "reference"], ["unit", "reference"]],
        exitStatus: [(3, "the outputs differ from the dumped reference outputs")])

    struct Options: Equatable {
        var path: String
        var plugin: String?
        var unit: Int
        var json: Bool
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        guard p.flag("reference") != p.has("plugin") else { throw p.error("give exactly one of --plugin PLUGIN.so and --reference") }
        return Options(path: p.positionals[0], plugin: p.value("plugin"), unit: try p.int("unit", in: 0...Int(Int32.max)) ?? 0,
                       json: p.flag("json"))
    }

    static func run(_ o: Options) throws -> Int32 {
        let (path, plugin, unit, json) = (o.path, o.plugin, o.unit, o.json)
        let dumped = try ProbeDump.read(whmPath: path)
        let got: [TensorValue]
        if let plugin {
            let loaded = try BackendPlugin.load(path: plugin)
            got = try InProcessUnit(plugin: loaded, unit: unit).prepare(dumped.graph).run(dumped.inputs)
        } else {
            got = try ReferenceInterpreter.run(dumped.graph, inputs: dumped.inputs)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let outcome = ProbeDump.compare(dumped.graph, name: name, expected: dumped.expected, got: got)
        if json {
            Output.out(try JSON.report(outcome ?? ProbeOutcome(state: .accepted, stage: .replay, reason: "identical"), schema: .replay))
        } else {
            Output.out(outcome?.reason ?? "identical: every output equals the reference outputs dumped with the case")
        }
        return outcome == nil ? ExitCode.ok : 3
    }
}
