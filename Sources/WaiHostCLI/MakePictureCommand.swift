import WaiHost

enum MakePictureCommand: Command {
    static let name = "make-picture"
    static let summary = "write the deterministic synthetic test picture at any size"
    static let help = """
        usage: waihost make-picture --size WxH -o OUT.png|OUT.rgb

        Writes the synthetic picture the sample, the benchmark and the model generator use:
        colour gradients with a disc, a rectangle, a ring and diagonal stripes, computed in
        integers, so the same size always gives the same pixels. `.rgb` writes raw RGB8 rows.

        Exit status: 0 when written, 1 on an error, 2 on a usage error.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var size: (width: Int, height: Int)?, out: String?
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--size": size = try CodecOptions.size(try args.value(for: a), flag: a)
            case "-o", "--output": out = try args.value(for: a)
            default: throw UsageError(message: "unknown argument \(a)")
            }
        }
        guard let size, let out else { throw UsageError(message: "make-picture needs --size and -o") }
        let picture = try SamplePicture.make(width: size.width, height: size.height)
        try PictureFile.write(picture, path: out)
        Output.out("\(out): \(size.width)×\(size.height), RGB8 rows sha256 \(picture.sha256)")
        return ExitCode.ok
    }
}
