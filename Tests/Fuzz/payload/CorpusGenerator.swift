// Writes the seed corpus for PayloadFuzz: valid payloads (bare and enveloped) of the fuzz
// fixture's model set at several picture sizes. Usage: payload-corpus DIRECTORY.
// Built and run by scripts/fuzz-payload.sh.
#if canImport(Glibc)
import Glibc
#endif

@main
struct PayloadCorpusGenerator {
    static func main() {
        guard CommandLine.arguments.count == 2 else {
            fputs("usage: payload-corpus DIRECTORY\n", stderr)
            exit(2)
        }
        do {
            let set = try PayloadFixture.modelSet()
            var n = 0
            for (w, h) in [(1, 1), (16, 16), (33, 17), (64, 48), (5, 90)] {
                let picture = try SamplePicture.make(width: w, height: h)
                for envelope in [false, true] {
                    let (bytes, _) = try IntHyperCodec.encode(picture, modelSet: set, runner: ReferenceRunner(), envelope: envelope)
                    _ = try IntHyperCodec.decode(bytes, modelSet: set, runner: ReferenceRunner())   // every seed decodes
                    try LocalFile.write(bytes, to: "\(CommandLine.arguments[1])/\(w)x\(h)\(envelope ? ".wai" : ".payload")")
                    n += 1
                }
            }
            print("wrote \(n) seeds")
        } catch {
            fputs("payload-corpus: \(error)\n", stderr)
            exit(1)
        }
    }
}
