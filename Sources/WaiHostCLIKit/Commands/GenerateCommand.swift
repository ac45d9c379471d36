import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// `waihost generate man DIR` and `waihost generate completion bash`: the man pages and the
/// bash completion, from the same table the parser reads (`make install` calls both).
enum GenerateCommand: Command {
    static let spec = CommandSpec(
        name: "generate",
        summary: "write the man pages or print the bash completion script, from the command table",
        description: "What 'make install' installs: man pages (share/man/man1) and the bash completion (share/bash-completion/completions/waihost).",
        subcommands: [
            CommandSpec(name: "man", summary: "write waihost.1 and one waihost-COMMAND.1 per command into DIR",
                        description: "DIR is created if missing; existing pages are replaced. The page date is SOURCE_DATE_EPOCH's when it is set (reproducible builds), else today's.",
                        positionals: [PositionalSpec("DIR", help: "the folder to write the pages into", completion: .directory)]),
            CommandSpec(name: "completion", summary: "print the completion script for SHELL on standard output",
                        positionals: [PositionalSpec("SHELL", help: "bash (the only one so far)", completion: .words(["bash"]))]),
        ])

    enum Options: Equatable {
        case man(directory: String)
        case bashCompletion
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        if p.command.last == "man" { return .man(directory: p.positionals[0]) }
        guard p.positionals[0] == "bash" else { throw p.error("no completion for shell '\(p.positionals[0])'; it writes bash") }
        return .bashCompletion
    }

    static func run(_ o: Options) throws -> Int32 {
        switch o {
        case .bashCompletion:
            _ = BashCompletion.script(CLI.table).withCString { fputs($0, stdout) }
        case .man(let dir):
            try LocalFile.makeDirectories(dir)
            for page in ManPage.pages(CLI.table, version: WaiHostVersion.string, date: pageDate()) {
                try LocalFile.write(Array(page.text.utf8), to: dir + "/" + page.name)
                Output.out(dir + "/" + page.name)
            }
        }
        return ExitCode.ok
    }

    /// "2026-12-01": SOURCE_DATE_EPOCH's day when set, else today's (UTC).
    static func pageDate() -> String {
        var t = time_t(time(nil))
        if let e = getenv("SOURCE_DATE_EPOCH"), let v = Int(String(cString: e)) { t = time_t(v) }
        var tm = tm()
        gmtime_r(&t, &tm)
        let two: (Int32) -> String = { $0 < 10 ? "0\($0)" : "\($0)" }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday))"
    }
}
