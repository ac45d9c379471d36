import WaiHost

enum MakePictureCommand: Command {
    static let spec = CommandSpec(
        name: "make-picture",
        summary: "write the deterministic synthetic test picture at any size",
        description: """
            Writes the synthetic picture the sample, the benchmark and the model generator use: colour \
            gradients with a disc, a rectangle, a ring and diagonal stripes, computed in integers, so the same \
            size always gives the same pixels. .rgb and - write raw RGB8 rows.
            """,
        options: [
            .value("size", "WxH", help: "picture size", required: true),
            .value("output", short: "o", "OUT", help: "OUT.png, OUT.rgb, or - for raw RGB8 rows on standard output",
                   completion: .file(["png", "rgb"]), required: true),
            CommonOptions.json,
        ])

    struct Options {
        var size: (width: Int, height: Int)
        var output: String
        var json: Bool
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        guard let size = try CodecOptions.size(p, "size"), let out = p.value("output") else { throw p.error("needs --size and -o") }
        _ = try PictureFormat.output(out, p)
        return Options(size: size, output: out, json: p.flag("json"))
    }

    struct Summary: Encodable {
        var output: String
        var width: Int
        var height: Int
        var sha256: String
    }

    static func run(_ o: Options) throws -> Int32 {
        let picture = try SamplePicture.make(width: o.size.width, height: o.size.height)
        try PictureIO.write(picture, to: o.output)
        let emit: (String) -> Void = o.output == "-" ? Output.err : Output.out
        if o.json {
            emit(try JSON.report(Summary(output: o.output, width: o.size.width, height: o.size.height, sha256: picture.sha256),
                                 schema: .makePicture))
        } else {
            emit("\(o.output): \(o.size.width)×\(o.size.height), RGB8 rows sha256 \(picture.sha256)")
        }
        return ExitCode.ok
    }
}
