import Relay

enum KeygenCommand: Command {
    static let name = "keygen"
    static let summary = "make an Ed25519 publisher key pair for sealing streams"
    static let help = """
        usage: waihost keygen -o KEYFILE
               waihost keygen --public KEYFILE

        -o KEYFILE        writes a new key to KEYFILE (mode 0600; an existing file is never
                          replaced) and prints its public key: 64 hex digits, the value the
                          relay's --publisher-key takes.
        --public KEYFILE  prints the public key of an existing key file.

        Key file format: docs/sealing.md. Exit status: 0 done, 1 error, 2 usage error.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var out: String?, show: String?
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "-o", "--output": out = try args.value(for: a)
            case "--public": show = try args.value(for: a)
            default: throw UsageError(message: "unknown argument \(a)")
            }
        }
        switch (out, show) {
        case (let path?, nil):
            let key = try Ed25519PrivateKey.generate()
            try KeyFile.write(key, path: path)
            Output.out(key.publicKey.hex)
        case (nil, let path?):
            Output.out(try KeyFile.read(path: path).publicKey.hex)
        default:
            throw UsageError(message: "keygen needs exactly one of -o KEYFILE or --public KEYFILE")
        }
        return ExitCode.ok
    }
}
