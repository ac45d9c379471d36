import Relay

enum KeygenCommand: Command {
    static let spec = CommandSpec(
        name: "keygen",
        summary: "make an Ed25519 publisher key pair for sealing streams",
        synopsis: ["-o KEYFILE [--json]", "--public KEYFILE [--json]"],
        description: """
            -o writes a new key to KEYFILE (mode 0600; an existing file is never replaced) and prints its \
            public key: 64 hex digits, the value the relay's --publisher-key takes. --public prints the \
            public key of an existing key file. Key file format: docs/sealing.md.
            """,
        options: [
            .value("output", short: "o", "KEYFILE", help: "write a new key pair to KEYFILE", completion: .file([])),
            .value("public", "KEYFILE", help: "print the public key of an existing key file", completion: .file([])),
            CommonOptions.json,
        ],
        exclusive: [["output", "public"]])

    enum Action: Equatable { case generate(String), show(String) }
    struct Options: Equatable { var action: Action; var json: Bool }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        switch (p.value("output"), p.value("public")) {
        case (let path?, nil): return Options(action: .generate(path), json: p.flag("json"))
        case (nil, let path?): return Options(action: .show(path), json: p.flag("json"))
        default: throw p.error("needs one of -o KEYFILE or --public KEYFILE")
        }
    }

    struct Summary: Encodable {
        var keyFile: String
        var publicKey: String
        var created: Bool
        enum CodingKeys: String, CodingKey { case keyFile = "key_file", publicKey = "public_key", created }
    }

    static func run(_ o: Options) throws -> Int32 {
        let s: Summary
        switch o.action {
        case .generate(let path):
            let key = try Ed25519PrivateKey.generate()
            try KeyFile.write(key, path: path)
            s = Summary(keyFile: path, publicKey: key.publicKey.hex, created: true)
        case .show(let path):
            s = Summary(keyFile: path, publicKey: try KeyFile.read(path: path).publicKey.hex, created: false)
        }
        Output.out(o.json ? try JSON.report(s, schema: .keygen) : s.publicKey)
        return ExitCode.ok
    }
}
