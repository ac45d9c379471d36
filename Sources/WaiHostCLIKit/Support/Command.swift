import WaiSupport
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// One `waihost` command. Each lives in its own file with its own `spec` (the table row its
/// parser, help, man page and completion come from); CLI.swift lists them.
protocol Command {
    associatedtype Options
    static var spec: CommandSpec { get }
    /// What the parsed command line asks for, checked and typed: pure, so it is unit-tested
    /// without running anything (Tests/CLIKitTests). Throws only usage errors.
    static func options(_ parsed: ParsedArguments) throws(UsageError) -> Options
    /// Does it; returns the exit status.
    static func run(_ options: Options) throws -> Int32
}

/// A command with its type erased, for the list in CLI.swift.
struct CommandEntry {
    let spec: CommandSpec
    let execute: (ParsedArguments) throws -> Int32

    init<C: Command>(_ command: C.Type) {
        spec = C.spec
        execute = { parsed in try C.run(try C.options(parsed)) }
    }
}

/// Exit statuses (docs/cli.md, "Exit status").
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
}

/// Options several commands share, declared once.
enum CommonOptions {
    static let json = OptionSpec.flag("json", help: "print one JSON object (docs/cli.md, \"JSON output\") instead of text")
    static let quiet = OptionSpec.flag("quiet", short: "q", help: "no progress on standard error")
}

/// Flags every host-using command shares.
struct HostOptions: Equatable {
    var pluginDirectories: [String] = []
    var spotCheck: SpotCheckPolicy?

    static let options: [OptionSpec] = [
        .repeated("plugin-dir", "DIR", help: "search only DIR for plugins; replaces WAI_PLUGIN_PATH and the built-in plugins.d folders",
                  completion: .directory),
        .value("spot-check", "POLICY", help: "every (default), off or sample:N: how often runs on a plugin unit are checked against the reference (docs/probe.md §7)",
               completion: .words(["every", "off", "sample:"])),
    ]

    init() {}

    init(_ p: ParsedArguments) throws(UsageError) {
        pluginDirectories = p.values("plugin-dir")
        if let text = p.value("spot-check") {
            do { spotCheck = try SpotCheckPolicy(parsing: text) } catch { throw p.error("--spot-check: \(error)") }
        }
    }

    /// The environment's configuration; `--plugin-dir` replaces the whole plugin search.
    func configuration() -> HostConfiguration {
        var c = HostConfiguration.fromEnvironment()
        if !pluginDirectories.isEmpty { c.pluginDirectories = pluginDirectories }
        if let spotCheck { c.spotCheck = spotCheck }
        return c
    }
}

enum Output {
    static func out(_ text: String) {
        _ = (text + "\n").withCString { fputs($0, stdout) }
    }

    static func err(_ text: String) {
        _ = (text + "\n").withCString { fputs($0, stderr) }
        fflush(stderr)
    }
}
