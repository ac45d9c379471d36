import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// `waihost COMMAND [ARGS]`. Adding a command: write a Command in its own file (its spec is
/// its row of the table) and list it here.
public enum CLI {
    static let entries: [CommandEntry] = [
        CommandEntry(ProbeCommand.self),
        CommandEntry(RunGraphCommand.self),
        CommandEntry(EncodeCommand.self),
        CommandEntry(DecodeCommand.self),
        CommandEntry(BenchCommand.self),
        CommandEntry(MakeModelCommand.self),
        CommandEntry(MakePictureCommand.self),
        CommandEntry(SealCommand.self),
        CommandEntry(KeygenCommand.self),
        CommandEntry(RelayCommand.self),
        CommandEntry(AuditCommand.self),
        CommandEntry(ReplayCommand.self),
        CommandEntry(VersionCommand.self),
        CommandEntry(GenerateCommand.self),
    ]

    /// The table: the parser, --help, the man pages and the completion read it.
    public static let table = CommandTable(
        summary: "deterministic neural media decoding on the fastest unit that is exact",
        commands: entries.map(\.spec))

    /// Parses a command line (without the program name); runs nothing.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        try table.parse(arguments)
    }

    /// Runs a command line; returns the exit status (docs/cli.md, "Exit status").
    public static func main(_ arguments: [String]) -> Int32 {
        let json = wantsJSON(arguments)
        var command: [String] = []
        do {
            switch try parse(arguments) {
            case .help(let path):
                if let spec = table.spec(path) {
                    Output.out(HelpText.command(spec, path: path))
                } else {
                    Output.out(HelpText.main(table, version: WaiHostVersion.string))
                }
                return ExitCode.ok
            case .version:
                return try VersionCommand.run(.init(json: json))
            case .run(let parsed):
                command = parsed.command
                guard let entry = entries.first(where: { $0.spec.name == parsed.command[0] }) else { return ExitCode.usage }
                return try entry.execute(parsed)
            }
        } catch let e as UsageError {
            let e = e.within(command)
            report(.usage, e.message, command: e.command, json: json, hint: e.hint)
            return ExitCode.usage
        } catch {
            let code = ErrorCode.of(error)
            report(code, "\(error)", command: command, json: json, hint: nil)
            if case HostError.invalidSelection = error { return ExitCode.usage }
            return ExitCode.failure
        }
    }

    /// The error on standard error ("waihost decode: …", and for usage errors the pointer to
    /// --help), and under --json also as a JSON object on standard output.
    static func report(_ code: ErrorCode, _ message: String, command: [String], json: Bool, hint: String?) {
        Output.err((["waihost"] + command).joined(separator: " ") + ": " + message + (hint.map { "\n" + $0 } ?? ""))
        if json {
            Output.out(ErrorReport(code, message: message, command: command).text)
            fflush(stdout)
        }
    }

    /// `--json` before `--`: errors, usage errors included, are then JSON too.
    static func wantsJSON(_ arguments: [String]) -> Bool {
        for a in arguments {
            if a == "--" { return false }
            if a == "--json" { return true }
        }
        return false
    }
}
