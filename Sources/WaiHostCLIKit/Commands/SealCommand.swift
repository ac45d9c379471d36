import Relay
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

enum SealCommand: Command {
    static let spec = CommandSpec(
        name: "seal",
        summary: "content-address an HLS folder's segments and sign its playlists",
        synopsis: ["DIR --key KEYFILE [--out OUTDIR] [--watch [--interval SECONDS]] [--json]"],
        description: """
            Seals the HLS folder DIR as ffmpeg wrote it (TS or fMP4, VOD or live, multivariant or single, \
            byte-range single file, AES-128): every segment, init section and key file is placed under \
            <sha256>.<extension>, media playlists are rewritten to those names, and every playlist ends with a \
            signed receipt carrying the time it was sealed (#EXT-X-WAI-RECEIPT, docs/receipts.md). The top \
            playlist must be at the root of DIR: receipts name playlists by their path in DIR. A playlist that \
            does not parse strictly (an attribute list a player could read otherwise, docs/sealing.md §4) is \
            refused, naming the line; nothing is published. A DIR that does not exist, or (without --watch) \
            holds no playlist, is an error.
            """,
        positionals: [PositionalSpec("DIR", help: "the HLS folder", completion: .directory)],
        options: [
            .value("key", "KEYFILE", help: "the publisher key (waihost keygen -o KEYFILE)", completion: .file([]), required: true),
            .value("out", short: "o", "OUTDIR", help: "write the sealed stream to OUTDIR, leaving DIR as it is; without it DIR is sealed in place (segments renamed)",
                   completion: .directory),
            .flag("watch", help: "keep sealing a live folder while ffmpeg writes it; each changed playlist becomes a new revision chained to the last. Needs --out. Ends when every media playlist has EXT-X-ENDLIST (or on SIGINT/SIGTERM)."),
            .value("interval", "SECONDS", help: "how often --watch looks (default 0.5)"),
            CommonOptions.json,
        ],
        notes: "Running it again publishes new revisions only for playlists that changed. Details and the live-stream recipe: docs/sealing.md.")

    struct Options: Equatable {
        var directory: String
        var key: String
        var out: String?
        var watch: Bool
        var interval: Double
        var json: Bool
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        let o = Options(directory: p.positionals[0], key: p.value("key") ?? "", out: p.value("out"), watch: p.flag("watch"),
                        interval: try p.double("interval", in: 0...3600, openBelow: true) ?? 0.5, json: p.flag("json"))
        if o.watch && o.out == nil { throw p.error("--watch needs --out: ffmpeg keeps rewriting DIR") }
        if p.has("interval") && !o.watch { throw p.error("--interval is for --watch") }
        return o
    }

    struct Summary: Encodable {
        struct Entry: Encodable {
            var name: String
            var kind: String
            var revision: UInt64
            var published: Bool
            var endList: Bool
            enum CodingKeys: String, CodingKey { case name, kind, revision, published, endList = "end_list" }
        }
        var directory: String
        var output: String
        var publisherKey: String
        var playlists: [Entry]
        var objectsPlaced: Int
        enum CodingKeys: String, CodingKey {
            case directory, output, publisherKey = "publisher_key", playlists, objectsPlaced = "objects_placed"
        }
    }

    static func run(_ o: Options) throws -> Int32 {
        guard LocalFile.isDirectory(o.directory) else {
            throw CLIError(.file, "\(o.directory): " + (LocalFile.exists(o.directory) ? "not a folder" : "no such folder"))
        }
        let key = try KeyFile.read(path: o.key)
        let sealer = Sealer(source: o.directory, output: o.out, key: key)
        if o.watch && sealer.inPlace { throw UsageError("--watch needs an --out other than DIR", command: ["seal"]) }
        if !o.json { Output.err("publisher key \(key.publicKey.hex)") }
        let report: SealReport
        if o.watch {
            guard let r = sealer.watch(interval: o.interval, log: { Output.err($0) }, shouldStop: { false }) else { return ExitCode.failure }
            report = r
        } else {
            report = try sealer.sealOnce()
            if report.playlists.isEmpty { throw CLIError(.stream, "\(o.directory): no playlist (*.m3u8) to seal") }
        }
        if o.json {
            let entries = report.playlists.map {
                Summary.Entry(name: $0.name, kind: $0.kind.rawValue, revision: $0.revision, published: $0.published, endList: $0.endList)
            }
            Output.out(try JSON.report(Summary(directory: o.directory, output: sealer.output, publisherKey: key.publicKey.hex,
                                               playlists: entries, objectsPlaced: report.objectsPlaced), schema: .seal))
        } else {
            for e in report.playlists {
                Output.out("\(e.name): \(e.kind.rawValue), revision \(e.revision)\(e.published ? "" : " (unchanged)")\(e.endList ? ", ended" : "")")
            }
            Output.out("\(report.objectsPlaced) objects placed under their SHA-256")
        }
        return ExitCode.ok
    }
}
