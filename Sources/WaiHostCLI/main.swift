import WaiHost
#if canImport(Glibc)
import Glibc
#endif

// `waihost COMMAND [ARGS]`. Adding a command: write a Command in its own file and list it here.
let commands: [Command.Type] = [
    ProbeCommand.self,
    RunGraphCommand.self,
    EncodeCommand.self,
    DecodeCommand.self,
    BenchCommand.self,
    MakeModelCommand.self,
    MakePictureCommand.self,
    SealCommand.self,
    KeygenCommand.self,
    VersionCommand.self,
    ReplayCommand.self,
    RelayCommand.self,
    AuditCommand.self,
]

func mainHelp() -> String {
    let visible = commands.filter { !$0.hidden }
    let width = visible.map { $0.name.count }.max() ?? 0
    return """
        usage: waihost COMMAND [ARGS]

        commands:
        \(visible.map { "  " + $0.name.padding(width) + "  " + $0.summary }.joined(separator: "\n"))

        `waihost COMMAND --help` describes a command. Environment, plugin search order and
        exit statuses: docs/cli.md.
        """
}

func runMain() -> Int32 {
    var args = Array(CommandLine.arguments.dropFirst())
    guard let word = args.first else {
        Output.err(mainHelp())
        return ExitCode.usage
    }
    args.removeFirst()
    if word == "--help" || word == "-h" || word == "help" {
        Output.out(mainHelp())
        return ExitCode.ok
    }
    if word == "--version" { return (try? VersionCommand.run([])) ?? ExitCode.failure }
    guard let command = commands.first(where: { $0.name == word }) else {
        Output.err("waihost: unknown command \(word)\n\n" + mainHelp())
        return ExitCode.usage
    }
    if !command.hidden, args.contains("--help") || args.contains("-h") {
        Output.out(command.help)
        return ExitCode.ok
    }
    do {
        return try command.run(args)
    } catch let e as UsageError {
        Output.err("waihost \(command.name): \(e.message)\n\n\(command.help)")
        return ExitCode.usage
    } catch let e as HostError {
        if case .invalidSelection = e {
            Output.err("waihost \(command.name): \(e)")
            return ExitCode.usage
        }
        Output.err("waihost \(command.name): \(e)")
        return ExitCode.failure
    } catch {
        Output.err("waihost \(command.name): \(error)")
        return ExitCode.failure
    }
}

exit(runMain())
