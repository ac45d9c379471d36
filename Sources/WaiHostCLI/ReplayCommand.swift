import WaiHost

/// `waihost replay`: runs a case that `waihost probe --dump` wrote on one unit of a plugin,
/// in this process (a developer's tool, like the probe worker), and compares it with the
/// reference outputs dumped beside it.
enum ReplayCommand: Command {
    static let name = "replay"
    static let summary = "run a dumped failing probe graph on a backend and compare it with the reference"
    static let help = """
        usage: waihost replay CASE.whm --plugin PLUGIN.so [--unit INDEX] [--json]
               waihost replay CASE.whm --reference

        Loads CASE.whm and the CASE.input<k>.i32 and CASE.expected<k>.i32 files beside it
        (written by `waihost probe --dump DIR`), runs the graph on unit INDEX (default 0)
        of PLUGIN.so — loaded into this process, whatever its probe verdict — or on the
        reference interpreter, and prints "identical" or the first mismatch with the op's
        parameters (docs/probe.md §2).

        Exit status: 0 when the outputs equal the dumped reference outputs, 3 when they
        differ, 1 on an error, 2 on a usage error.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = ArgumentCursor(arguments)
        var path: String?, plugin: String?, unit = 0, json = false, reference = false
        while let a = args.next() {
            switch a {
            case "--plugin": plugin = try args.value(for: a)
            case "--unit":
                let v = try args.value(for: a)
                guard let u = Int(v), u >= 0 else { throw UsageError(message: "--unit \(v): not a unit index") }
                unit = u
            case "--reference": reference = true
            case "--json": json = true
            default:
                guard !a.hasPrefix("-"), path == nil else { throw UsageError(message: "unknown argument \(a)") }
                path = a
            }
        }
        guard let path else { throw UsageError(message: "no CASE.whm given") }
        guard reference != (plugin != nil) else { throw UsageError(message: "give exactly one of --plugin PLUGIN.so and --reference") }
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
            Output.out(try JSON.text(outcome ?? ProbeOutcome(state: .accepted, stage: "replay", reason: "identical")))
        } else {
            Output.out(outcome?.reason ?? "identical: every output equals the reference outputs dumped with the case")
        }
        return outcome == nil ? ExitCode.ok : 3
    }
}
