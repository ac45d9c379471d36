/// The table every part of the command line is generated from (docs/cli.md, "Conventions"):
/// the parser, `--help`, the man pages and the bash completion all read these values, so
/// they cannot disagree. Each command declares its own spec in its own file.
public struct OptionSpec: Sendable, Equatable {
    public enum Arity: Sendable, Equatable {
        /// `--json`: present or not; giving it twice is harmless.
        case flag
        /// `--model DIR`: at most once (twice is a usage error).
        case single
        /// `--plugin-dir DIR`...: every occurrence is kept, in order.
        case multiple
    }

    /// Without the leading `--`: "output".
    public var long: String
    /// Without the leading `-`: "o".
    public var short: Character?
    /// What the value is called in help ("DIR"); nil for a flag.
    public var valueName: String?
    public var arity: Arity
    public var help: String
    public var completion: Completion
    public var required: Bool
    /// Accepted but not listed (kept for old spellings).
    public var hidden: Bool

    public init(long: String, short: Character? = nil, valueName: String? = nil, arity: Arity, help: String,
                completion: Completion = .none, required: Bool = false, hidden: Bool = false) {
        self.long = long; self.short = short; self.valueName = valueName; self.arity = arity
        self.help = help; self.completion = completion; self.required = required; self.hidden = hidden
    }

    public static func flag(_ long: String, short: Character? = nil, help: String, hidden: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: short, arity: .flag, help: help, hidden: hidden)
    }

    public static func value(_ long: String, short: Character? = nil, _ valueName: String, help: String,
                             completion: Completion = .none, required: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, arity: .single, help: help,
                   completion: completion, required: required)
    }

    public static func repeated(_ long: String, short: Character? = nil, _ valueName: String, help: String,
                                completion: Completion = .none) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, arity: .multiple, help: help, completion: completion)
    }

    public var takesValue: Bool { arity != .flag }

    /// "-o, --output OUT" / "--json": how help and error messages name it.
    public var spelling: String {
        var s = short.map { "-\($0), " } ?? ""
        s += "--" + long
        if let valueName { s += " " + valueName }
        return s
    }

    /// "-o OUT" when it has a short spelling, else "--model DIR": the shortest way to write it.
    public var shortestSpelling: String {
        let name = short.map { "-\($0)" } ?? "--" + long
        return valueName.map { name + " " + $0 } ?? name
    }
}

/// What the shell may offer for a value or an operand.
public enum Completion: Sendable, Equatable {
    case none
    /// Files; with extensions, those first (the shell still offers folders to descend into).
    case file([String])
    case directory
    case words([String])
}

/// An operand (a non-option argument), in order.
public struct PositionalSpec: Sendable, Equatable {
    public var name: String
    public var help: String
    public var optional: Bool
    public var repeated: Bool
    public var completion: Completion

    public init(_ name: String, help: String, optional: Bool = false, repeated: Bool = false,
                completion: Completion = .none) {
        self.name = name; self.help = help; self.optional = optional; self.repeated = repeated
        self.completion = completion
    }
}

public struct CommandSpec: Sendable, Equatable {
    /// The word after `waihost` (or after the parent command).
    public var name: String
    /// One line for the command list.
    public var summary: String
    /// Synopsis lines after `waihost NAME`; when empty, one is generated from the table.
    public var synopsis: [String]
    /// Paragraphs for help and the man page's DESCRIPTION.
    public var description: String
    public var positionals: [PositionalSpec]
    public var options: [OptionSpec]
    /// Groups of long option names of which at most one may be given.
    public var exclusive: [[String]]
    /// Paragraphs after the options (details, notes).
    public var notes: String
    /// Exit statuses beyond the common 0/1/2, with their meaning.
    public var exitStatus: [(status: Int32, meaning: String)]
    public var subcommands: [CommandSpec]
    /// Not listed in help, man pages or completion.
    public var hidden: Bool

    public init(name: String, summary: String, synopsis: [String] = [], description: String = "",
                positionals: [PositionalSpec] = [], options: [OptionSpec] = [], exclusive: [[String]] = [],
                notes: String = "", exitStatus: [(status: Int32, meaning: String)] = [],
                subcommands: [CommandSpec] = [], hidden: Bool = false) {
        self.name = name; self.summary = summary; self.synopsis = synopsis; self.description = description
        self.positionals = positionals; self.options = options; self.exclusive = exclusive; self.notes = notes
        self.exitStatus = exitStatus; self.subcommands = subcommands; self.hidden = hidden
    }

    public static func == (a: CommandSpec, b: CommandSpec) -> Bool {
        a.name == b.name && a.summary == b.summary && a.synopsis == b.synopsis && a.description == b.description
            && a.positionals == b.positionals && a.options == b.options && a.exclusive == b.exclusive
            && a.notes == b.notes && a.exitStatus.map(\.status) == b.exitStatus.map(\.status)
            && a.exitStatus.map(\.meaning) == b.exitStatus.map(\.meaning) && a.subcommands == b.subcommands
            && a.hidden == b.hidden
    }

    /// Options every command takes, whether or not it lists them.
    public static let helpOption = OptionSpec.flag("help", short: "h", help: "print this help and exit")

    public var visibleOptions: [OptionSpec] { options.filter { !$0.hidden } }

    public func option(long: String) -> OptionSpec? { options.first { $0.long == long } }
    public func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }
    public func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == name } }

    /// "[--json] [--fresh] -o OUT PICTURE": generated when the spec gives no synopsis.
    public var generatedSynopsis: String {
        var parts: [String] = []
        if !subcommands.isEmpty { parts.append(subcommands.filter { !$0.hidden }.map(\.name).joined(separator: "|") + " ...") }
        for o in visibleOptions {
            let s = o.shortestSpelling
            switch (o.required, o.arity) {
            case (true, .multiple): parts.append(s + "...")
            case (true, _): parts.append(s)
            case (false, .multiple): parts.append("[" + s + "]...")
            case (false, _): parts.append("[" + s + "]")
            }
        }
        for p in positionals {
            let s = p.name + (p.repeated ? "..." : "")
            parts.append(p.optional ? "[" + s + "]" : s)
        }
        return parts.joined(separator: " ")
    }

    public var synopsisLines: [String] { synopsis.isEmpty ? [generatedSynopsis] : synopsis }
}
