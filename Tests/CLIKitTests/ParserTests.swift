import XCTest
@testable import WaiHostCLIKit
import WaiHost

/// The conventions of docs/cli.md ("Conventions") on the real table, without spawning the binary.
final class ParserTests: XCTestCase {
    func parsed(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ParsedArguments {
        guard case .run(let p) = try CLI.parse(args) else {
            XCTFail("\(args) did not parse to a run", file: file, line: line)
            throw UsageError("not a run")
        }
        return p
    }

    func usageError(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> UsageError? {
        do {
            let invocation = try CLI.parse(args)
            if case .run(let p) = invocation, let entry = CLI.entries.first(where: { $0.spec.name == p.command[0] }) {
                // The command's own checks (typed values, combinations) are part of parsing too.
                _ = try typedOptions(entry.spec.name, p)
            }
            XCTFail("\(args) parsed", file: file, line: line)
            return nil
        } catch let e as UsageError {
            return e
        } catch {
            XCTFail("\(args): \(error)", file: file, line: line)
            return nil
        }
    }

    /// The command's typed options: the pure half of each command.
    func typedOptions(_ name: String, _ p: ParsedArguments) throws -> Any {
        switch name {
        case "probe": return try ProbeCommand.options(p)
        case "run-graph": return try RunGraphCommand.options(p)
        case "encode": return try EncodeCommand.options(p)
        case "decode": return try DecodeCommand.options(p)
        case "bench": return try BenchCommand.options(p)
        case "make-model": return try MakeModelCommand.options(p)
        case "make-picture": return try MakePictureCommand.options(p)
        case "seal": return try SealCommand.options(p)
        case "keygen": return try KeygenCommand.options(p)
        case "relay": return try RelayCommand.options(p)
        case "audit": return try AuditCommand.options(p)
        case "replay": return try ReplayCommand.options(p)
        case "version": return try VersionCommand.options(p)
        case "generate": return try GenerateCommand.options(p)
        default: throw UsageError("no such command \(name)")
        }
    }

    func testEqualsAndSpaceSpellingsAreTheSame() throws {
        let a = try parsed(["decode", "in.wai", "--model=m", "-o", "out.png", "--unit=cpu:0"])
        let b = try parsed(["decode", "in.wai", "--model", "m", "--output=out.png", "--unit", "cpu:0"])
        let c = try parsed(["decode", "-oout.png", "in.wai", "--model", "m", "--unit", "cpu:0"])
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, c)
        XCTAssertEqual(a.value("output"), "out.png")
        XCTAssertEqual(a.positionals, ["in.wai"])
        let o = try DecodeCommand.options(a)
        XCTAssertEqual(o.selection, .backendUnit("cpu", 0))
        XCTAssertEqual(o.model, "m")
    }

    func testDoubleDashEndsOptionsAndDashIsAnOperand() throws {
        let p = try parsed(["decode", "--model", "m", "-o", "-", "--", "--weird-name.wai"])
        XCTAssertEqual(p.positionals, ["--weird-name.wai"])
        XCTAssertEqual(p.value("output"), "-")
        let stdin = try parsed(["decode", "-", "-o", "-"])
        XCTAssertEqual(stdin.positionals, ["-"])
        // After --, even --help is an operand.
        XCTAssertEqual(try parsed(["seal", "--key", "k", "--", "--help"]).positionals, ["--help"])
    }

    func testHelpAndVersionSpellings() throws {
        XCTAssertEqual(try CLI.parse(["--help"]), .help([]))
        XCTAssertEqual(try CLI.parse(["-h"]), .help([]))
        XCTAssertEqual(try CLI.parse(["help", "decode"]), .help(["decode"]))
        XCTAssertEqual(try CLI.parse(["-V"]), .version)
        XCTAssertEqual(try CLI.parse(["--version"]), .version)
        XCTAssertEqual(usageError(["decode", "--frobnicate", "-h"])?.message, "unknown option --frobnicate",
                       "an unknown option before -h is reported, as getopt does")
    }

    func testHelpAnywhereBeforeDoubleDash() throws {
        XCTAssertEqual(try CLI.parse(["decode", "in.wai", "-h"]), .help(["decode"]))
        XCTAssertEqual(try CLI.parse(["audit", "verify", "--help"]), .help(["audit", "verify"]))
        XCTAssertEqual(try CLI.parse(["audit", "--help"]), .help(["audit"]))
        XCTAssertEqual(try CLI.parse(["probe", "-qh"]), .help(["probe"]))
    }

    func testRepeatedSingleValuedOptionIsAnError() throws {
        let e = try XCTUnwrap(usageError(["decode", "in.wai", "-o", "a.png", "--output", "b.png"]))
        XCTAssertEqual(e.message, "option --output given twice (it takes one value)")
        XCTAssertEqual(e.command, ["decode"])
        // Repeatable ones keep every value, in order; flags may repeat.
        let p = try parsed(["probe", "--plugin-dir", "a", "--plugin-dir=b", "--json", "--json"])
        XCTAssertEqual(p.values("plugin-dir"), ["a", "b"])
        XCTAssertEqual(try ProbeCommand.options(p).host.pluginDirectories, ["a", "b"])
    }

    func testMissingAndUnknownAreNamedInOneLineWithAPointerToHelp() throws {
        let missing = try XCTUnwrap(usageError(["decode", "in.wai"]))
        XCTAssertEqual(missing.line, "waihost decode: missing option -o OUT")
        XCTAssertEqual(missing.hint, "try 'waihost decode --help'")
        XCTAssertEqual(missing.description, "waihost decode: missing option -o OUT\ntry 'waihost decode --help'")

        XCTAssertEqual(usageError(["decode"])?.message, "missing IN")
        XCTAssertEqual(usageError(["decode", "x.wai", "-o"])?.message, "option -o needs a value OUT")
        XCTAssertEqual(usageError(["probe", "--frobnicate"])?.message, "unknown option --frobnicate")
        XCTAssertEqual(usageError(["probe", "-z"])?.message, "unknown option -z")
        XCTAssertEqual(usageError(["probe", "--json=yes"])?.message, "option --json takes no value")
        XCTAssertEqual(usageError(["version", "extra"])?.message, "unexpected argument 'extra' (takes no operands)")
        XCTAssertEqual(usageError(["frobnicate"])?.message, "unknown command 'frobnicate'")
        XCTAssertEqual(usageError([])?.message, "missing COMMAND")
        XCTAssertEqual(usageError(["audit"])?.message, "missing subcommand (verify or serve)")
        XCTAssertEqual(usageError(["audit", "bogus"])?.hint, "try 'waihost audit --help'")
        XCTAssertEqual(usageError(["audit", "verify"])?.hint, "try 'waihost audit verify --help'")
    }

    func testExclusiveOptions() throws {
        XCTAssertEqual(usageError(["decode", "x.wai", "-o", "y.png", "--unit", "cpu", "--backend", "cpu"])?.message,
                       "give only one of --unit and --backend")
        XCTAssertEqual(usageError(["encode", "p.png", "-o", "o.wai", "--quality", "1", "--model", "m"])?.message,
                       "give only one of --quality and --model")
        XCTAssertEqual(usageError(["probe", "--list", "--fresh"])?.message, "give only one of --list and --fresh")
    }

    func testTypedValuesNameTheOptionAndTheValue() throws {
        XCTAssertEqual(usageError(["run-graph", "m.whm", "--runs", "0"])?.message, "--runs needs an integer in 1…10000, got '0'")
        XCTAssertEqual(usageError(["run-graph", "m.whm", "--input-seed", "-4"])?.message,
                       "--input-seed needs an unsigned 64-bit integer, got '-4'")
        XCTAssertTrue(usageError(["run-graph", "m.whm", "--unit", "cpu:"])?.message.hasPrefix("--unit: invalid unit selection") ?? false)
        XCTAssertEqual(usageError(["make-model", "--seed", "1", "--n", "3", "--m", "8", "-o", "d"])?.message,
                       "--n needs an integer in 4…512, got '3'")
        XCTAssertEqual(usageError(["run-graph"])?.message, "give a MODEL.whm or --calibration (one of them)")
        XCTAssertEqual(usageError(["run-graph", "m.whm", "--calibration"])?.message, "give a MODEL.whm or --calibration (one of them)")
        let rg = try RunGraphCommand.options(try parsed(["run-graph", "--calibration", "--runs=5", "--input-seed", "7"]))
        XCTAssertEqual(rg.runs, 5)
        XCTAssertEqual(rg.seed, 7)
        XCTAssertNil(rg.model)
    }

    func testOutputFormatFromTheExtension() throws {
        XCTAssertEqual(usageError(["decode", "x.wai", "-o", "y.jpg"])?.message,
                       "-o y.jpg: cannot write '.jpg'; it writes .png, .rgb or - (raw RGB8 rows on standard output); a sequence: .y4m, .rgb (RGB8 frames) or - (Y4M)")
        XCTAssertEqual(usageError(["make-picture", "--size", "4x4", "-o", "noext"])?.message,
                       "-o noext: cannot write a name without an extension; it writes .png, .rgb or - (raw RGB8 rows on standard output)")
        XCTAssertEqual(usageError(["encode", "p.png", "-o", "o.png"])?.message,
                       "-o o.png: cannot write '.png'; it writes .wai (WAI1 envelope), .payload (bare payload) or - (standard output)")
        XCTAssertEqual(usageError(["encode", "p.gif", "-o", "o.wai"])?.message,
                       "PICTURE p.gif: cannot read '.gif'; it reads .png, .rgb (with --size) or - (standard input: PNG, or raw RGB8 rows with --size); a sequence: .y4m, - (Y4M) or .rgb frames (with --size and --fps)")
        XCTAssertEqual(usageError(["encode", "p.rgb", "-o", "o.wai"])?.message, "a .rgb picture needs --size WxH")
        XCTAssertEqual(usageError(["encode", "p.png", "-o", "o.wai", "--size", "2x2"])?.message, "--size is for raw RGB8 input (.rgb or -) only")

        let payload = try EncodeCommand.options(try parsed(["encode", "p.png", "-o", "o.PAYLOAD"]))
        XCTAssertTrue(payload.raw, ".payload is a bare payload")
        let envelope = try EncodeCommand.options(try parsed(["encode", "-", "--size", "8x8", "-o", "-"]))
        XCTAssertFalse(envelope.raw)
        XCTAssertEqual(envelope.input, "-")
        XCTAssertEqual(envelope.size?.width, 8)
    }

    func testOnlyOneThingWritesStandardOutput() throws {
        XCTAssertEqual(usageError(["decode", "x.wai", "-o", "-", "--report", "-"])?.message, "--report - and -o - would both write standard output")
        XCTAssertEqual(try DecodeCommand.options(try parsed(["decode", "-", "-o", "y.png", "--report=-"])).report, "-")
    }

    func testSealWatchNeedsOut() throws {
        XCTAssertEqual(usageError(["seal", "d", "--key", "k", "--watch"])?.message, "--watch needs --out: ffmpeg keeps rewriting DIR")
        XCTAssertEqual(usageError(["seal", "d", "--key", "k", "--interval", "0"])?.message, "--interval needs a number in (0.0, 3600.0], got '0'")
        XCTAssertEqual(try SealCommand.options(try parsed(["seal", "d", "--key=k", "-o", "out", "--watch", "--interval", "2"])),
                       SealCommand.Options(directory: "d", key: "k", out: "out", watch: true, interval: 2, json: false))
    }

    func testProbeModes() throws {
        XCTAssertEqual(try ProbeCommand.options(try parsed(["probe", "-l"])).mode, .list)
        XCTAssertEqual(try ProbeCommand.options(try parsed(["probe", "vulkan:1", "--json"])).mode, .detail(name: "vulkan", index: 1))
        XCTAssertEqual(try ProbeCommand.options(try parsed(["probe", "cpu"])).mode, .detail(name: "cpu", index: nil))
        XCTAssertEqual(try ProbeCommand.options(try parsed(["probe", "--fresh", "--dump", "d"])).mode, .probe(fresh: true, dump: "d"))
        XCTAssertEqual(usageError(["probe", "cpu:x"])?.message, "'cpu:x': unit index 'x' is not a non-negative integer")
        XCTAssertEqual(usageError(["probe", "-l", "cpu"])?.message, "--list lists every unit; give it or NAME, not both")
    }

    func testSubcommands() throws {
        let v = try parsed(["audit", "verify", "b.json", "--trust", String(repeating: "ab", count: 32), "--json"])
        XCTAssertEqual(v.command, ["audit", "verify"])
        guard case let .verify(path, owner, trusted, json) = try AuditCommand.options(v) else { return XCTFail("not verify") }
        XCTAssertEqual(path, "b.json")
        XCTAssertNil(owner)
        XCTAssertEqual(trusted?.count, 1)
        XCTAssertTrue(json)
        XCTAssertEqual(usageError(["audit", "serve", "--key", "k"])?.message, "missing option --db LOCATION")
        XCTAssertEqual(try GenerateCommand.options(try parsed(["generate", "man", "out"])), .man(directory: "out"))
        XCTAssertEqual(try GenerateCommand.options(try parsed(["generate", "completion", "bash"])), .bashCompletion)
        XCTAssertEqual(usageError(["generate", "completion", "fish"])?.message, "no completion for shell 'fish'; it writes bash")
    }

    func testRelayAuditOptionsGoTogether() throws {
        XCTAssertEqual(usageError(["relay", "http://o/x.m3u8", "--collector", "http://c"])?.message, "--collector needs --owner")
        XCTAssertEqual(usageError(["relay", "http://o/x.m3u8", "--require-signed"])?.message, "--require-signed needs --publisher-key")
        XCTAssertEqual(usageError(["relay", "http://o/x.m3u8", "--max-connections", "2"])?.message,
                       "--max-connections needs an integer in 4…4096, got '2'")
        let o = try RelayCommand.options(try parsed(["relay", "http://o/x.m3u8", "--allow-origin", "https://a.example",
                                                     "--allow-origin=http://b.example:8080", "--header-timeout", "0"]))
        XCTAssertEqual(o.relay.allowedWebOrigins, ["https://a.example", "http://b.example:8080"])
        XCTAssertNil(o.relay.connections.deadlines, "0 turns the slow-client defences off")
        XCTAssertTrue(o.relay.prefetchNext, "the next listed object is fetched ahead by default")
        let cold = try RelayCommand.options(try parsed(["relay", "http://o/x.m3u8", "--no-prefetch"]))
        XCTAssertFalse(cold.relay.prefetchNext)
    }

    /// Every spec is consistent: unique long and short names per command, and every
    /// exclusive group names options the command has.
    func testTheTableIsConsistent() {
        func check(_ spec: CommandSpec, _ path: String) {
            let longs = spec.options.map(\.long), shorts = spec.options.compactMap(\.short)
            XCTAssertEqual(Set(longs).count, longs.count, "\(path): a long option twice")
            XCTAssertEqual(Set(shorts).count, shorts.count, "\(path): a short option twice")
            XCTAssertFalse(longs.contains("help") || shorts.contains("h"), "\(path): -h/--help is every command's")
            for group in spec.exclusive { for name in group { XCTAssertTrue(longs.contains(name), "\(path): exclusive --\(name)") } }
            for o in spec.options { XCTAssertEqual(o.valueName == nil, o.arity == .flag, "\(path) --\(o.long)") }
            for s in spec.subcommands { check(s, path + " " + s.name) }
        }
        for c in CLI.table.commands { check(c, c.name) }
        let names = CLI.table.commands.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
    }

    /// The sequence options of encode and decode (docs/cli.md, encode/decode; docs/capabilities/video_int_hyper.md §8–§9).
    func testSequenceAndPayloadVersionOptions() throws {
        let y = try EncodeCommand.options(try parsed(["encode", "in.y4m", "-o", "o.wai", "--frames", "2..4"]))
        XCTAssertEqual(y.sequence, EncodeCommand.Options.SequenceOptions(fps: nil, chroma: nil, frames: 2...4))
        XCTAssertEqual(y.payloadVersion, IntHyperPayload.defaultVersion)
        XCTAssertNil(y.selection, "no --unit: the configured default unit, chosen when the host is made")
        let r = try EncodeCommand.options(try parsed(["encode", "f.rgb", "--size", "8x8", "--fps", "30000/1001", "--chroma", "yuv420", "-o", "o.wai"]))
        XCTAssertEqual(r.sequence, EncodeCommand.Options.SequenceOptions(fps: Rational(30000, 1001), chroma: .yuv420, frames: nil))
        // Standard input without sequence options is told apart when it is read.
        XCTAssertNil(try EncodeCommand.options(try parsed(["encode", "-", "-o", "o.wai"])).sequence)
        XCTAssertEqual(try EncodeCommand.options(try parsed(["encode", "p.png", "-o", "o.wai", "--payload-version", "1"])).payloadVersion,
                       IntHyperPayload.Version(rawValue: 1))
        XCTAssertEqual(usageError(["encode", "p.png", "-o", "o.wai", "--payload-version", "3"])?.message, "--payload-version is 1 or 2, not '3'")
        XCTAssertEqual(usageError(["encode", "f.rgb", "--size", "8x8", "--chroma", "yuv420", "-o", "o.wai"])?.message,
                       "a .rgb sequence needs --size WxH and --fps N[/D]")
        XCTAssertEqual(usageError(["encode", "in.y4m", "--fps", "25", "-o", "o.wai"])?.message,
                       "--size, --fps and --chroma are for .rgb input; a Y4M stream carries them in its header")
        XCTAssertEqual(usageError(["encode", "f.rgb", "--size", "8x8", "--fps", "0", "-o", "o.wai"])?.message,
                       "--fps needs N or N/D with N and D in 1…\(Rational.maximumTerm), got '0'")
        XCTAssertEqual(usageError(["encode", "f.rgb", "--size", "8x8", "--fps", "25", "--chroma", "yuv411", "-o", "o.wai"])?.message,
                       "--chroma needs rgb, yuv420, yuv444, got 'yuv411'")
        XCTAssertEqual(usageError(["encode", "in.y4m", "-o", "o.wai", "--payload-version", "1"])?.message,
                       "--payload-version is for pictures, not sequences (wai.video.int_hyper)")
        let d = try DecodeCommand.options(try parsed(["decode", "s.wai", "-o", "out.y4m", "--frames", "0..0"]))
        XCTAssertEqual(d.frames, 0...0)
        XCTAssertNil(d.selection)
        XCTAssertEqual(usageError(["decode", "s.wai", "-o", "-", "--frames", "3-4"])?.message,
                       "--frames needs A..B with 0 ≤ A ≤ B (0-based frame numbers, both included), got '3-4'")
        XCTAssertEqual(usageError(["decode", "s.wai", "-o", "-", "--frames", "4..3"])?.message,
                       "--frames needs A..B with 0 ≤ A ≤ B (0-based frame numbers, both included), got '4..3'")
        // make-picture writes pictures only.
        XCTAssertNotNil(usageError(["make-picture", "--size", "4x4", "-o", "p.y4m"]))
    }

    func testAuditServeBindsAreRepeatable() throws {
        let key = ["--db", "sqlite:/tmp/x.db", "--key", "k"]
        let both = try AuditServe.options(try parsed(["audit", "serve"] + key))
        XCTAssertEqual(both.binds, [], "none given: both loopbacks")
        let two = try AuditServe.options(try parsed(["audit", "serve"] + key + ["--bind", "::1", "--bind=127.0.0.1"]))
        XCTAssertEqual(two.binds, ["::1", "127.0.0.1"])
    }
}
