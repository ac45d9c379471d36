import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// One `waihost` subcommand. Each lives in its own file; main.swift lists them.
protocol Command {
    /// The word after `waihost`.
    static var name: String { get }
    /// One line for `waihost --help`.
    static var summary: String { get }
    /// The full `waihost NAME --help` text.
    static var help: String { get }
    /// Hidden commands are internal (the probe worker) and not listed in `--help`.
    static var hidden: Bool { get }
    /// Runs with the arguments after the command word; returns the exit status.
    static func run(_ arguments: [String]) throws -> Int32
}

extension Command {
    static var hidden: Bool { false }
}

/// Exit statuses (docs/cli.md).
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}

/// A command line that does not parse: printed with the command's usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Pulls flags and values off an argument list, so every command parses the same way.
struct ArgumentCursor {
    private var rest: [String]
    init(_ arguments: [String]) { rest = arguments }

    var isEmpty: Bool { rest.isEmpty }

    mutating func next() -> String? { rest.isEmpty ? nil : rest.removeFirst() }

    mutating func value(for flag: String) throws -> String {
        guard let v = next() else { throw UsageError(message: "\(flag) needs a value") }
        return v
    }
}

/// Flags every host-using command shares.
struct HostOptions {
    var pluginDirectories: [String] = []
    var spotCheck: SpotCheckPolicy?

    /// Handles `--plugin-dir DIR`; false when `flag` is not one of these.
    mutating func parse(_ flag: String, _ args: inout ArgumentCursor) throws -> Bool {
        switch flag {
        case "--plugin-dir":
            pluginDirectories.append(try args.value(for: flag))
            return true
        case "--spot-check":
            let text = try args.value(for: flag)
            do { spotCheck = try SpotCheckPolicy(parsing: text) } catch {
                throw UsageError(message: "\(error)")
            }
            return true
        default:
            return false
        }
    }

    /// The environment's configuration; `--plugin-dir` replaces the whole plugin search.
    func configuration() -> HostConfiguration {
        var c = HostConfiguration.fromEnvironment()
        if !pluginDirectories.isEmpty { c.pluginDirectories = pluginDirectories }
        if let spotCheck { c.spotCheck = spotCheck }
        return c
    }

    static let help = """
          --plugin-dir DIR   search only DIR for plugins (repeatable); replaces
                             WAI_PLUGIN_PATH and the built-in plugins.d folders
          --spot-check P     every (default), off or sample:N: how often runs on a plugin
                             unit are checked against the reference (docs/probe.md §7)
        """
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

/// Milliseconds on the monotonic clock.
func monotonicMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
}
