import WaiHost
import BackendABI

enum VersionCommand: Command {
    static let spec = CommandSpec(
        name: "version",
        summary: "print the host, backend ABI and probe suite versions",
        description: "Prints the host version, the backend ABI version it speaks and the probe suite version (both part of the probe cache key). 'waihost -V' prints the same.",
        options: [CommonOptions.json])

    struct Options: Equatable { var json: Bool }
    static func options(_ p: ParsedArguments) throws(UsageError) -> Options { Options(json: p.flag("json")) }

    struct Versions: Encodable {
        var host = WaiHostVersion.string
        var backendABI = "\(WAI_ABI_MAJOR).\(WAI_ABI_MINOR)"
        var probeSuite = ProbeSuite.version
        enum CodingKeys: String, CodingKey { case host, backendABI = "backend_abi", probeSuite = "probe_suite" }
    }

    static func run(_ o: Options) throws -> Int32 {
        let v = Versions()
        Output.out(o.json ? try JSON.report(v, schema: .version)
                          : "waihost \(v.host)\nbackend ABI \(v.backendABI)\nprobe suite \(v.probeSuite)")
        return ExitCode.ok
    }
}
