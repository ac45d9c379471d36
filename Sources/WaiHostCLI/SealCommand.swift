import Relay
#if canImport(Glibc)
import Glibc
#endif

enum SealCommand: Command {
    static let name = "seal"
    static let summary = "content-address an HLS folder's segments and sign its playlists"
    static let help = """
        usage: waihost seal DIR --key KEYFILE [--out OUTDIR] [--watch [--interval SECONDS]]

        Seals the HLS folder DIR as ffmpeg wrote it (TS or fMP4, VOD or live, multivariant or
        single, byte-range single file, AES-128): every segment, init section and key file
        is placed under `<sha256>.<extension>`, media playlists are rewritten to those names,
        and every playlist ends with a signed receipt carrying the time it was sealed
        (#EXT-X-WAI-RECEIPT, docs/receipts.md). The top playlist must be at the root of DIR:
        receipts name playlists by their path in DIR. A playlist that does not parse
        strictly (an attribute list a player could read otherwise, docs/sealing.md §4) is
        refused, naming the line; nothing is published.

          --key KEYFILE       the publisher key (waihost keygen -o KEYFILE)
          --out OUTDIR        write the sealed stream to OUTDIR, leaving DIR as it is;
                              without it DIR is sealed in place (segments renamed)
          --watch             keep sealing a live folder while ffmpeg writes it; each
                              changed playlist becomes a new revision chained to the last.
                              Needs --out. Ends when every media playlist has
                              EXT-X-ENDLIST (or on SIGINT/SIGTERM).
          --interval SECONDS  how often --watch looks (default 0.5)

        Running it again publishes new revisions only for playlists that changed.
        Details and the live-stream recipe: docs/sealing.md.
        Exit status: 0 sealed, 1 error, 2 usage error.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var dir: String?, keyPath: String?, out: String?, watch = false, interval = 0.5
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--key": keyPath = try args.value(for: a)
            case "--out", "-o": out = try args.value(for: a)
            case "--watch": watch = true
            case "--interval":
                let v = try args.value(for: a)
                guard let s = Double(v), s > 0, s <= 3600 else { throw UsageError(message: "--interval needs seconds in (0, 3600], not \(v)") }
                interval = s
            default:
                if a.hasPrefix("-") || dir != nil { throw UsageError(message: "unknown argument \(a)") }
                dir = a
            }
        }
        guard let dir, let keyPath else { throw UsageError(message: "seal needs DIR and --key KEYFILE") }
        if watch && out == nil { throw UsageError(message: "--watch needs --out: ffmpeg keeps rewriting DIR") }
        let key = try KeyFile.read(path: keyPath)
        let sealer = Sealer(source: dir, output: out, key: key)
        if watch && sealer.inPlace { throw UsageError(message: "--watch needs an --out other than DIR") }
        Output.err("publisher key \(key.publicKey.hex)")
        if watch {
            guard let report = sealer.watch(interval: interval, log: { Output.err($0) }, shouldStop: { false }) else { return ExitCode.failure }
            print(report)
            return ExitCode.ok
        }
        print(try sealer.sealOnce())
        return ExitCode.ok
    }

    private static func print(_ report: SealReport) {
        for e in report.playlists {
            Output.out("\(e.name): \(e.kind.rawValue), revision \(e.revision)\(e.published ? "" : " (unchanged)")\(e.endList ? ", ended" : "")")
        }
        Output.out("\(report.objectsPlaced) objects placed under their SHA-256")
    }
}
