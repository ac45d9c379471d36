import TestSupport
import XCTest
@testable import WaiHostCLIKit

/// Help, man pages and bash completion come from the table (docs/cli.md, "Help, man pages,
/// completion"): what a command accepts is what they list.
final class GeneratedTextTests: XCTestCase {
    func testHelpListsEveryVisibleOptionOfTheTable() throws {
        for c in CLI.table.visibleCommands {
            let specs = c.subcommands.isEmpty ? [(c, [c.name])] : c.subcommands.map { ($0, [c.name, $0.name]) }
            for (spec, path) in specs {
                let help = HelpText.command(spec, path: path)
                XCTAssertTrue(help.hasPrefix("usage: waihost " + path.joined(separator: " ")), help)
                for o in spec.visibleOptions { XCTAssertTrue(help.contains("--" + o.long), "\(path) help lacks --\(o.long)") }
                XCTAssertTrue(help.contains("-h, --help"))
                XCTAssertTrue(help.contains("exit status: 0 success, 1 failure, 2 usage error"))
                for line in help.split(separator: "\n") where !line.hasPrefix("usage:") && !line.hasPrefix("       ") {
                    XCTAssertLessThanOrEqual(line.count, 80, "\(path): \(line)")
                }
            }
        }
        XCTAssertTrue(HelpText.command(ReplayCommand.spec, path: ["replay"]).contains("3 the outputs differ"))
        let main = HelpText.main(CLI.table, version: "0.1.0")
        for c in CLI.table.visibleCommands { XCTAssertTrue(main.contains("  " + c.name + " "), c.name) }
    }

    func testManPagesOnePerCommandFromTheTable() throws {
        let pages = ManPage.pages(CLI.table, version: "9.8.7", date: "2026-12-01")
        XCTAssertEqual(pages.map(\.name), ["waihost.1"] + CLI.table.visibleCommands.map { "waihost-\($0.name).1" })
        let decode = try XCTUnwrap(pages.first { $0.name == "waihost-decode.1" }).text
        XCTAssertTrue(decode.contains(".TH \"WAIHOST-DECODE\" 1 \"2026-12-01\" \"waihost 9.8.7\""), decode)
        XCTAssertTrue(decode.contains(".SH SYNOPSIS"))
        XCTAssertTrue(decode.contains("\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIOUT\\fR"), "options in roff with escaped hyphens")
        XCTAssertTrue(decode.contains(".SH EXIT STATUS"))
        let audit = try XCTUnwrap(pages.first { $0.name == "waihost-audit.1" }).text
        XCTAssertTrue(audit.contains(".SH \"AUDIT SERVE\""), "subcommands get their own section")
        XCTAssertTrue(audit.contains("\\fB\\-\\-db\\fR \\fILOCATION\\fR"))
        for page in pages {
            for line in page.text.split(separator: "\n") {
                // A text line starting with . or ' would be read as a roff request.
                if line.hasPrefix("'") { XCTFail("\(page.name): \(line)") }
                if line.hasPrefix("."), !line.hasPrefix(".\\\""),
                   !["TH", "SH", "SS", "TP", "PP", "B", "br", "nf", "fi"].contains(where: { line.dropFirst().hasPrefix($0 + " ") || line.dropFirst() == $0 }) {
                    XCTFail("\(page.name): unknown request \(line)")
                }
            }
        }
        XCTAssertEqual(ManPage.escape(".hidden -x \\n"), "\\&.hidden \\-x \\en")
        XCTAssertEqual(ManPage.escape("§7 1…3"), "\\[u00A7]7 1\\[u2026]3")
        for page in pages { XCTAssertTrue(page.text.unicodeScalars.allSatisfy(\.isASCII), "\(page.name) is ASCII roff") }
    }

    /// groff reads every page without a warning (-ww: all warnings).
    func testGroffReadsThePagesWithoutWarnings() throws {
        let groff = "/usr/bin/groff"
        guard FileManager.default.isExecutableFile(atPath: groff) else { throw XCTSkip("no groff") }
        let tmp = try TempDir("waihost-man")
        let dir = tmp.path
        for page in ManPage.pages(CLI.table, version: "0.1.0", date: "2026-12-01") {
            let path = dir + "/" + page.name
            try page.text.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try Subprocess(groff, ["-man", "-Tutf8", "-ww", "-z", path], deadline: 120).run()
            XCTAssertEqual(r.status, 0, page.name)
            XCTAssertEqual(r.stderrText, "", page.name)
        }
    }

    func testBashCompletionFromTheTable() throws {
        let script = BashCompletion.script(CLI.table)
        XCTAssertTrue(script.contains("complete -o filenames -o bashdefault -F _waihost waihost"))
        for c in CLI.table.visibleCommands { XCTAssertTrue(script.contains(c.name), c.name) }
        // Each command's arm offers its options and completes its values.
        XCTAssertTrue(script.contains("'decode')"))
        XCTAssertTrue(script.contains("--plugin-dir) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;"))
        XCTAssertTrue(script.contains("-o|--output) COMPREPLY=($(compgen -d -- \"$cur\") $(compgen -f -X '!@(*.png|*.rgb)' -- \"$cur\")); return ;;"))
        XCTAssertTrue(script.contains("'audit verify')"))
        XCTAssertTrue(script.contains("'generate completion')"))
        XCTAssertTrue(script.contains("--unit) COMPREPLY=($(compgen -W $'best\\nreference\\ncpu\\ngpu\\nother' -- \"$cur\")); return ;;"), script)
    }

    /// bash itself reads the script and completes: the words it offers are the table's.
    func testBashCompletesCommandsAndOptions() throws {
        let bash = "/bin/bash"
        guard FileManager.default.isExecutableFile(atPath: bash) else { throw XCTSkip("no bash") }
        let script = BashCompletion.script(CLI.table)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            let program = script + """

                shopt -s extglob
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
                _waihost
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let r = try Subprocess(bash, ["--norc", "--noprofile", "-c", program], deadline: 120).run()
            XCTAssertEqual(r.status, 0, r.stderrText)
            return r.stdoutText.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try complete(["waihost", "ma"]), ["make-model", "make-picture"])
        XCTAssertEqual(try complete(["waihost", "probe", "--f"]), ["--fresh"])
        XCTAssertEqual(try complete(["waihost", "audit", ""]).sorted(), ["--help", "serve", "verify"])
        XCTAssertEqual(try complete(["waihost", "decode", "--unit", "g"]), ["gpu"])
        XCTAssertEqual(try complete(["waihost", "generate", "completion", ""]), ["bash"])
    }
}
