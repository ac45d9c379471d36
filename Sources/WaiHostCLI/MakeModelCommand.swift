import WaiHost

enum MakeModelCommand: Command {
    static let name = "make-model"
    static let summary = "generate a seeded wai.neural.int_hyper model set (same seed, same bytes)"
    static let help = """
        usage: waihost make-model --seed S --n N --m M -o DIR [--name NAME] [--version V]

        Writes a wai.neural.int_hyper model set into DIR (created if missing): manifest.json,
        entropy.json, h_s.whm, g_s.whm and the analysis side g_a.whm, h_a.whm. N is the
        channel count of z and of the synthesis, M that of y (each 4…512). The weights come
        from a seeded generator and the gains are calibrated on a synthetic picture, so the
        same seed, N and M always give the same bytes. It is not a trained codec: decoded
        pictures are soft versions of the input (docs/capabilities/int_hyper.md §7).

          --seed S           generator seed (an unsigned 64-bit integer)
          --n N, --m M       channel counts (bmshj2018-hyperprior's 128 and 192 for the benchmark)
          -o DIR             output folder
          --name NAME        model-set name (default int-hyper-sS-nN-mM)
          --version V        model-set version (default 1)

        Exit status: 0 when written, 1 on an error, 2 on a usage error.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var seed: UInt64?, n: Int?, m: Int?, out: String?, modelName: String?, version = "1"
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--seed":
                let v = try args.value(for: a)
                guard let s = UInt64(v) else { throw UsageError(message: "--seed needs an unsigned integer, got \(v)") }
                seed = s
            case "--n": n = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: SampleModelGenerator.channelRange)
            case "--m": m = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: SampleModelGenerator.channelRange)
            case "-o", "--output": out = try args.value(for: a)
            case "--name": modelName = try args.value(for: a)
            case "--version": version = try args.value(for: a)
            default: throw UsageError(message: "unknown argument \(a)")
            }
        }
        guard let seed, let n, let m, let out else { throw UsageError(message: "make-model needs --seed, --n, --m and -o") }
        let start = monotonicMs()
        let set = try SampleModelGenerator.generate(seed: seed, n: n, m: m, name: modelName, version: version)
        try set.write(to: out)
        Output.out("model set \(set.name) version \(set.version) (N = \(n), M = \(m), seed \(seed))")
        Output.out("id \(set.idHex)")
        for (file, bytes) in set.files() { Output.out("  \(out)/\(file)  \(bytes.count) bytes") }
        Output.out("generated in \(CodecOptions.ms(monotonicMs() - start))")
        return ExitCode.ok
    }
}
