import WaiSupport
import WaiHost

enum MakeModelCommand: Command {
    static let spec = CommandSpec(
        name: "make-model",
        summary: "generate a seeded model set: int_hyper, int_motion or int_cond",
        description: """
            Writes a wai.neural.int_hyper model set into DIR (created if missing): manifest.json, \
            entropy.json, h_s.whm, g_s.whm and the analysis side g_a.whm, h_a.whm. N is the channel count of \
            z and of the synthesis, M that of y (each 4…512). The weights come from a seeded generator and the \
            gains are calibrated on a synthetic picture, so the same seed, N and M always give the same bytes. \
            It is not a trained codec: decoded pictures are soft versions of the input \
            (docs/capabilities/int_hyper.md §7). With --capability wai.video.int_motion it writes a motion \
            model set instead: both sub-codecs with N and M, p_synth and the encoder's graphs \
            (docs/capabilities/video_int_motion.md §8); with --capability wai.video.int_cond a conditional \
            model set: cond_context, cond_prior, cond_synth and the encoder's cond_g_a, cond_h_a with N and M \
            (docs/capabilities/video_int_cond.md §8).
            """,
        options: [
            .value("seed", "S", help: "generator seed (an unsigned 64-bit integer)", required: true),
            .value("n", "N", help: "z and synthesis channels (bmshj2018-hyperprior's 128 for the benchmark)", required: true),
            .value("m", "M", help: "y channels (bmshj2018-hyperprior's 192)", required: true),
            .value("output", short: "o", "DIR", help: "output folder", completion: .directory, required: true),
            .value("name", "NAME", help: "model-set name (default int-hyper-sS-nN-mM)"),
            .value("version", "V", help: "model-set version (default 1)"),
            .value("capability", "NAME", help: "wai.neural.int_hyper (default), wai.video.int_motion (docs/capabilities/video_int_motion.md §8: both sub-codecs with N and M) or wai.video.int_cond (docs/capabilities/video_int_cond.md §8)",
                   completion: .words(capabilities)),
            CommonOptions.json,
            CommonOptions.quiet,
        ])

    static let capabilities = [IntHyperModelSet.capability, MotionModelSet.capability, CondModelSet.capability]

    struct Options: Equatable {
        var seed: UInt64
        var n: Int
        var m: Int
        var output: String
        var name: String?
        var version: String
        /// wai.neural.int_hyper, wai.video.int_motion (video_int_motion.md §8) or wai.video.int_cond (video_int_cond.md §8).
        var capability: String
        var json: Bool
        var quiet: Bool
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        guard let seed = try p.uint64("seed"), let n = try p.int("n", in: SampleModelGenerator.channelRange),
              let m = try p.int("m", in: SampleModelGenerator.channelRange), let out = p.value("output") else {
            throw p.error("needs --seed, --n, --m and -o")   // the table requires them; kept for the types
        }
        let capability = p.value("capability") ?? IntHyperModelSet.capability
        guard capabilities.contains(capability) else {
            throw p.error("--capability is \(capabilities.dropLast().joined(separator: ", ")) or \(CondModelSet.capability), not '\(capability)'")
        }
        return Options(seed: seed, n: n, m: m, output: out, name: p.value("name"), version: p.value("version") ?? "1",
                       capability: capability, json: p.flag("json"), quiet: p.flag("quiet"))
    }

    struct Summary: Encodable {
        var name: String
        var version: String
        var id: String
        var seed: UInt64
        var n: Int
        var m: Int
        var directory: String
        var files: [File]
        var elapsedMs: Double
        struct File: Encodable { var name: String; var bytes: Int }
        enum CodingKeys: String, CodingKey { case name, version, id, seed, n, m, directory, files, elapsedMs = "elapsed_ms" }
    }

    static func run(_ o: Options) throws -> Int32 {
        let start = monotonicMilliseconds()
        let progress = Progress(enabled: !o.quiet)
        progress.begin("generating model set (seed \(o.seed), N = \(o.n), M = \(o.m))")
        let (name, version, id, folderFiles): (String, String, String, [(name: String, bytes: [UInt8])])
        if o.capability == CondModelSet.capability {
            let set = try CondModelGenerator.generate(seed: o.seed, n: o.n, m: o.m, name: o.name, version: o.version)
            progress.begin("writing \(o.output)")
            try set.write(to: o.output)
            (name, version, id, folderFiles) = (set.name, set.version, set.idHex, set.files())
        } else if o.capability == MotionModelSet.capability {
            let set = try MotionModelGenerator.generate(seed: o.seed, n: o.n, m: o.m, name: o.name, version: o.version)
            progress.begin("writing \(o.output)")
            try set.write(to: o.output)
            (name, version, id, folderFiles) = (set.name, set.version, set.idHex, set.files())
        } else {
            let set = try SampleModelGenerator.generate(seed: o.seed, n: o.n, m: o.m, name: o.name, version: o.version)
            progress.begin("writing \(o.output)")
            try set.write(to: o.output)
            (name, version, id, folderFiles) = (set.name, set.version, set.idHex, set.files())
        }
        progress.end()
        let files = folderFiles.map { Summary.File(name: $0.name, bytes: $0.bytes.count) }
        let s = Summary(name: name, version: version, id: id, seed: o.seed, n: o.n, m: o.m,
                        directory: o.output, files: files, elapsedMs: monotonicMilliseconds() - start)
        if o.json {
            Output.out(try JSON.report(s, schema: .makeModel))
            return ExitCode.ok
        }
        Output.out("model set \(s.name) version \(s.version) (N = \(o.n), M = \(o.m), seed \(o.seed))")
        Output.out("id \(s.id)")
        for f in files { Output.out("  \(o.output)/\(f.name)  \(f.bytes) bytes") }
        Output.out("generated in \(CodecOptions.ms(s.elapsedMs))")
        return ExitCode.ok
    }
}
