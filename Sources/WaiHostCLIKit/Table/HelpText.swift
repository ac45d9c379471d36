/// `--help` text, generated from the table.
public enum HelpText {
    static let width = 22

    /// The command list (`waihost --help`).
    public static func main(_ table: CommandTable, version: String) -> String {
        let visible = table.visibleCommands
        let w = visible.map(\.name.count).max() ?? 0
        return """
            usage: \(table.program) COMMAND [OPTIONS] [ARGS]
                   \(table.program) -h|--help | -V|--version

            \(table.summary)

            commands:
            \(visible.map { "  " + pad($0.name, w) + "  " + $0.summary }.joined(separator: "\n"))

            '\(table.program) COMMAND --help' describes a command; 'man \(table.program)-COMMAND' too when installed.
            Conventions, JSON output, environment, plugin search order: docs/cli.md.
            Exit status: 0 success, 1 failure, 2 usage error.
            """
    }

    /// One command's help (`waihost CMD --help`).
    public static func command(_ spec: CommandSpec, path: [String], program: String = "waihost") -> String {
        let prefix = ([program] + path).joined(separator: " ")
        var out: [String] = []
        for (k, line) in spec.synopsisLines.enumerated() {
            // A line that starts with spaces continues the one before it.
            if line.hasPrefix(" ") {
                out.append(String(repeating: " ", count: 7 + prefix.count) + line)
            } else {
                out.append((k == 0 ? "usage: " : "       ") + prefix + (line.isEmpty ? "" : " " + line))
            }
        }
        out.append("")
        out.append(spec.summary)
        if !spec.description.isEmpty { out += ["", paragraphs(spec.description)] }
        let subs = spec.subcommands.filter { !$0.hidden }
        if !subs.isEmpty {
            out += ["", "subcommands:"]
            let w = subs.map(\.name.count).max() ?? 0
            for s in subs { out.append("  " + pad(s.name, w) + "  " + s.summary) }
            out.append("'\(prefix) SUBCOMMAND --help' describes one.")
        }
        if !spec.positionals.isEmpty {
            out += ["", "operands:"]
            for p in spec.positionals { out += entry(p.name, p.help) }
        }
        let options = spec.visibleOptions + [CommandSpec.helpOption]
        out += ["", "options:"]
        for o in options { out += entry(o.spelling, o.help + (o.arity == .multiple ? " (repeatable)" : "")) }
        if !spec.notes.isEmpty { out += ["", paragraphs(spec.notes)] }
        out += [""] + wrap("exit status: " + exitLine(spec), width: 78)
        return out.joined(separator: "\n")
    }

    static func exitLine(_ spec: CommandSpec) -> String {
        let extra = spec.exitStatus.map { "\($0.status) \($0.meaning)" }
        return (["0 success", "1 failure", "2 usage error"] + extra).joined(separator: ", ")
    }

    /// "  --model DIR         help…", wrapped under the help column.
    static func entry(_ head: String, _ help: String) -> [String] {
        let lines = wrap(help, width: 78 - width - 2)
        var out: [String] = []
        if head.count + 2 < width {
            out.append("  " + pad(head, width) + (lines.first ?? ""))
        } else {
            out.append("  " + head)
            if let first = lines.first { out.append(String(repeating: " ", count: width + 2) + first) }
        }
        for l in lines.dropFirst() { out.append(String(repeating: " ", count: width + 2) + l) }
        return out
    }

    /// Running text wrapped at 78 columns; lines that start with spaces (examples) kept as they are.
    static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line -> [String] in
            line.isEmpty || line.hasPrefix(" ") ? [String(line)] : wrap(String(line), width: 78)
        }.joined(separator: "\n")
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line); line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    static func pad(_ s: String, _ w: Int) -> String {
        s.count >= w ? s : s + String(repeating: " ", count: w - s.count)
    }
}
