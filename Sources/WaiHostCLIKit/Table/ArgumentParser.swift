/// What a command line asks for. Parsing never runs anything, so it is tested without
/// spawning the binary (Tests/CLIKitTests).
public enum Invocation: Equatable, Sendable {
    /// `-h`/`--help` (or `waihost help CMD`): the help of these command words ([] for the list).
    case help([String])
    /// `-V`/`--version` before a command.
    case version
    case run(ParsedArguments)
}

/// A command line split along its command's table: the options by long name, the operands in order.
public struct ParsedArguments: Equatable, Sendable {
    /// The command words, e.g. ["audit", "verify"].
    public var command: [String]
    /// Every option given, by long name; flags hold one "" per occurrence.
    public var options: [String: [String]]
    public var positionals: [String]

    public init(command: [String], options: [String: [String]] = [:], positionals: [String] = []) {
        self.command = command; self.options = options; self.positionals = positionals
    }

    public func flag(_ long: String) -> Bool { options[long] != nil }
    public func value(_ long: String) -> String? { options[long]?.last }
    public func values(_ long: String) -> [String] { options[long] ?? [] }
    public func has(_ long: String) -> Bool { options[long] != nil }

    public func error(_ message: String) -> UsageError { UsageError(message, command: command) }

    /// The value of `--long` converted by `convert`; a value it refuses is a usage error
    /// "--long needs EXPECTED, got VALUE".
    public func value<T>(_ long: String, expected: String, _ convert: (String) -> T?) throws(UsageError) -> T? {
        guard let text = value(long) else { return nil }
        guard let v = convert(text) else { throw error("--\(long) needs \(expected), got '\(text)'") }
        return v
    }

    public func int(_ long: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        try value(long, expected: "an integer in \(range.lowerBound)…\(range.upperBound)") { Int($0).flatMap { range.contains($0) ? $0 : nil } }
    }

    public func uint64(_ long: String) throws(UsageError) -> UInt64? {
        try value(long, expected: "an unsigned 64-bit integer") { UInt64($0) }
    }

    /// A number of seconds (or other real) in `range`, the lower bound excluded when `open`.
    public func double(_ long: String, in range: ClosedRange<Double>, openBelow: Bool = false) throws(UsageError) -> Double? {
        let bound = (openBelow ? "(" : "[") + "\(range.lowerBound), \(range.upperBound)]"
        return try value(long, expected: "a number in \(bound)") {
            Double($0).flatMap { range.contains($0) && !(openBelow && $0 == range.lowerBound) ? $0 : nil }
        }
    }
}

/// The command table: every command `waihost` has.
public struct CommandTable: Sendable {
    public var program: String
    public var summary: String
    public var commands: [CommandSpec]

    public init(program: String = "waihost", summary: String, commands: [CommandSpec]) {
        self.program = program; self.summary = summary; self.commands = commands
    }

    public func command(_ name: String) -> CommandSpec? { commands.first { $0.name == name } }

    /// The spec at a path of command words.
    public func spec(_ path: [String]) -> CommandSpec? {
        guard let first = path.first, var spec = command(first) else { return nil }
        for word in path.dropFirst() {
            guard let sub = spec.subcommand(word) else { return nil }
            spec = sub
        }
        return spec
    }

    public var visibleCommands: [CommandSpec] { commands.filter { !$0.hidden } }

    /// Parses a command line (without the program name). Conventions (docs/cli.md):
    /// `--opt=value` and `--opt value`, `-o value` and `-ovalue`, `--` ends options (and `-`
    /// is an operand: standard input or output), `-h`/`--help` anywhere before `--`, `-V`/
    /// `--version` as the first word; a single-valued option given twice, an unknown option,
    /// a missing value, operand or required option are usage errors naming it.
    public func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let word = arguments.first else { throw UsageError("missing COMMAND") }
        switch word {
        case "-h", "--help": return .help([])
        case "-V", "--version": return .version
        case "help":
            let path = Array(arguments.dropFirst())
            guard spec(path) != nil || path.isEmpty else {
                throw UsageError("no command '\(path.joined(separator: " "))' (see 'waihost --help')")
            }
            return .help(path)
        default: break
        }
        guard var spec = command(word) else {
            if word.hasPrefix("-") { throw UsageError("unknown option \(word) (a COMMAND comes first)") }
            throw UsageError("unknown command '\(word)'")
        }
        var path = [word]
        var rest = arguments.dropFirst()
        while !spec.subcommands.isEmpty {
            guard let next = rest.first else {
                throw UsageError("missing subcommand (\(spec.subcommands.filter { !$0.hidden }.map(\.name).joined(separator: " or ")))", command: path)
            }
            if next == "-h" || next == "--help" { return .help(path) }
            guard let sub = spec.subcommand(next) else {
                throw UsageError("unknown subcommand '\(next)' (\(spec.subcommands.filter { !$0.hidden }.map(\.name).joined(separator: " or ")))", command: path)
            }
            path.append(next)
            spec = sub
            rest = rest.dropFirst()
        }
        return try Self.parse(Array(rest), spec: spec, path: path)
    }

    /// Parses the arguments after the command words against one command's spec.
    public static func parse(_ arguments: [String], spec: CommandSpec, path: [String]) throws(UsageError) -> Invocation {
        func fail(_ message: String) -> UsageError { UsageError(message, command: path) }
        var parsed = ParsedArguments(command: path)
        var operandsOnly = false
        var i = 0
        func take(_ option: OptionSpec, inline: String?, as written: String) throws(UsageError) {
            var value = ""
            if option.takesValue {
                if let inline {
                    value = inline
                } else {
                    guard i + 1 < arguments.count else { throw fail("option \(written) needs a value \(option.valueName ?? "")") }
                    i += 1
                    value = arguments[i]
                }
            } else if inline != nil {
                throw fail("option \(written) takes no value")
            }
            if option.arity == .single, parsed.options[option.long] != nil {
                throw fail("option --\(option.long) given twice (it takes one value)")
            }
            parsed.options[option.long, default: []].append(value)
        }
        while i < arguments.count {
            let a = arguments[i]
            if operandsOnly || a == "-" || !a.hasPrefix("-") {
                parsed.positionals.append(a)
            } else if a == "--" {
                operandsOnly = true
            } else if a == "-h" || a == "--help" {
                return .help(path)
            } else if a.hasPrefix("--") {
                let body = a.dropFirst(2)
                let name: Substring, inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = body[..<eq]; inline = String(body[body.index(after: eq)...])
                } else {
                    name = body; inline = nil
                }
                guard let option = spec.option(long: String(name)) else { throw fail("unknown option --\(name)") }
                try take(option, inline: inline, as: "--" + name)
            } else {
                // -o VALUE, -oVALUE, or flags grouped (-qj).
                var chars = Array(a.dropFirst())
                while let c = chars.first {
                    chars.removeFirst()
                    if c == "h" { return .help(path) }
                    guard let option = spec.option(short: c) else { throw fail("unknown option -\(c)") }
                    if option.takesValue {
                        try take(option, inline: chars.isEmpty ? nil : String(chars), as: "-\(c)")
                        chars = []
                    } else {
                        try take(option, inline: nil, as: "-\(c)")
                    }
                }
            }
            i += 1
        }
        for group in spec.exclusive {
            let given = group.filter { parsed.options[$0] != nil }
            if given.count > 1 { throw fail("give only one of " + given.map { "--" + $0 }.joined(separator: " and ")) }
        }
        let required = spec.positionals.filter { !$0.optional }
        if parsed.positionals.count < required.count {
            throw fail("missing \(required[parsed.positionals.count].name)")
        }
        for o in spec.options where o.required && parsed.options[o.long] == nil {
            throw fail("missing option \(o.shortestSpelling)")
        }
        if !spec.positionals.contains(where: \.repeated), parsed.positionals.count > spec.positionals.count {
            let extra = parsed.positionals[spec.positionals.count]
            throw fail(spec.positionals.isEmpty ? "unexpected argument '\(extra)' (takes no operands)" : "unexpected argument '\(extra)'")
        }
        return .run(parsed)
    }
}
